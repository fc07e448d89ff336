/**
 * The desktop is one resource: one replay at a time, whichever client or session asks. A second call
 * is refused ({@link DesktopBusyError}) or, when queueing, waits its turn; a call while the running
 * replay is being cancelled waits for it to end (the desktop is about to be free).
 */
import { DesktopBusyError } from './errors.ts';

interface Holder {
  what: string;
  signal: AbortSignal | undefined;
}

export class DesktopLock {
  readonly #queue: boolean;
  /** The replay on the desktop first, then those waiting, in order. */
  readonly #holders: Holder[] = [];
  #tail: Promise<void> = Promise.resolve();

  constructor(options: { queue: boolean }) {
    this.#queue = options.queue;
  }

  /** Runs `work` when the desktop is free; `what` names it in a busy error. */
  async run<T>(what: string, work: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    const running = this.#holders[0];
    if (running && !this.#queue && running.signal?.aborted !== true) throw new DesktopBusyError(running.what);
    const me: Holder = { what, signal };
    this.#holders.push(me);
    const before = this.#tail;
    let release = () => {};
    this.#tail = new Promise((resolve) => {
      release = resolve;
    });
    try {
      await before;
      signal?.throwIfAborted();
      return await work();
    } finally {
      this.#holders.splice(this.#holders.indexOf(me), 1);
      release();
    }
  }
}
