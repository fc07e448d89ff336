import pixelmatch from 'pixelmatch';
import { type Box, clampBox, crop, type RgbaImage, rowsAlike } from './image.ts';

/** How many rows away pixelmatch's anti-aliasing test reads: a pixel's neighbours, and theirs. */
const AA_REACH = 2;

export interface CompareOptions {
  /** pixelmatch's colour threshold, 0..1: smaller is stricter. Default 0.1. */
  threshold?: number;
}

/**
 * How alike two images are inside a box (or whole), from 0 (every pixel differs) to 1 (the same),
 * counting the pixels pixelmatch finds different (anti-aliasing is forgiven). Both images must have
 * the same size.
 */
export function similarity(a: RgbaImage, b: RgbaImage, box?: Box, options: CompareOptions = {}): number {
  if (a.width !== b.width || a.height !== b.height) {
    throw new RangeError(`images differ in size: ${a.width}x${a.height} vs ${b.width}x${b.height}`);
  }
  const region = box ? clampBox(box, a) : { x: 0, y: 0, width: a.width, height: a.height };
  const left = box ? crop(a, region) : a;
  const right = box ? crop(b, region) : b;
  let different = 0;
  for (const band of differingBands(left, right)) {
    const from = band.y * left.width * 4;
    const to = (band.y + band.height) * left.width * 4;
    different += pixelmatch(
      left.data.subarray(from, to),
      right.data.subarray(from, to),
      undefined,
      left.width,
      band.height,
      { threshold: options.threshold ?? 0.1 },
    );
  }
  return 1 - different / (region.width * region.height);
}

/**
 * Rows pixelmatch must read: every run of rows that differ, with the two rows either side its
 * anti-aliasing test looks at (so its count is the one over the whole images), runs that touch merged.
 * Rows alike in both are compared natively: most of two screens cost next to nothing.
 */
function differingBands(a: RgbaImage, b: RgbaImage): { y: number; height: number }[] {
  const bands: { y: number; height: number }[] = [];
  const alike = rowsAlike(a, b);
  for (let y = 0; y < a.height; y += 1) {
    if (alike(y)) continue;
    const top = Math.max(0, y - AA_REACH);
    const bottom = Math.min(a.height, y + AA_REACH + 1);
    const last = bands.at(-1);
    if (last && top <= last.y + last.height) last.height = bottom - last.y;
    else bands.push({ y: top, height: bottom - top });
  }
  return bands;
}

/** The mean of a region's greys (0-255) and their standard deviation (0 for a flat area, ~8+ for text or edges). */
export function greyStats(image: RgbaImage, box: Box): { mean: number; deviation: number } {
  const area = clampBox(box, image);
  let sum = 0;
  let squares = 0;
  let n = 0;
  for (let y = area.y; y < area.y + area.height; y += 1) {
    for (let x = area.x; x < area.x + area.width; x += 1) {
      const i = (y * image.width + x) * 4;
      const grey =
        (image.data[i] ?? 0) * 0.3 + (image.data[i + 1] ?? 0) * 0.59 + (image.data[i + 2] ?? 0) * 0.11;
      sum += grey;
      squares += grey * grey;
      n += 1;
    }
  }
  if (n === 0) return { mean: 0, deviation: 0 };
  const mean = sum / n;
  return { mean, deviation: Math.sqrt(Math.max(0, squares / n - mean * mean)) };
}
