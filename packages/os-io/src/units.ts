/**
 * Units of the desktop. Logical pixels are what input, hooks, recorded coordinates and saved
 * screenshots use; physical pixels are what the screen buffer holds. Physical = logical x scale
 * (scale 1 on X11; 2 on a Retina Mac).
 */

import { InvalidInputError } from './errors.ts';

/** A point in logical screen pixels, origin top-left of the primary screen. */
export interface LogicalPoint {
  x: number;
  y: number;
}

/** A size in logical screen pixels. */
export interface LogicalSize {
  width: number;
  height: number;
}

/** A size in physical pixels (the screen buffer). */
export interface PhysicalSize {
  width: number;
  height: number;
}

/** The screen in both units. */
export interface ScreenGeometry {
  logical: LogicalSize;
  physical: PhysicalSize;
  /** Physical pixels per logical pixel. */
  scale: number;
}

/** A mouse button. */
export type MouseButton = 'left' | 'right' | 'middle';

/** Which way to scroll the content: `down` brings what is below into view (wheel turned towards you). */
export type ScrollDirection = 'up' | 'down' | 'left' | 'right';

/** `point` rounded to a whole logical pixel of a `screen` this size; a point off it is {@link InvalidInputError}. */
export function screenPoint(screen: LogicalSize, point: LogicalPoint): LogicalPoint {
  const x = Math.round(point.x);
  const y = Math.round(point.y);
  const { width, height } = screen;
  if (!(Number.isFinite(x) && Number.isFinite(y) && x >= 0 && y >= 0 && x < width && y < height)) {
    throw new InvalidInputError(
      `point (${point.x}, ${point.y}) is off the screen (logical ${width}x${height}; x 0..${width - 1}, y 0..${height - 1})`,
    );
  }
  return { x, y };
}
