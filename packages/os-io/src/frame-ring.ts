/**
 * A ring of the most recent raw frames, captured continuously at a fixed rate. A frame grabbed when a
 * hook event arrives may already show the action's effect; {@link FrameRing.frameBefore} gives the
 * last frame whose pixels predate the event instead. Idle cost is one raw grab a tick (about 8 %
 * of a core at 10 fps and 1280x800, 15 % at 1920x1080): nothing is encoded or copied in the loop.
 */
import type { RawFrame } from './capture.ts';
import { epochNow } from './time.ts';

export interface FrameRingOptions {
  /** Captures per second. Default 10. */
  fps?: number;
  /** How many of the newest frames to keep (about 4 MB each at 1280x800). Default 10: one second at 10 fps. */
  capacity?: number;
  /** Called with each failed capture; the ring keeps going. Default: failures are only counted in `failures`. */
  onError?: (error: unknown) => void;
}

export class FrameRing {
  readonly fps: number;
  readonly capacity: number;
  /** Captures that failed since construction. */
  failures = 0;
  readonly #capture: () => Promise<RawFrame>;
  readonly #onError: ((error: unknown) => void) | undefined;
  readonly #frames: RawFrame[] = [];
  #timer: NodeJS.Timeout | undefined;
  #inFlight: Promise<void> | undefined;
  #running = false;
  #nextAt = 0;

  /** `capture` grabs one frame (e.g. {@link captureFrame} or `desktop.captureFrame`). */
  constructor(capture: () => Promise<RawFrame>, options: FrameRingOptions = {}) {
    const { fps = 10, capacity = 10, onError } = options;
    if (!(fps > 0 && fps <= 60)) throw new RangeError(`fps must be in (0, 60], got ${fps}`);
    if (!(Number.isInteger(capacity) && capacity >= 1)) {
      throw new RangeError(`capacity must be a positive integer, got ${capacity}`);
    }
    this.fps = fps;
    this.capacity = capacity;
    this.#capture = capture;
    this.#onError = onError;
  }

  get running(): boolean {
    return this.#running;
  }

  /** Starts capturing (the first frame right away). The timer does not keep the process alive on its own. */
  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.#nextAt = epochNow();
    this.#tick();
  }

  /** Stops capturing and waits for a capture in flight; kept frames stay readable. */
  async stop(): Promise<void> {
    this.#running = false;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.#inFlight;
  }

  /** The last frame whose capture finished strictly before `time` (epoch ms, {@link epochNow} clock). */
  frameBefore(time: number): RawFrame | undefined {
    for (let i = this.#frames.length - 1; i >= 0; i -= 1) {
      const frame = this.#frames[i];
      if (frame && frame.time < time) return frame;
    }
    return undefined;
  }

  /** The newest frame, if any. */
  latest(): RawFrame | undefined {
    return this.#frames.at(-1);
  }

  /** The kept frames, oldest first. */
  frames(): readonly RawFrame[] {
    return [...this.#frames];
  }

  #tick(): void {
    if (!this.#running) return;
    this.#inFlight = this.#capture().then(
      (frame) => {
        this.#frames.push(frame);
        if (this.#frames.length > this.capacity) this.#frames.shift();
      },
      (error: unknown) => {
        this.failures += 1;
        this.#onError?.(error);
      },
    );
    void this.#inFlight.then(() => {
      if (!this.#running) return;
      const interval = 1000 / this.fps;
      const now = epochNow();
      // Fixed rate; after a slow capture, skip missed ticks rather than bursting to catch up.
      this.#nextAt = Math.max(this.#nextAt + interval, now);
      this.#timer = setTimeout(() => this.#tick(), this.#nextAt - now);
      this.#timer.unref();
    });
  }
}
