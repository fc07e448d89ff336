import { join } from 'node:path';
import pixelmatch from 'pixelmatch';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { similarity } from '../src/compare.ts';
import { edgeShare, edgeSimilarity, isFeatureless } from '../src/edges.ts';
import { findTemplate } from '../src/find.ts';
import { crop, decodeImage, type RgbaImage } from '../src/image.ts';

const SHOTS = join(
  import.meta.dirname,
  '..',
  '..',
  '..',
  'fixtures',
  'recordings',
  'play-song',
  'screenshots',
);
const playButton = { x: 512, y: 174, width: 100, height: 40 };

/** The screenshot with its content moved by (dx, dy) and scaled, on a white page: a changed layout. */
async function shifted(file: string, dx: number, dy: number, scale = 1, dark = false): Promise<RgbaImage> {
  const source = sharp(file);
  const { width = 0, height = 0 } = await source.metadata();
  const resized = sharp(file).resize(Math.round(width * scale), Math.round(height * scale));
  const inner = await (dark ? resized.negate({ alpha: false }) : resized)
    .extract({
      left: 0,
      top: 0,
      width: Math.min(Math.round(width * scale), width - dx),
      height: Math.min(Math.round(height * scale), height - dy),
    })
    .png()
    .toBuffer();
  const png = await sharp({
    create: { width, height, channels: 3, background: dark ? '#000000' : '#ffffff' },
  })
    .composite([{ input: inner, left: dx, top: dy }])
    .png()
    .toBuffer();
  return decodeImage(png);
}

describe('findTemplate', () => {
  it('finds a recorded button where it was, and after the layout moved and grew', async () => {
    const recorded = await decodeImage(join(SHOTS, '3.png'));
    const template = crop(recorded, playButton);
    const same = await findTemplate(recorded, template);
    expect(same).toMatchObject({ box: playButton, scale: 1 });
    expect(same?.score).toBeGreaterThan(0.99);

    const moved = await findTemplate(await shifted(join(SHOTS, '3.png'), 40, 20), template);
    expect(moved?.box).toMatchObject({ x: playButton.x + 40, y: playButton.y + 20 });
    expect(moved?.score).toBeGreaterThan(0.95);

    const grown = await findTemplate(await shifted(join(SHOTS, '3.png'), 0, 0, 1.25), template);
    expect(grown?.scale).toBe(1.25);
    expect(Math.abs((grown?.box.x ?? 0) - playButton.x * 1.25)).toBeLessThanOrEqual(3);
    expect(Math.abs((grown?.box.y ?? 0) - playButton.y * 1.25)).toBeLessThanOrEqual(3);
  });

  it('scores low when the target is gone, and flags flat templates', async () => {
    const before = await decodeImage(join(SHOTS, '0.png'));
    const template = crop(await decodeImage(join(SHOTS, '3.png')), playButton);
    const missing = await findTemplate(before, template);
    expect(missing?.score).toBeLessThan(0.7);
    const flat = await findTemplate(before, crop(before, { x: 700, y: 700, width: 80, height: 40 }));
    expect(flat?.contrast).toBeLessThan(8);
  });
});

describe('findTemplate on edges', () => {
  it('finds the button in a dark theme at 1.25x, where grey levels do not', async () => {
    // The button with as much again around it, as the ladder crops a target: its outline's edges are inside.
    const withContext = { x: 462, y: 154, width: 200, height: 80 };
    const template = crop(await decodeImage(join(SHOTS, '3.png')), withContext);
    const live = await shifted(join(SHOTS, '3.png'), 30, 20, 1.25, true);
    const want = { x: withContext.x * 1.25 + 30, y: withContext.y * 1.25 + 20 };
    const grey = await findTemplate(live, template);
    expect(grey?.score ?? 0).toBeLessThan(0.8);
    const edges = await findTemplate(live, template, { features: 'edges' });
    expect(edges).toMatchObject({ scale: 1.25 });
    expect(edges?.score).toBeGreaterThan(0.9);
    expect(Math.abs((edges?.box.x ?? 0) - want.x)).toBeLessThanOrEqual(3);
    expect(Math.abs((edges?.box.y ?? 0) - want.y)).toBeLessThanOrEqual(3);
    // Gone from the screen: no confident match by edges either.
    const before = await decodeImage(join(SHOTS, '0.png'));
    expect((await findTemplate(before, template, { features: 'edges' }))?.score ?? 0).toBeLessThan(0.8);
  });
});

describe('edges', () => {
  it('tell a featureless region, and compare regions whatever their colours', async () => {
    const frame = await decodeImage(join(SHOTS, '3.png'));
    const dark = { ...frame, data: frame.data.map((v, i) => (i % 4 === 3 ? v : 255 - v)) };
    expect(isFeatureless(frame, playButton)).toBe(false);
    expect(edgeShare(frame, playButton)).toBeGreaterThan(0.05);
    expect(isFeatureless(frame, { x: 700, y: 700, width: 80, height: 40 })).toBe(true);
    expect(edgeSimilarity(frame, playButton, dark, playButton)).toBeGreaterThan(0.99);
    const elsewhere = { ...playButton, y: playButton.y + 200 };
    expect(edgeSimilarity(frame, playButton, frame, elsewhere)).toBeLessThan(0.5);
  });
});

describe('similarity', () => {
  it('is 1 for the same pixels and drops where the screen changed', async () => {
    const [a, b] = await Promise.all([decodeImage(join(SHOTS, '3.png')), decodeImage(join(SHOTS, '4.png'))]);
    expect(similarity(a, a)).toBe(1);
    expect(similarity(a, b, playButton)).toBe(1);
    const playingTitle = { x: 250, y: 620, width: 200, height: 40 };
    expect(similarity(a, b, playingTitle)).toBeLessThan(0.95);
  });
});

describe('similarity over the rows that differ', () => {
  it('counts what pixelmatch counts over the whole images', async () => {
    const shots = await Promise.all([0, 1, 2, 3, 4].map((n) => decodeImage(join(SHOTS, `${n}.png`))));
    let compared = 0;
    for (const [k, a] of shots.entries()) {
      const b = shots[k + 1];
      if (!b) break;
      const whole = pixelmatch(a.data, b.data, undefined, a.width, a.height, { threshold: 0.1 });
      if (whole > 0) compared += 1;
      expect(similarity(a, b)).toBe(1 - whole / (a.width * a.height));
    }
    expect(compared).toBeGreaterThanOrEqual(3);
  });
});
