import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { decodeImage } from '../src/image.ts';
import { changedRegion, layoutProgress, layoutProgressAt } from '../src/layout.ts';

const image = async (path: string) =>
  decodeImage(await readFile(new URL(`../../../fixtures/${path}`, import.meta.url)));

describe('layoutProgressAt', async () => {
  // The demo's Play click as recorded, and the app replayed moved by (40, 24) at 1.1x after it.
  const before = await image('workflows/play-song-recorded/screenshots/3.png');
  const after = await image('workflows/play-song-recorded/screenshots/4.png');
  const live = await image('frames/play-song-moved/after-play.png');
  const region = changedRegion(before, after);

  it('gives at each place what layoutProgress gives there', () => {
    if (!region) throw new Error('the recorded frames do not differ');
    const transforms = [-6, 0, 6].flatMap((n) => [
      { scale: 1.1, dx: 40 + n, dy: 24 },
      { scale: 1.1, dx: 40, dy: 24 + n },
    ]);
    expect(layoutProgressAt(live, before, after, region, transforms)).toEqual(
      transforms.map((transform) => layoutProgress(live, before, after, region, { transform })),
    );
  });

  it('finds each recorded frame where it was recorded', () => {
    if (!region) throw new Error('the recorded frames do not differ');
    expect(layoutProgress(before, before, after, region)).toMatchObject({ toAfter: 0, toBefore: 1 });
    expect(layoutProgress(after, before, after, region)).toMatchObject({ toAfter: 1, toBefore: 0 });
  });

  it('says how well what the action left alone lines up', () => {
    if (!region) throw new Error('the recorded frames do not differ');
    const around = {
      x: region.x - 16,
      y: region.y - 16,
      width: region.width + 32,
      height: region.height + 32,
    };
    const [inPlace, off] = layoutProgressAt(after, before, after, around, [
      { scale: 1, dx: 0, dy: 0 },
      { scale: 1, dx: 0, dy: 6 },
    ]);
    expect(inPlace).toMatchObject({ toAfter: 1, context: 1 });
    expect(off?.context).toBeLessThan(0.95);
  });
});
