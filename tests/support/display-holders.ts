/** Who holds a display's machine-wide lock over time, as the replays on it see it. */
import { type DisplayLockHolder, displayLockHolder } from '@mime-desktop/os-io';
import { sleep } from './wait.ts';

/**
 * Looks at the lock of `display` every `everyMs` until stopped; resolves each holding seen once (a
 * holder's `since` tells one holding from the next), in order.
 */
export function watchDisplayHolders(
  display: string,
  everyMs = 100,
): { stop(): Promise<DisplayLockHolder[]> } {
  const seen: DisplayLockHolder[] = [];
  let running = true;
  const looking = (async () => {
    while (running) {
      const holder = await displayLockHolder({ env: { DISPLAY: display } });
      if (holder && !seen.some((h) => h.since === holder.since && h.pid === holder.pid)) seen.push(holder);
      await sleep(everyMs);
    }
  })();
  return {
    stop: async () => {
      running = false;
      await looking;
      return seen;
    },
  };
}
