/**
 * Waiting, for tests and their helpers: the one `sleep`, and `waitUntil` that polls for a condition.
 * A test waits for what it needs to be true (an event reported, a file written, a window shown);
 * `sleep` is for a pause that is itself the input or the observation: a person's pace, a button
 * held, a gap longer than a double click, a window of time in which nothing may happen.
 */
/** Resolves after `ms`, on the global timer (so a test's fake timers drive it too). */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export interface WaitOptions {
  /** Longest wait, ms. Default 10000. */
  timeoutMs?: number;
  /** Pause between two looks, ms. Default 50. */
  intervalMs?: number;
  /** What is waited for, for the error. Default "the condition". */
  what?: string;
}

/**
 * Calls `probe` until it returns something other than `undefined`, `null` or `false`, and resolves
 * that; throws, naming `what` and the last value seen, after `timeoutMs`.
 */
export async function waitUntil<T>(
  probe: () => T | undefined | null | false | Promise<T | undefined | null | false>,
  { timeoutMs = 10_000, intervalMs = 50, what = 'the condition' }: WaitOptions = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    last = await probe();
    if (last !== undefined && last !== null && last !== false) return last as T;
    if (Date.now() > deadline)
      throw new Error(`${what} did not happen within ${timeoutMs} ms (last: ${String(last)})`);
    await sleep(intervalMs);
  }
}
