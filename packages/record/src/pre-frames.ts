import type { Desktop, RawFrame } from '@mime-desktop/os-io';

type Ring = ReturnType<Desktop['createFrameRing']>;

/**
 * The ring of recent frames the PRE frames come from. Each action's PRE frame is kept when its first
 * input arrives: the ring holds two seconds, and a slow typing burst is written only when it ends,
 * when its first frames are long gone.
 */
export class PreFrames {
  readonly #ring: Ring;
  readonly #kept = new Map<number, RawFrame | undefined>();

  private constructor(ring: Ring) {
    this.#ring = ring;
  }

  /** Starts capturing `fps` frames a second and resolves once the first frame is there. */
  static async start(desktop: Desktop, fps: number): Promise<PreFrames> {
    const ring = desktop.createFrameRing({ fps, capacity: Math.max(10, Math.ceil(fps * 2)) });
    ring.start();
    await firstFrame(desktop, ring);
    return new PreFrames(ring);
  }

  /** Keeps the last frame before `time`, the first input of an action. */
  keep(time: number): void {
    this.#kept.set(time, this.#ring.frameBefore(time));
  }

  /** The PRE frame of the action that started at `time`; frames kept for it and before it are let go. */
  take(time: number): RawFrame | undefined {
    const frame = this.#kept.has(time) ? this.#kept.get(time) : this.#ring.frameBefore(time);
    for (const kept of this.#kept.keys()) if (kept <= time) this.#kept.delete(kept);
    return frame;
  }

  latest(): RawFrame | undefined {
    return this.#ring.latest();
  }

  async stop(): Promise<void> {
    await this.#ring.stop();
  }
}

async function firstFrame(desktop: Desktop, ring: Ring): Promise<RawFrame> {
  for (let i = 0; i < 50; i += 1) {
    const frame = ring.latest();
    if (frame) return frame;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return desktop.captureFrame();
}
