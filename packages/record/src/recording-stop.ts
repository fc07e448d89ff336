import type { RecorderEvent, StopReason } from './record-options.ts';

/** When and why a recording stops: the first reason given wins; a failure is kept to throw at the end. */
export class RecordingStop {
  readonly #emit: (event: RecorderEvent) => void;
  readonly stopped: Promise<void>;
  #resolve: () => void = () => undefined;
  #reason: StopReason | undefined;
  #failure: unknown;

  constructor(emit: (event: RecorderEvent) => void) {
    this.#emit = emit;
    this.stopped = new Promise<void>((resolve) => {
      this.#resolve = resolve;
    });
  }

  /** Why the recording is stopping; undefined while it runs. */
  get reason(): StopReason | undefined {
    return this.#reason;
  }

  /** The first error that stopped the recording, if any. */
  get failure(): unknown {
    return this.#failure;
  }

  stop(reason: StopReason): void {
    if (this.#reason) return;
    this.#reason = reason;
    this.#emit({ type: 'stopping', reason });
    this.#resolve();
  }

  /** A write failed: the recording stops and the error is thrown at its end. */
  fail(error: unknown): void {
    this.#failure ??= error;
    this.#emit({ type: 'error', error });
    this.stop('signal');
  }

  /** Stops on `signal` and after `maxDurationMs`; returns a function that stops watching. */
  watch(signal: AbortSignal | undefined, maxDurationMs: number | undefined): () => void {
    const limit =
      maxDurationMs === undefined ? undefined : setTimeout(() => this.stop('max-duration'), maxDurationMs);
    const onAbort = () => this.stop(signal?.reason === 'interrupt' ? 'interrupt' : 'signal');
    if (signal?.aborted) onAbort();
    signal?.addEventListener('abort', onAbort, { once: true });
    return () => {
      signal?.removeEventListener('abort', onAbort);
      clearTimeout(limit);
    };
  }
}
