import { readFile } from 'node:fs/promises';
import { changedRegion, decodeImage } from '@mime-desktop/vision';
import { describe, expect, it } from 'vitest';
import { checkChange } from '../src/recorded/checks.ts';
import { type Layout, RECORDED } from '../src/recorded/layout-map.ts';

const image = async (path: string) =>
  decodeImage(await readFile(new URL(`../../../fixtures/${path}`, import.meta.url)));

/**
 * Recorded frames before and after an action, and live frames (as the app drew them, moved and
 * maybe scaled) before and after the same action with another value.
 */
const cases: Array<{ name: string; recorded: [string, string]; live: [string, string]; layout: Layout }> = [
  {
    // The Play click turns "Now playing: nothing" into "Now playing: Numb"; live, into "... Faint".
    name: 'the demo played, moved by (40, 24) at 1.1x',
    recorded: [
      'workflows/play-song-recorded/screenshots/3.png',
      'workflows/play-song-recorded/screenshots/4.png',
    ],
    live: ['frames/play-song-moved/before-play.png', 'frames/play-song-moved/after-play.png'],
    layout: { scale: 1.1, dx: 40, dy: 24 },
  },
  {
    // Enter shows "Sent to Ann Lee in Paris" on a blank line; live, "Sent to Cy Young in Oslo".
    name: 'a form sent, moved by (80, 30)',
    recorded: [
      'frames/send-address-moved/recorded-before-send.png',
      'frames/send-address-moved/recorded-after-send.png',
    ],
    live: ['frames/send-address-moved/before-send.png', 'frames/send-address-moved/after-send.png'],
    layout: { scale: 1, dx: 80, dy: 30 },
  },
];

describe('checkChange', () => {
  for (const { name, recorded, live, layout } of cases) {
    it(`tells the change from none: ${name}`, async () => {
      const [before, after] = await Promise.all(recorded.map(image));
      if (!before || !after) throw new Error('missing frames');
      const region = changedRegion(before, after);
      if (!region) throw new Error('the recorded frames do not differ');
      // Where it was recorded, on the recorded frames themselves.
      expect(checkChange(before, before, after, region, RECORDED).ok).toBe(false);
      expect(checkChange(after, before, after, region, RECORDED).ok).toBe(true);
      // On the live screen, lined up by what the action left alone around the change.
      const [notYet, done] = await Promise.all(live.map(image));
      if (!notYet || !done) throw new Error('missing frames');
      expect(checkChange(notYet, before, after, region, layout).ok).toBe(false);
      expect(checkChange(done, before, after, region, layout).ok).toBe(true);
    });
  }
});
