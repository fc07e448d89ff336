/**
 * A text caret glued to the last glyph of a focused field's value ("Rome|") makes OCR read another
 * word ("Rome]") or drop it as unsure. A caret is a thin vertical stroke as tall as the whole line
 * (ascent and descent), taller than any glyph's stem: such strokes are painted over with what stands
 * beside them, so OCR reads the text alone. Only strokes at most MAX_WIDTH px wide with little ink on
 * either side over their length go: a glyph's stem has its bowl or serif beside it, and text that
 * says another value still says it without them.
 */
import type { Box, RgbaImage } from './image.ts';

/** The widest stroke taken for a caret, px (Tk draws 2 px; 3 at a bigger scale). */
const MAX_WIDTH = 3;
/** How far a pixel's grey is from the background's to count as ink. */
const INK = 48;
/** The largest share of a stroke's rows where a column beside it may hold ink (a glued glyph's end). */
const BESIDE = 0.6;

const greyAt = (image: RgbaImage, x: number, y: number): number => {
  const i = (y * image.width + x) * 4;
  return ((image.data[i] ?? 0) + (image.data[i + 1] ?? 0) + (image.data[i + 2] ?? 0)) / 3;
};

/** The grey most pixels of the box have (in steps of 8): its background. */
function backgroundGrey(image: RgbaImage, box: Box): number {
  const counts = new Map<number, number>();
  for (let y = box.y; y < box.y + box.height; y += 1)
    for (let x = box.x; x < box.x + box.width; x += 1) {
      const g = Math.round(greyAt(image, x, y) / 8);
      counts.set(g, (counts.get(g) ?? 0) + 1);
    }
  let best = 0;
  let most = -1;
  for (const [g, n] of counts) if (n > most) [best, most] = [g, n];
  return best * 8;
}

/**
 * A copy of `image` without the caret-like strokes inside `box` (vertical runs of ink at least
 * `minHeight` px tall, at most 3 px wide); null when there is none.
 */
export function withoutCarets(image: RgbaImage, box: Box, minHeight: number): RgbaImage | null {
  const x0 = Math.max(0, Math.round(box.x));
  const y0 = Math.max(0, Math.round(box.y));
  const x1 = Math.min(image.width, Math.round(box.x + box.width));
  const y1 = Math.min(image.height, Math.round(box.y + box.height));
  if (x1 - x0 < 3 || y1 - y0 < minHeight) return null;
  const bg = backgroundGrey(image, { x: x0, y: y0, width: x1 - x0, height: y1 - y0 });
  const ink = (x: number, y: number) => x >= x0 && x < x1 && Math.abs(greyAt(image, x, y) - bg) > INK;
  const strokes: Box[] = [];
  for (let x = x0; x < x1; x += 1) {
    for (const [top, bottom] of inkRuns(ink, x, y0, y1)) {
      const stroke = bottom - top >= minHeight ? strokeAt(ink, x, top, bottom) : null;
      if (stroke) strokes.push(stroke);
    }
  }
  return strokes.length === 0 ? null : paintOver(image, strokes, ink, bg);
}

/** The runs of ink down column `x` from row `y0` to `y1`, as [top, bottom) pairs. */
function inkRuns(
  ink: (x: number, y: number) => boolean,
  x: number,
  y0: number,
  y1: number,
): [number, number][] {
  const runs: [number, number][] = [];
  let top = -1;
  for (let y = y0; y <= y1; y += 1) {
    const inked = y < y1 && ink(x, y);
    if (inked && top < 0) top = y;
    if (!inked && top >= 0) {
      runs.push([top, y]);
      top = -1;
    }
  }
  return runs;
}

/** A copy of `image` with each stroke painted with the pixel beside it that is no ink (the field's inside), else the background. */
function paintOver(
  image: RgbaImage,
  strokes: readonly Box[],
  ink: (x: number, y: number) => boolean,
  bg: number,
): RgbaImage {
  const data = new Uint8Array(image.data);
  for (const s of strokes) {
    for (let y = s.y; y < s.y + s.height; y += 1) {
      const side = [s.x + s.width, s.x - 1].find((x) => x >= 0 && x < image.width && !ink(x, y));
      const from = side === undefined ? null : (y * image.width + side) * 4;
      for (let x = s.x; x < s.x + s.width; x += 1) {
        const i = (y * image.width + x) * 4;
        if (from === null) data.fill(bg, i, i + 3);
        else data.copyWithin(i, from, from + 3);
      }
    }
  }
  return { width: image.width, height: image.height, data };
}

/**
 * The stroke whose leftmost column is `x` over rows `top` to `bottom`: its width (the columns right
 * of it inked over most of those rows), or null when it is wider than a caret or has much ink beside it.
 */
function strokeAt(
  ink: (x: number, y: number) => boolean,
  x: number,
  top: number,
  bottom: number,
): Box | null {
  const share = (column: number) => {
    let n = 0;
    for (let y = top; y < bottom; y += 1) if (ink(column, y)) n += 1;
    return n / (bottom - top);
  };
  if (share(x - 1) > BESIDE) return null; // the right half of a wider stroke, or no stroke's edge
  let width = 1;
  while (width <= MAX_WIDTH && share(x + width) > 0.9) width += 1;
  if (width > MAX_WIDTH || share(x + width) > BESIDE) return null;
  return { x, y: top, width, height: bottom - top };
}
