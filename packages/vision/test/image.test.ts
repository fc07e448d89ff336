import { describe, expect, it } from 'vitest';
import { rgbaFromPixels } from '../src/image.ts';

/** Two rows of two pixels with 4 bytes of padding a row: [b, g, r, a] or [r, g, b, a] as given. */
const padded = (pixels: number[][], offset = 0) => {
  const buffer = new Uint8Array(offset + 2 * 12);
  pixels.forEach((p, k) => {
    buffer.set(p, offset + Math.floor(k / 2) * 12 + (k % 2) * 4);
  });
  return buffer.subarray(offset);
};

/** The four pixels in BGRA, alpha anything. */
const BGRA = [
  [3, 2, 1, 0],
  [6, 5, 4, 7],
  [9, 8, 7, 0],
  [12, 11, 10, 0],
];

describe('rgbaFromPixels', () => {
  const expected = [1, 2, 3, 255, 4, 5, 6, 255, 7, 8, 9, 255, 10, 11, 12, 255];

  it('swaps BGRA to RGBA, drops row padding and makes every pixel opaque', () => {
    const bgra = padded(BGRA);
    const image = rgbaFromPixels(bgra, 2, 2, { channelOrder: 'bgra', stride: 12 });
    expect([...image.data]).toEqual(expected);
  });

  it('gives the same pixels from a buffer off a word boundary (byte by byte)', () => {
    const bgra = padded(BGRA, 1);
    expect(bgra.byteOffset % 4).toBe(1);
    expect([...rgbaFromPixels(bgra, 2, 2, { channelOrder: 'bgra', stride: 12 }).data]).toEqual(expected);
  });

  it('keeps RGBA as it is but for padding and alpha', () => {
    const rgba = padded([
      [1, 2, 3, 0],
      [4, 5, 6, 9],
      [7, 8, 9, 0],
      [10, 11, 12, 0],
    ]);
    expect([...rgbaFromPixels(rgba, 2, 2, { channelOrder: 'rgba', stride: 12 }).data]).toEqual(expected);
  });
});
