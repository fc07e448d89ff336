/**
 * Units of the agent loop. The model sees one image of the whole screen (downscaled to fit a maximum
 * size, never cropped or padded) and answers in the convention its model was trained on: a 0..1000
 * grid laid over that image (Qwen3-VL, UI-TARS-1.0; the default), pixels of the image it was sent
 * (Qwen2.5-VL, UI-TARS-1.5), or fractions 0..1. Because the image always covers the whole screen, a
 * point maps to the logical screen through its fraction of the image: downscaling and HiDPI
 * (physical = logical x scale) change nothing.
 */
import type { CoordinateConvention } from '@mime-desktop/model';
import type { LogicalPoint, LogicalSize } from '@mime-desktop/os-io';

/** The largest grid value: (0, 0) is the image's top-left corner, (1000, 1000) its bottom-right. */
export const GRID_MAX = 1000;

/** A point on the 0..1000 grid of the image sent to the model. */
export interface GridPoint {
  x: number;
  y: number;
}

/** A size in pixels of an image. */
export interface ImageSize {
  width: number;
  height: number;
}

function gridAxisToLogical(value: number, size: number): number {
  const position = Math.floor((value * size) / GRID_MAX);
  return Math.min(size - 1, Math.max(0, position));
}

/**
 * The logical pixel under a grid point: the pixel that holds the position `value / 1000` of the
 * screen's width (height), clamped to the screen (1000 is the last pixel).
 */
export function gridToLogical(point: GridPoint, screen: LogicalSize): LogicalPoint {
  return { x: gridAxisToLogical(point.x, screen.width), y: gridAxisToLogical(point.y, screen.height) };
}

/** The grid point of a logical pixel's center, rounded to whole grid units. */
export function logicalToGrid(point: LogicalPoint, screen: LogicalSize): GridPoint {
  const axis = (value: number, size: number) =>
    Math.min(GRID_MAX, Math.max(0, Math.round(((value + 0.5) * GRID_MAX) / size)));
  return { x: axis(point.x, screen.width), y: axis(point.y, screen.height) };
}

/** The size of an image of `size` scaled down, keeping its aspect, to fit inside `max` (never scaled up). */
export function fitWithin(size: ImageSize, max: ImageSize): ImageSize {
  const scale = Math.min(1, max.width / size.width, max.height / size.height);
  return {
    width: Math.max(1, Math.round(size.width * scale)),
    height: Math.max(1, Math.round(size.height * scale)),
  };
}

/** Side multiple and pixel bounds of the Qwen2-VL/Qwen2.5-VL image processor (UI-TARS-1.5 uses it too). */
const PROCESSOR = { factor: 28, minPixels: 56 * 56, maxPixels: 16384 * 28 * 28 } as const;

/**
 * The size the Qwen2.5-VL image processor resizes an image to before the model sees it (its
 * `smart_resize`: each side rounded to a multiple of 28, the area kept within its pixel bounds):
 * 1280x800 becomes 1288x812. Models that answer in pixels (Qwen2.5-VL, UI-TARS-1.5) answer in this
 * space, so the `pixels` convention sends the screenshot at this size already.
 */
export function processorSize(size: ImageSize): ImageSize {
  const { factor, minPixels, maxPixels } = PROCESSOR;
  let width = Math.max(factor, Math.round(size.width / factor) * factor);
  let height = Math.max(factor, Math.round(size.height / factor) * factor);
  if (width * height > maxPixels) {
    const beta = Math.sqrt((size.width * size.height) / maxPixels);
    width = Math.floor(size.width / beta / factor) * factor;
    height = Math.floor(size.height / beta / factor) * factor;
  } else if (width * height < minPixels) {
    const beta = Math.sqrt(minPixels / (size.width * size.height));
    width = Math.ceil((size.width * beta) / factor) * factor;
    height = Math.ceil((size.height * beta) / factor) * factor;
  }
  return { width, height };
}

/** Where the model's points live: its convention, the image it was sent, the screen acted on. */
export interface PointSpace {
  convention: CoordinateConvention;
  image: ImageSize;
  screen: LogicalSize;
}

/** The largest value of each axis in a convention. */
function axisMax(space: PointSpace): { x: number; y: number } {
  switch (space.convention) {
    case 'grid1000':
      return { x: GRID_MAX, y: GRID_MAX };
    case 'unit':
      return { x: 1, y: 1 };
    case 'pixels':
      return { x: space.image.width, y: space.image.height };
  }
}

/** How to write a point, for the tool description and the prompt. */
export function describePointSpace(space: PointSpace): string {
  switch (space.convention) {
    case 'grid1000':
      return `[x, y] on a 0..${GRID_MAX} grid over the screenshot: [0, 0] is its top-left corner and [${GRID_MAX}, ${GRID_MAX}] its bottom-right`;
    case 'unit':
      return '[x, y] as fractions of the screenshot from 0 to 1: [0, 0] is its top-left corner and [1, 1] its bottom-right';
    case 'pixels':
      return `[x, y] in pixels of the ${space.image.width}x${space.image.height} screenshot: [0, 0] is its top-left pixel`;
  }
}

/** The logical pixel under a model's `[x, y]`, or what is wrong with it (named with the value). */
export function modelPointToLogical(
  pair: readonly number[],
  space: PointSpace,
): { ok: true; point: LogicalPoint } | { ok: false; message: string } {
  const [x, y] = pair;
  if (pair.length !== 2 || !Number.isFinite(x) || !Number.isFinite(y)) {
    return {
      ok: false,
      message: `${JSON.stringify(pair)} is not a point: write ${describePointSpace(space)}`,
    };
  }
  const max = axisMax(space);
  if ((x as number) < 0 || (y as number) < 0 || (x as number) > max.x || (y as number) > max.y) {
    return {
      ok: false,
      message: `[${x}, ${y}] is outside the screenshot: write ${describePointSpace(space)}`,
    };
  }
  const fraction = { x: (x as number) / max.x, y: (y as number) / max.y };
  return {
    ok: true,
    point: gridToLogical({ x: fraction.x * GRID_MAX, y: fraction.y * GRID_MAX }, space.screen),
  };
}
