/**
 * Comparing screens by layout rather than by pixel: where two frames differ, and how alike two regions
 * are once text is blurred away. A replay types new param values and lists other search results, so
 * the pixels of text differ from the recording; whether a dialog opened, a field filled or a list
 * appeared shows in the layout.
 */
import { type Box, clampBox, pixelWords, type RgbaImage, rowsAlike } from './image.ts';

/** Size of the square cells a layout is reduced to, pixels. */
const CELL = 4;

export interface ChangedRegionOptions {
  /** Largest per-channel difference (0-255) that still counts as the same pixel. Default 24. */
  tolerance?: number;
  /** Changes thinner than this (a blinking caret, a 1 px focus line) are ignored, pixels. Default 4. */
  minThickness?: number;
}

function pixelDiffers(a: RgbaImage, b: RgbaImage, offset: number, tolerance: number): boolean {
  return (
    Math.abs((a.data[offset] ?? 0) - (b.data[offset] ?? 0)) > tolerance ||
    Math.abs((a.data[offset + 1] ?? 0) - (b.data[offset + 1] ?? 0)) > tolerance ||
    Math.abs((a.data[offset + 2] ?? 0) - (b.data[offset + 2] ?? 0)) > tolerance
  );
}

/**
 * Per CELL x CELL cell, the bounds [x0, y0, x1, y1] of its changed pixels (-1: none). Identical
 * rows, most of two screens, are passed over natively, identical pixels with one 32-bit comparison.
 */
function changedCells(
  a: RgbaImage,
  b: RgbaImage,
  tolerance: number,
): { cells: Int32Array; cols: number; rows: number } {
  const { width, height } = a;
  const cols = Math.ceil(width / CELL);
  const rows = Math.ceil(height / CELL);
  const cells = new Int32Array(cols * rows * 4).fill(-1);
  const wa = pixelWords(a.data);
  const wb = pixelWords(b.data);
  const alike = rowsAlike(a, b);
  for (let y = 0; y < height; y += 1) {
    // Most rows are the same in both frames: passed over natively.
    if (alike(y)) continue;
    const cellRow = Math.floor(y / CELL) * cols;
    for (let x = 0; x < width; x += 1) {
      const pixel = y * width + x;
      if (wa !== null && wb !== null && wa[pixel] === wb[pixel]) continue;
      if (!pixelDiffers(a, b, pixel * 4, tolerance)) continue;
      const at = (cellRow + Math.floor(x / CELL)) * 4;
      if (cells[at] === -1) {
        cells[at] = x;
        cells[at + 1] = y;
        cells[at + 2] = x;
        cells[at + 3] = y;
        continue;
      }
      // Rows come in order: the first is the top, the latest the bottom.
      if (x < (cells[at] as number)) cells[at] = x;
      if (x > (cells[at + 2] as number)) cells[at + 2] = x;
      cells[at + 3] = y;
    }
  }
  return { cells, cols, rows };
}

