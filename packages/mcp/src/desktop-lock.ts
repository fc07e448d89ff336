/**
 * The desktop is one resource: one replay at a time, whichever client or session asks. A second call
 * is refused ({@link DesktopBusyError}) or, when queueing, waits its turn.
 */
import { DesktopBusyError } from './errors.ts';

export class DesktopLock {
  readonly #queue: boolean;
  #running: string | null = null;
  #tail: Promise<void> = Promise.resolve();

  constructor(options: { queue: boolean }) {
    this.#queue = options.queue;
  }

  /** Runs `work` when the desktop is free; `what` names it in a busy error. */
  async run<T>(what: string, work: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    if (this.#running !== null && !this.#queue) throw new DesktopBusyError(this.#running);
    const before = this.#tail;
    let release = () => {};
    this.#tail = new Promise((resolve) => {
      release = resolve;
    });
    try {
      await before;
      signal?.throwIfAborted();
      this.#running = what;
      return await work();
    } finally {
      this.#running = null;
      release();
    }
  }
}
