/**
 * Where the recorded layout stands on the live screen: live = recorded x scale + (dx, dy). Every
 * locator finds one; checks map recorded regions through it.
 */
import type { Box, LayoutTransform } from '@mime-desktop/vision';

export interface Layout extends LayoutTransform {
  /**
   * Taken, not measured: the subtask's first target looked as recorded at its recorded place, which
   * does not tell the app's size (the inside of a field drawn 1.25x as big covers its recorded place
   * too). A later target not found near it is looked for anywhere, at any size (see templateLocator).
   */
  readonly assumed?: true;
}
type Point = { x: number; y: number };

/** The layout where it was recorded. */
export const RECORDED: Layout = { scale: 1, dx: 0, dy: 0 };

/** The layout where it was recorded, assumed from a target alike at its recorded place (see Layout's `assumed`). */
export const ASSUMED_RECORDED: Layout = { scale: 1, dx: 0, dy: 0, assumed: true };

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
