/**
 * Frames of a PipeWire video node (mutter's screen cast) through ONE long-lived GStreamer process,
 * `gst-launch-1.0 pipewiresrc ! videoconvert ! RGBA ! fdsink`, whose stdout is a run of raw frames of
 * a known size. A process a frame costs 390-870 ms (the stream is negotiated each time); reading the
 * running stream costs nothing until a frame is asked for.
 *
 * Mutter sends a frame when the screen changes, not at a fixed rate: the last frame received is the
 * screen as it is now, until the next one comes.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import type { RawFrame } from './capture.ts';
import { DesktopFailureError } from './errors.ts';
import { epochNow } from './time.ts';
import type { PhysicalSize } from './units.ts';

/**
 * How long the first frame may take after the consumer starts, ms: mutter negotiates the stream and
 * sends a whole frame first, which took over 10 s once on two cores kept busy (CI 17e).
 */
const FIRST_FRAME_MS = 20_000;

/** The gst-launch-1.0 arguments that write node `node`'s frames to stdout as RGBA of `size`. */
export function pipelineArgs(node: number, size: PhysicalSize): string[] {
  return [
    '-q',
    'pipewiresrc',
    `path=${node}`,
    'always-copy=true',
    '!',
    'videoconvert',
    '!',
    `video/x-raw,format=RGBA,width=${size.width},height=${size.height}`,
    '!',
    'fdsink',
    'fd=1',
    'sync=false',
  ];
}

/** Cuts a byte stream into frames of `frameBytes`, keeping the last whole one. */
export class FrameCutter {
  readonly #frameBytes: number;
  #filling: Buffer;
  #filled = 0;
  #latest: Buffer | null = null;
  #count = 0;

  constructor(frameBytes: number) {
    this.#frameBytes = frameBytes;
    this.#filling = Buffer.allocUnsafe(frameBytes);
  }

  /** Takes a chunk of the stream; returns whether a frame was completed. */
  push(chunk: Buffer): boolean {
    let offset = 0;
    let completed = false;
    while (offset < chunk.length) {
      const take = Math.min(chunk.length - offset, this.#frameBytes - this.#filled);
      chunk.copy(this.#filling, this.#filled, offset, offset + take);
      this.#filled += take;
      offset += take;
      if (this.#filled === this.#frameBytes) {
        this.#latest = this.#filling;
        this.#filling = Buffer.allocUnsafe(this.#frameBytes);
        this.#filled = 0;
        this.#count += 1;
        completed = true;
      }
    }
    return completed;
  }

  /** The last whole frame (never written to again), or null before the first. */
  get latest(): Buffer | null {
    return this.#latest;
  }

  /** Whole frames received so far. */
  get count(): number {
    return this.#count;
  }
}

export class PipeWireFrames {
  readonly #child: ChildProcess;
  readonly #cutter: FrameCutter;
  readonly #size: PhysicalSize;
  readonly #scale: number;
  #failure: DesktopFailureError | null = null;
  #waiters: Array<() => void> = [];

  private constructor(child: ChildProcess, size: PhysicalSize, scale: number) {
    this.#child = child;
    this.#size = size;
    this.#scale = scale;
    this.#cutter = new FrameCutter(size.width * size.height * 4);
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr = (stderr + String(chunk)).slice(-2000);
    });
    child.stdout?.on('data', (chunk: Buffer) => {
      if (this.#cutter.push(chunk)) this.#wake();
    });
    child.once('error', (error: NodeJS.ErrnoException) => {
      this.#fail(
        error.code === 'ENOENT'
          ? 'screen capture on GNOME needs gst-launch-1.0 with the PipeWire plugin: install gstreamer1.0-tools and gstreamer1.0-pipewire (./setup.sh does)'
          : `the PipeWire frame reader did not start: ${error.message}`,
      );
    });
    child.once('exit', (code, signal) => {
      this.#fail(
        `the PipeWire frame reader (gst-launch-1.0) ended (${signal ?? `exit ${code}`}): ${stderr.trim() || 'no message'}`,
      );
    });
  }

  /**
   * Starts reading node `node` of the PipeWire daemon of `env` (its XDG_RUNTIME_DIR); resolves at the
   * first frame. Throws {@link DesktopFailureError} when no frame comes.
   */
  static async open(
    node: number,
    size: PhysicalSize,
    scale: number,
    env: NodeJS.ProcessEnv,
  ): Promise<PipeWireFrames> {
    const child = spawn('gst-launch-1.0', pipelineArgs(node, size), {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const frames = new PipeWireFrames(child, size, scale);
    try {
      await frames.#next(FIRST_FRAME_MS);
      return frames;
    } catch (error) {
      frames.close();
      throw error;
    }
  }

  /** The screen as the last frame shows it. */
  capture(): Promise<RawFrame> {
    if (this.#failure) return Promise.reject(this.#failure);
    const data = this.#cutter.latest;
    if (!data) return this.#next(FIRST_FRAME_MS).then(() => this.capture());
    const { width, height } = this.#size;
    return Promise.resolve({
      data,
      channelOrder: 'rgba',
      stride: width * 4,
      physical: { width, height },
      logical: { width: Math.round(width / this.#scale), height: Math.round(height / this.#scale) },
      scale: this.#scale,
      time: epochNow(),
    });
  }

  close(): void {
    this.#child.stdout?.destroy();
    if (this.#child.exitCode === null && this.#child.signalCode === null) this.#child.kill('SIGTERM');
  }

  #next(ms: number): Promise<void> {
    if (this.#failure) return Promise.reject(this.#failure);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#waiters = this.#waiters.filter((w) => w !== done);
        reject(new DesktopFailureError(`no frame came from mutter's screen cast (PipeWire) within ${ms} ms`));
      }, ms);
      const done = () => {
        clearTimeout(timer);
        if (this.#failure) reject(this.#failure);
        else resolve();
      };
      this.#waiters.push(done);
    });
  }

  #wake(): void {
    for (const waiter of this.#waiters.splice(0)) waiter();
  }

  #fail(message: string): void {
    this.#failure ??= new DesktopFailureError(message);
    this.#wake();
  }
}
