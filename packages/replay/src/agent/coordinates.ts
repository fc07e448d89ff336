/**
 * Units of the agent loop. The model sees one image of the whole screen (downscaled to fit a maximum
 * size, never cropped or padded) and answers on a 0..1000 grid laid over that image, as Qwen-VL
 * computer-use models do. Because the image always covers the whole screen, a grid point maps to the
 * logical screen without knowing the image size: downscaling and HiDPI (physical = logical x scale)
 * change nothing.
 */
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