interface Bounds {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

/** The pixel bounds of the group of changed cells connected to `start`; marks them seen. */
function groupBounds(
  grid: { cells: Int32Array; cols: number; rows: number },
  start: number,
  seen: Uint8Array,
): Bounds {
  const { cells, cols, rows } = grid;
  const bounds = { x0: Number.MAX_SAFE_INTEGER, y0: Number.MAX_SAFE_INTEGER, x1: -1, y1: -1 };
  const stack = [start];
  seen[start] = 1;
  while (stack.length > 0) {
    const cell = stack.pop() as number;
    bounds.x0 = Math.min(bounds.x0, cells[cell * 4] as number);
    bounds.y0 = Math.min(bounds.y0, cells[cell * 4 + 1] as number);
    bounds.x1 = Math.max(bounds.x1, cells[cell * 4 + 2] as number);
    bounds.y1 = Math.max(bounds.y1, cells[cell * 4 + 3] as number);
    const cx = cell % cols;
    const cy = Math.floor(cell / cols);
    const neighbours = [
      cx > 0 ? cell - 1 : -1,
      cx < cols - 1 ? cell + 1 : -1,
      cy > 0 ? cell - cols : -1,
      cy < rows - 1 ? cell + cols : -1,
    ];
    for (const next of neighbours) {
      if (next < 0 || seen[next] || cells[next * 4] === -1) continue;
      seen[next] = 1;
      stack.push(next);
    }
  }
  return bounds;
}

/**
 * How many cells (CELL px squares of the frame's grid) changed between two frames inside `box`:
 * what an action changed where it acted, whatever changed elsewhere (a focus ring that moved to the
 * next field, a caret). Only the box is read.
 */
export function changedCellsIn(
  a: RgbaImage,
  b: RgbaImage,
  box: Box,
  options: ChangedRegionOptions = {},
): number {
  if (a.width !== b.width || a.height !== b.height) return 0;
  const tolerance = options.tolerance ?? 24;
  const area = clampBox(box, a);
  const wa = pixelWords(a.data);
  const wb = pixelWords(b.data);
  const changed = new Set<number>();
  const alike = rowsAlike(a, b);
  for (let y = area.y; y < area.y + area.height; y += 1) {
    if (alike(y)) continue;
    for (let x = area.x; x < area.x + area.width; x += 1) {
      const pixel = y * a.width + x;
      if (wa && wb && wa[pixel] === wb[pixel]) continue;
      if (pixelDiffers(a, b, pixel * 4, tolerance))
        changed.add(Math.floor(y / CELL) * a.width + Math.floor(x / CELL));
    }
  }
  return changed.size;
}

/**
 * The box around everything that differs between two frames of the same size, or null when nothing
 * does. Thin changes (a caret, a focus line) are left out, so a region is what an action really changed.
 */
export function changedRegion(a: RgbaImage, b: RgbaImage, options: ChangedRegionOptions = {}): Box | null {
  if (a.width !== b.width || a.height !== b.height) return { x: 0, y: 0, width: a.width, height: a.height };
  const { tolerance = 24, minThickness = 4 } = options;
  const grid = changedCells(a, b, tolerance);
  const seen = new Uint8Array(grid.cols * grid.rows);
  let union: Bounds | null = null;
  for (let start = 0; start < grid.cols * grid.rows; start += 1) {
    if (seen[start] || grid.cells[start * 4] === -1) continue;
    const g = groupBounds(grid, start, seen);
    if (g.x1 - g.x0 + 1 < minThickness || g.y1 - g.y0 + 1 < minThickness) continue;
    union = union
      ? {
          x0: Math.min(union.x0, g.x0),
          y0: Math.min(union.y0, g.y0),
          x1: Math.max(union.x1, g.x1),
          y1: Math.max(union.y1, g.y1),
        }
      : g;
  }
  if (!union) return null;
  return clampBox(
    { x: union.x0 - 2, y: union.y0 - 2, width: union.x1 - union.x0 + 5, height: union.y1 - union.y0 + 5 },
    a,
  );
}

/** Mean grey level of each CELL x CELL square of a region. */
function cellGreys(image: RgbaImage, box: Box): Float32Array {
  const cols = Math.ceil(box.width / CELL);
  const rows = Math.ceil(box.height / CELL);
  const sums = new Float32Array(cols * rows);
  const counts = new Uint16Array(cols * rows);
  for (let y = 0; y < box.height; y += 1) {
    for (let x = 0; x < box.width; x += 1) {
      const o = ((box.y + y) * image.width + box.x + x) * 4;
      const grey =
        0.299 * (image.data[o] ?? 0) + 0.587 * (image.data[o + 1] ?? 0) + 0.114 * (image.data[o + 2] ?? 0);
      const cell = Math.floor(y / CELL) * cols + Math.floor(x / CELL);
      sums[cell] = (sums[cell] ?? 0) + grey;
      counts[cell] = (counts[cell] ?? 0) + 1;
    }
  }
  return sums.map((sum, i) => sum / Math.max(1, counts[i] ?? 1));
}

/**
 * {@link cellGreys} of a recorded frame, kept while the frame lives: a check compares the same
 * recorded frames with every live frame it polls.
 */
const recordedGreys = new WeakMap<RgbaImage, Map<string, Float32Array>>();

function recordedCellGreys(image: RgbaImage, box: Box): Float32Array {
  let byBox = recordedGreys.get(image);
  if (!byBox) {
    byBox = new Map();
    recordedGreys.set(image, byBox);
  }
  const key = `${box.x},${box.y},${box.width},${box.height}`;
  let greys = byBox.get(key);
  if (!greys) {
    greys = cellGreys(image, box);
    byBox.set(key, greys);
  }
  return greys;
}

export interface LayoutOptions {
  /** Largest difference of a cell's mean grey level (0-255) that still counts as alike. Default 40. */
  tolerance?: number;
}

/** Where the recorded layout stands on a live screen: live = recorded x scale + (dx, dy), pixels. */
export interface LayoutTransform {
  scale: number;
  dx: number;
  dy: number;
}

export interface ProgressOptions extends LayoutOptions {
  /** Where the recorded layout stands on the live screen now. Default: where it was recorded. */
  transform?: LayoutTransform;
}

/** Where a transform puts a recorded coordinate on the live screen. */
const mapped = (v: number, scale: number, d: number) => Math.round(v * scale + d);

/**
 * Summed grey levels of an image's rectangle [x0, x1) x [y0, y1): any sub-rectangle's mean in four
 * look-ups, so a region compared at many places costs one pass over its pixels.
 */
class GreySums {
  readonly #sums: Float64Array;
  readonly #x0: number;
  readonly #y0: number;
  readonly #stride: number;

