/**
 * Where the recorded layout stands on the live screen: live = recorded x scale + (dx, dy). Every
 * locator finds one; checks map recorded regions through it.
 */
import type { Box, LayoutTransform } from '@mime-desktop/vision';

export type Layout = LayoutTransform;
type Point = { x: number; y: number };

/** The layout where it was recorded. */
export const RECORDED: Layout = { scale: 1, dx: 0, dy: 0 };

export const isMoved = (t: Layout) => t.scale !== 1 || t.dx !== 0 || t.dy !== 0;

/** A recorded point on the live screen. */
export const mapPoint = (t: Layout, p: Point): Point => ({
  x: Math.round(p.x * t.scale + t.dx),
  y: Math.round(p.y * t.scale + t.dy),
});

/** A recorded box on the live screen. */
export const mapBox = (t: Layout, box: Box): Box => ({
  ...mapPoint(t, box),
  width: Math.round(box.width * t.scale),
  height: Math.round(box.height * t.scale),
});
