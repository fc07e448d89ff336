import { describe, expect, it } from 'vitest';
import { withoutCarets } from '../src/caret.ts';
import type { Box, RgbaImage } from '../src/image.ts';

/** A white 40x30 image with black boxes drawn. */
function drawn(boxes: readonly Box[]): RgbaImage {
  const width = 40;
  const height = 30;
  const data = new Uint8Array(width * height * 4).fill(255);
  for (const b of boxes)
    for (let y = b.y; y < b.y + b.height; y += 1)
      for (let x = b.x; x < b.x + b.width; x += 1) data.fill(0, (y * width + x) * 4, (y * width + x) * 4 + 3);
  return { width, height, data };
}

const inked = (image: RgbaImage, x: number, y: number) =>
  (image.data[(y * image.width + x) * 4] ?? 255) < 128;
const whole = { x: 0, y: 0, width: 40, height: 30 };

describe('withoutCarets', () => {
  it('paints over a thin stroke as tall as the line, glued to a glyph, and keeps the glyph', () => {
    // A glyph 6 px wide and 8 tall (x 10-15), a 1 px caret 16 tall right after it (x 16).
    const image = drawn([
      { x: 10, y: 10, width: 6, height: 8 },
      { x: 16, y: 6, width: 1, height: 16 },
    ]);
    const out = withoutCarets(image, whole, 12);
    if (!out) throw new Error('no caret found');
    expect([6, 12, 21].map((y) => inked(out, 16, y))).toEqual([false, false, false]);
    expect(inked(out, 15, 12)).toBe(true);
    expect(inked(image, 16, 12)).toBe(true); // the image itself is left as it was
  });

  it('keeps strokes shorter than a caret (a glyph stem) and wider ones (a bar); finds nothing then', () => {
    const stems = drawn([
      { x: 10, y: 8, width: 1, height: 10 },
      { x: 20, y: 4, width: 6, height: 20 },
    ]);
    expect(withoutCarets(stems, whole, 12)).toBeNull();
  });

  it('takes a 2 px caret whole', () => {
    const out = withoutCarets(drawn([{ x: 20, y: 5, width: 2, height: 18 }]), whole, 12);
    expect(out && [inked(out, 20, 10), inked(out, 21, 10)]).toEqual([false, false]);
  });
});
