import pixelmatch from 'pixelmatch';
import { type Box, clampBox, crop, type RgbaImage } from './image.ts';

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
  const different = pixelmatch(left.data, right.data, undefined, region.width, region.height, {
    threshold: options.threshold ?? 0.1,
  });
  return 1 - different / (region.width * region.height);
}
