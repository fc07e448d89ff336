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

/** Mean grey level of the live rectangle each recorded cell of `box` maps to; NaN where it is off screen. */
function mappedCellGreys(image: RgbaImage, box: Box, t: LayoutTransform): Float32Array {
  const cols = Math.ceil(box.width / CELL);
  const rows = Math.ceil(box.height / CELL);
  const out = new Float32Array(cols * rows);
  const at = (v: number, d: number) => Math.round(v * t.scale + d);
  for (let cy = 0; cy < rows; cy += 1) {
    for (let cx = 0; cx < cols; cx += 1) {
      const x0 = at(box.x + cx * CELL, t.dx);
      const y0 = at(box.y + cy * CELL, t.dy);
      const x1 = Math.max(x0 + 1, at(box.x + Math.min(box.width, (cx + 1) * CELL), t.dx));
      const y1 = Math.max(y0 + 1, at(box.y + Math.min(box.height, (cy + 1) * CELL), t.dy));
      const inside = x0 >= 0 && y0 >= 0 && x1 <= image.width && y1 <= image.height;
      out[cy * cols + cx] = inside ? meanGrey(image, x0, y0, x1, y1) : Number.NaN;
    }
  }
  return out;
}

function meanGrey(image: RgbaImage, x0: number, y0: number, x1: number, y1: number): number {
  let sum = 0;
  for (let y = y0; y < y1; y += 1) {
    for (let x = x0; x < x1; x += 1) {
      const o = (y * image.width + x) * 4;
      sum +=
        0.299 * (image.data[o] ?? 0) + 0.587 * (image.data[o + 1] ?? 0) + 0.114 * (image.data[o + 2] ?? 0);
    }
  }
  return sum / ((x1 - x0) * (y1 - y0));
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
 */
export function layoutProgress(
  live: RgbaImage,
  before: RgbaImage,
  after: RgbaImage,
  box: Box,
  options: ProgressOptions = {},
): LayoutProgress {
  const region = clampBox(box, before);
  const { tolerance = 40, transform = { scale: 1, dx: 0, dy: 0 } } = options;
  const now = mappedCellGreys(live, region, transform);
  const was = cellGreys(before, region);
  const will = cellGreys(after, region);
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
