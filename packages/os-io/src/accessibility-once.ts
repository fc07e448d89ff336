/**
 * A desktop's accessibility, opened at the first ask and kept. A bus that did not answer in time is
 * not kept as absent: on a busy machine (load 20+) the bus launcher or the registry answered after
 * the 3 s a connect waits, and the failure, kept for the life of the process, left whole recordings
 * without a single element. It is asked again at a later ask, {@link RETRY_AFTER_MS} after it failed.
 * Where there is no bus at all (no session bus, at-spi2-core missing) the answer is kept.
 */
import type { Accessibility, OpenedAccessibility } from './accessibility.ts';

/** How long a bus that did not answer is left alone before a later ask tries it again, ms. */
export const RETRY_AFTER_MS = 2000;

export interface AccessibilityOnce {
  /** The accessibility trees, or null where the bus is missing or has not answered (yet). */
  get(): Promise<Accessibility | null>;
  /** Closes what was opened. */
  close(): Promise<void>;
}

export function accessibilityOnce(
  open: () => Promise<OpenedAccessibility>,
  now: () => number = () => performance.now(),
): AccessibilityOnce {
  let opened: Promise<Accessibility | null> | undefined;
  /** When a bus that did not answer may be asked again; null when the answer is kept. */
  let retryAt: number | null = null;
  return {
    get() {
      if (opened === undefined || (retryAt !== null && now() >= retryAt)) {
        retryAt = null;
        opened = open().then(
          (result) => {
            if (result.ok) return result.accessibility;
            if (result.retry) retryAt = now() + RETRY_AFTER_MS;
            return null;
          },
          () => {
            retryAt = now() + RETRY_AFTER_MS;
            return null;
          },
        );
      }
      return opened;
    },
    async close() {
      await (await opened)?.close();
    },
  };
}
