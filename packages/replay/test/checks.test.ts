import { readFile } from 'node:fs/promises';
import { changedRegion, decodeImage, type RgbaImage } from '@mime-desktop/vision';
import { describe, expect, it } from 'vitest';
import { checkChange, checkPlace, checkWholeScreen } from '../src/recorded/checks.ts';
import { isMoved, type Layout, RECORDED } from '../src/recorded/layout-map.ts';
import { CHANGES, changedScreen } from './screen-variants.ts';

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

const MOUSEPAD = (n: number) =>
  new URL(`../../../fixtures/workflows/mousepad-save/screenshots/${n}.png`, import.meta.url).pathname;

/**
 * Real Mousepad frames: typing a note into the empty document (1 -> 2), and a subtask's outcome,
 * the Save dialog closed and the title naming the file (3 -> 5). The wrong outcome: nothing typed
 * (1), the dialog still open with the path typed (4). Each live screen as the app would draw it
 * moved, in a dark theme, scaled 1.25x.
 */
const mousepad = [
  { name: 'typing a note', before: 1, after: 2, wrong: 1 },
  { name: 'a Save dialog closing', before: 3, after: 5, wrong: 4 },
];

describe('checkChange on a changed screen (real Mousepad frames)', async () => {
  const frames = new Map<number, RgbaImage>();
  for (const n of [1, 2, 3, 4, 5]) frames.set(n, await decodeImage(MOUSEPAD(n)));
  for (const { name, before: b, after: a, wrong } of mousepad) {
    for (const { name: condition, change } of CHANGES) {
      it(`${name}, ${condition}: the right outcome passes, the wrong one fails, each figure on its side of its threshold`, async () => {
        const before = frames.get(b) as RgbaImage;
        const after = frames.get(a) as RgbaImage;
        const region = changedRegion(before, after);
        if (!region) throw new Error('the recorded frames do not differ');
        const layout = { scale: change.scale ?? 1, dx: change.dx ?? 0, dy: change.dy ?? 0 };
        const right = checkChange(await changedScreen(MOUSEPAD(a), change), before, after, region, layout);
        expect(right).toMatchObject({ ok: true, by: change.dark || isMoved(layout) ? 'edges' : 'pixels' });
        expect(right.score).toBeGreaterThanOrEqual(right.threshold);
        const bad = checkChange(await changedScreen(MOUSEPAD(wrong), change), before, after, region, layout);
        expect(bad.ok).toBe(false);
        expect(bad.score).toBeLessThan(bad.threshold);
      });
    }
  }
});

describe('a change check’s figure is the one that decided', () => {
  it('a failure because too much still looks as before reports that share, below its threshold', async () => {
    // The demo's "Now playing: nothing" -> "Now playing: Numb": half of the change done, half not.
    const [before, after] = await Promise.all(
      [
        'workflows/play-song-recorded/screenshots/3.png',
        'workflows/play-song-recorded/screenshots/4.png',
      ].map(image),
    );
    if (!before || !after) throw new Error('missing frames');
    const region = changedRegion(before, after);
    if (!region) throw new Error('the recorded frames do not differ');
    for (const live of [before, after]) {
      const verdict = checkChange(live, before, after, region, RECORDED);
      expect(verdict.ok).toBe(verdict.score >= verdict.threshold);
    }
    const notBefore = checkChange(before, before, after, region, RECORDED);
    expect(notBefore.score).toBeLessThan(notBefore.threshold);
  });

  it('typing checked by place: a failure is below its threshold even when the recording changed few cells', () => {
    const blank: RgbaImage = { width: 40, height: 40, data: new Uint8Array(40 * 40 * 4).fill(255) };
    const one = { ...blank, data: blank.data.slice() };
    for (let y = 0; y < 4; y += 1)
      for (let x = 0; x < 4; x += 1) one.data.fill(0, (y * 40 + x) * 4, (y * 40 + x) * 4 + 3);
    const verdict = checkPlace(blank, one, { x: 0, y: 0, width: 40, height: 40 }, 3);
    expect(verdict.ok).toBe(false);
    expect(verdict.score).toBeLessThan(verdict.threshold);
  });
});

describe('checkWholeScreen on a changed screen (real Mousepad frames)', () => {
  it('passes the Save dialog in a dark theme by its edges, and fails the document window there, below its threshold', async () => {
    const pre = await decodeImage(MOUSEPAD(3));
    const dark = checkWholeScreen(0, pre, await changedScreen(MOUSEPAD(3), { dark: true }));
    expect(dark.ok && dark.value.reason).toMatch(/by its edges/);
    const wrong = checkWholeScreen(0, pre, await changedScreen(MOUSEPAD(0), { dark: true }));
    if (wrong.ok) throw new Error(wrong.value.reason);
    expect(wrong.failure.similarity).toBeLessThan(wrong.failure.threshold);
  });
});