  constructor(image: RgbaImage, x0: number, y0: number, x1: number, y1: number) {
    this.#x0 = x0;
    this.#y0 = y0;
    this.#stride = x1 - x0 + 1;
    const sums = new Float64Array(this.#stride * (y1 - y0 + 1));
    const { data, width } = image;
    for (let y = y0; y < y1; y += 1) {
      let row = 0;
      const above = (y - y0) * this.#stride;
      const here = above + this.#stride;
      for (let x = x0; x < x1; x += 1) {
        const o = (y * width + x) * 4;
        row += 0.299 * (data[o] ?? 0) + 0.587 * (data[o + 1] ?? 0) + 0.114 * (data[o + 2] ?? 0);
        const k = x - x0 + 1;
        sums[here + k] = (sums[above + k] ?? 0) + row;
      }
    }
    this.#sums = sums;
  }

  /** Mean grey of [x0, x1) x [y0, y1), inside the summed rectangle. */
  mean(x0: number, y0: number, x1: number, y1: number): number {
    const s = this.#sums;
    const a = (y0 - this.#y0) * this.#stride - this.#x0;
    const b = (y1 - this.#y0) * this.#stride - this.#x0;
    const total = (s[b + x1] ?? 0) - (s[b + x0] ?? 0) - (s[a + x1] ?? 0) + (s[a + x0] ?? 0);
    return total / ((x1 - x0) * (y1 - y0));
  }
}

/** The live rectangle every transform maps `box` to, a pixel wider and taller, clamped to the image. */
function mappedBounds(image: RgbaImage, box: Box, transforms: readonly LayoutTransform[]) {
  let x0 = image.width;
  let y0 = image.height;
  let x1 = 0;
  let y1 = 0;
  for (const t of transforms) {
    x0 = Math.min(x0, mapped(box.x, t.scale, t.dx));
    y0 = Math.min(y0, mapped(box.y, t.scale, t.dy));
    x1 = Math.max(x1, mapped(box.x + box.width, t.scale, t.dx) + 1);
    y1 = Math.max(y1, mapped(box.y + box.height, t.scale, t.dy) + 1);
  }
  x0 = Math.max(0, x0);
  y0 = Math.max(0, y0);
  return {
    x0,
    y0,
    x1: Math.max(x0, Math.min(image.width, x1)),
    y1: Math.max(y0, Math.min(image.height, y1)),
  };
}

/** Mean grey level of the live rectangle each recorded cell of `box` maps to; NaN where it is off screen. */
function mappedCellGreys(
  sums: GreySums,
  bounds: ReturnType<typeof mappedBounds>,
  box: Box,
  t: LayoutTransform,
) {
  const cols = Math.ceil(box.width / CELL);
  const rows = Math.ceil(box.height / CELL);
  const out = new Float32Array(cols * rows);
  for (let cy = 0; cy < rows; cy += 1) {
    for (let cx = 0; cx < cols; cx += 1) {
      const x0 = mapped(box.x + cx * CELL, t.scale, t.dx);
      const y0 = mapped(box.y + cy * CELL, t.scale, t.dy);
      const x1 = Math.max(x0 + 1, mapped(box.x + Math.min(box.width, (cx + 1) * CELL), t.scale, t.dx));
      const y1 = Math.max(y0 + 1, mapped(box.y + Math.min(box.height, (cy + 1) * CELL), t.scale, t.dy));
      const inside = x0 >= bounds.x0 && y0 >= bounds.y0 && x1 <= bounds.x1 && y1 <= bounds.y1;
      out[cy * cols + cx] = inside ? sums.mean(x0, y0, x1, y1) : Number.NaN;
    }
  }
  return out;
}

/**
 * How alike two same-size frames are inside a box (or whole) by layout, 0..1: the share of 4x4
 * cells whose mean grey levels are close. Different words of a similar length in the same place stay
 * alike; a dialog, a list or a field that is there in one and not the other does not.
 */
export function layoutSimilarity(a: RgbaImage, b: RgbaImage, box?: Box, options: LayoutOptions = {}): number {
  if (a.width !== b.width || a.height !== b.height) {
    throw new RangeError(`images differ in size: ${a.width}x${a.height} vs ${b.width}x${b.height}`);
  }
  const region = box ? clampBox(box, a) : { x: 0, y: 0, width: a.width, height: a.height };
  if (region.width <= 0 || region.height <= 0) return 1;
  const { tolerance = 40 } = options;
  const left = cellGreys(a, region);
  const right = cellGreys(b, region);
  let alike = 0;
  for (let i = 0; i < left.length; i += 1) {
    if (Math.abs((left[i] ?? 0) - (right[i] ?? 0)) <= tolerance) alike += 1;
  }
  return left.length === 0 ? 1 : alike / left.length;
}

/** How far a live region went from the recorded before-frame towards the recorded after-frame. */
export interface LayoutProgress {
  /** Share (0..1) of the cells the recorded action changed that look like the after-frame now. */
  toAfter: number;
  /** Share (0..1) of those cells that still look like the before-frame. */
  toBefore: number;
  /** How many cells the recorded action changed. */
  cells: number;
  /**
   * Share (0..1) of the cells the action left alone (alike in both recorded frames) that look the
   * same live: how well the live region lines up with the recorded one, whatever the action did.
   */
  context: number;
}

/**
 * Compares a live frame with what the recording showed before and after an action, on the cells of
 * `box` that the action changed in the recording: a live frame where the same thing happened looks
 * like the after-frame there (new text in a field, a dialog, a list), one where nothing happened like
 * the before-frame. Other text of a similar length in the same place still counts as the change.
 * The recorded frames' cells are kept for the next call (see {@link layoutProgressAt}).
 */
export function layoutProgress(
  live: RgbaImage,
  before: RgbaImage,
  after: RgbaImage,
  box: Box,
  options: ProgressOptions = {},
): LayoutProgress {
  const { transform = { scale: 1, dx: 0, dy: 0 }, ...rest } = options;
  return layoutProgressAt(live, before, after, box, [transform], rest)[0] as LayoutProgress;
}

/**
 * {@link layoutProgress} with the recorded layout at each of several places on the live screen (a
 * layout known to a few pixels), the live region summed once for all of them. The recorded frames'
 * cells are kept for the next live frame (they must not change while in use).
 */
export function layoutProgressAt(
  live: RgbaImage,
  before: RgbaImage,
  after: RgbaImage,
  box: Box,
  transforms: readonly LayoutTransform[],
  options: LayoutOptions = {},
): LayoutProgress[] {
  const region = clampBox(box, before);
  const { tolerance = 40 } = options;
  const was = recordedCellGreys(before, region);
  const will = recordedCellGreys(after, region);
  const bounds = mappedBounds(live, region, transforms);
  const sums = new GreySums(live, bounds.x0, bounds.y0, bounds.x1, bounds.y1);
  return transforms.map((transform) =>
    progressOf(was, will, mappedCellGreys(sums, bounds, region, transform), tolerance),
  );
}

/** The progress of live cells `now` from the recorded cells `was` (before) to `will` (after). */
function progressOf(
  was: Float32Array,
  will: Float32Array,
  now: Float32Array,
  tolerance: number,
): LayoutProgress {
  let cells = 0;
  let offScreen = 0;
  let toAfter = 0;
  let toBefore = 0;
  let stable = 0;
  let stableAlike = 0;
  for (let i = 0; i < now.length; i += 1) {
    const a = was[i] ?? 0;
    const b = will[i] ?? 0;
    const n = now[i] ?? Number.NaN;
    if (Math.abs(a - b) <= tolerance) {
      if (Number.isNaN(n)) continue;
      stable += 1;
      if (Math.abs(n - a) <= tolerance) stableAlike += 1;
      continue;
    }
    if (Number.isNaN(n)) {
      offScreen += 1;
      continue;
    }
    cells += 1;
    if (Math.abs(n - b) <= tolerance) toAfter += 1;
    if (Math.abs(n - a) <= tolerance) toBefore += 1;
  }
  const context = stable === 0 ? 0 : stableAlike / stable;
  // A change that is mostly off the live screen cannot be told from none.
  if (offScreen > cells) return { toAfter: 0, toBefore: 0, cells: cells + offScreen, context };
  return cells === 0
    ? { toAfter: 1, toBefore: 1, cells, context }
    : { toAfter: toAfter / cells, toBefore: toBefore / cells, cells, context };
}
