/**
 * The screen watcher's verdict on an app slow to draw: a look that fails and runs out the step's time
 * by itself (OCR on a loaded machine) read a frame taken before the app drew its outcome, so the
 * watcher looks once more at a frame taken after it; a screen that never shows it still fails, after
 * that one more look.
 */

import { sleep } from '@mime-desktop/test-support/wait';
import type { RgbaImage } from '@mime-desktop/vision';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SETTLE } from '../src/kernel/settings.ts';
import { failed, identity, located } from '../src/recorded/checks.ts';
import { RECORDED } from '../src/recorded/layout-map.ts';
import { ScreenWatcher } from '../src/recorded/screen-watcher.ts';
import { createFakeDesktop } from './fake-desktop.ts';

/** Whether a frame of the fake desktop shows a line of text (dark pixels on its light ground). */
const showsText = (live: RgbaImage) => live.data.some((v, i) => i % 4 === 0 && v < 128);

/** A watcher after an action (a key that sends a form), with a step time shorter than one look. */
function watcherOf(app: { drawn: boolean }) {
  const desktop = createFakeDesktop({ shows: () => (app.drawn ? ['Sent to Bob Jones in'] : []) });
  const watcher = new ScreenWatcher(desktop, {
    settle: { ...DEFAULT_SETTLE, intervalMs: 2, stableMs: 4, timeoutMs: 50 },
    stepTimeoutMs: 10,
    signal: new AbortController().signal,
    dryRun: false,
  });
  watcher.acted();
  return watcher;
}

/** A slow look (longer than the step's time) whether the line is shown; the app draws while the first one reads. */
function slowLook(app: { drawn: boolean; draws: boolean }, seen: boolean[]) {
  return async (live: RgbaImage) => {
    seen.push(showsText(live));
    if (app.draws) app.drawn = true;
    await sleep(30);
    return showsText(live)
      ? located(identity, RECORDED, 1, 'the line is shown')
      : failed(null, 'subtask_outcome', 'the line is not shown', 0, 1, null, live);
  };
}

describe('a look that runs out the time by itself', () => {
  it('is followed by one more look at a frame taken after it, which decides', async () => {
    const app = { drawn: false, draws: true };
    const seen: boolean[] = [];
    const watched = await watcherOf(app).watch(slowLook(app, seen));
    expect(seen).toEqual([false, true]);
    expect(watched.look.ok).toBe(true);
  });

  it('still fails where the app never draws it, after that one more look', async () => {
    const app = { drawn: false, draws: false };
    const seen: boolean[] = [];
    const watched = await watcherOf(app).watch(slowLook(app, seen));
    expect(seen).toEqual([false, false]);
    expect(watched.look.ok).toBe(false);
  });
});
