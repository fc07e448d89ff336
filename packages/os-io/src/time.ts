/**
 * One clock for frames and hook events: epoch milliseconds that never go backwards (monotonic
 * `performance.now()` anchored at the process's time origin), so `frameBefore(event.time)` compares
 * like with like even if the wall clock is adjusted.
 */
export function epochNow(): number {
  return performance.timeOrigin + performance.now();
}

/** Waits `ms`; rejects with `signal.reason` as soon as `signal` aborts. */
export function pause(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(signal.reason);
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
