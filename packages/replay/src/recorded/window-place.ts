/**
 * A target recorded in a window that now stands at another place or size (the recording keeps the
 * window under each pointer action with its frame): which live window is the recorded one, and
 * where the recorded point goes in it (pure functions), and the target verified at each such place by
 * its pixels or edges before anything is clicked there.
 */
import type { SourceWindow, WorkflowStep } from '@mime-desktop/schema';
import { type Box, clampBox, crop, edgeSimilarity, type RgbaImage, similarity } from '@mime-desktop/vision';
import {
  failed,
  inOtherColours,
  type Located,
  type Look,
  located,
  ratio,
  similarityAt,
  TRACE_SCREEN_SIMILARITY,
  TRACE_TARGET_SIMILARITY,
} from './checks.ts';
import { type Layout, mapBox, mapPoint } from './layout-map.ts';
import { boxAround } from './recorded-step.ts';
import { surroundingsAt } from './surroundings.ts';

type Point = { x: number; y: number };

/** A window as the desktop lists it. */
export interface ListedWindow {
  title: string;
  classes: readonly string[];
  box?: Box;
}

const sameClasses = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && a.every((c, k) => c === b[k]);

/**
 * The live frame of the recorded window: the window of its classes and title (the topmost, windows
 * listed top first), else the only window of its classes (a title that shows the app's state); null
 * when none or several could be it, or the window system does not say where it is.
 */
export function liveWindowOf(recorded: SourceWindow, windows: readonly ListedWindow[]): SourceWindow | null {
  if (recorded.classes.length === 0) return null;
  const ofClass = windows.filter((w) => w.box && sameClasses(w.classes, recorded.classes));
  const titled = ofClass.find((w) => w.title === recorded.title);
  const window = titled ?? (ofClass.length === 1 ? ofClass[0] : undefined);
  return window?.box ? { title: window.title, classes: [...window.classes], box: window.box } : null;
}

/** Whether two boxes are the same. */
const sameBox = (a: Box, b: Box) =>
  a.x === b.x && a.y === b.y && a.width === b.width && a.height === b.height;

/**
 * Where a point recorded in a window's frame `recorded` stands in the frame `live`, on one axis: the
 * offsets to try, best first. The same size keeps the offset from the window's start. Another size
 * keeps the distance from the edge the point was nearer (a form's fields hang from the top left, a
 * dialog's OK button from the bottom right), then the point's share of the size (a centred control),
 * then the distance from the other edge.
 */
function axisOffsets(from: number, size: number, to: number, newSize: number, at: number): number[] {
  const start = to - from;
  if (size === newSize) return [start];
  const end = to + newSize - (from + size);
  const share = Math.round(to + ((at - from) / size) * newSize - at);
  const nearStart = at - from <= from + size - at;
  return [...new Set(nearStart ? [start, share, end] : [end, share, start])];
}

/**
 * The layouts (translations: the target keeps its size, toolkits do not rescale a moved or resized
 * window's controls) that put `point`, recorded in the window framed `recorded`, into the window
 * framed `live`: best first, each to be verified where it puts the target. None when the window
 * stands where it was recorded.
 */
export function windowLayouts(recorded: Box, live: Box, point: Point): Layout[] {
  if (sameBox(recorded, live)) return [];
  const xs = axisOffsets(recorded.x, recorded.width, live.x, live.width, point.x);
  const ys = axisOffsets(recorded.y, recorded.height, live.y, live.height, point.y);
  // Both axes' best guesses first, then one axis's other guesses with the other's best, then the rest.
  const pairs = xs.flatMap((dx, i) => ys.map((dy, j) => ({ dx, dy, rank: i + j })));
  return pairs.sort((a, b) => a.rank - b.rank).map(({ dx, dy }) => ({ scale: 1, dx, dy }));
}

/**
 * The target where its window now stands (the recording kept the frame of the window under the
 * action): each place the window's move or new size gives (see windowLayouts) is verified, and of those
 * that pass, the one where the window's content (around the target) lines up best by its edges wins
 * (the earlier guess on a tie): a point shifted along a long field still looks alike, its labels do not;
 * null when the window stands where it was recorded, or the recording or the desktop does not tell
 * where. No place that is not verified is ever taken.
 */
export function atWindowPlaces(
  step: WorkflowStep,
  target: { point: Point; box: Box },
  pre: RgbaImage,
  live: RgbaImage,
  window: Box | null,
): Look<Located> | null {
  const recorded = step.source?.window?.box;
  if (!recorded || !window) return null;
  const layouts = windowLayouts(recorded, window, target.point);
  // A window where it was recorded, on a screen of another size: its place there, verified the same way.
  const otherScreen = pre.width !== live.width || pre.height !== live.height;
  if (layouts.length === 0 && otherScreen) layouts.push({ scale: 1, dx: 0, dy: 0 });
  let best: { look: Look<Located>; edges: number } | null = null;
  let miss: Look<Located> | null = null;
  for (const layout of layouts) {
    const placed = atWindowPlace(step.i, target, pre, live, { recorded, live: window }, layout);
    if (!placed.look.ok) miss ??= placed.look;
    else if (!best || placed.edges > best.edges) best = placed;
  }
  return best?.look ?? miss;
}

/**
 * Share of a target's edges that must stand where the recording has them at a window-relative place:
 * a field's thin outline on a blank window is mostly background, which grey levels find alike a blank
 * place where the field is not (another form, a guess at the wrong edge).
 */
const WINDOW_PLACE_EDGES = 0.5;

/**
 * The target at one window-relative place, verified as trace verifies its recorded place: the target's
 * pixels alike (its edges where it is in other colours: another theme), its edges where the
 * recording has them, a featureless target's surroundings alike, and the window's content alike (the
 * target's surroundings in it, for a window of another size). With how well its edges stand.
 */
function atWindowPlace(
  step_i: number,
  target: { point: Point; box: Box },
  pre: RgbaImage,
  live: RgbaImage,
  frames: { recorded: Box; live: Box },
  layout: Layout,
): { look: Look<Located>; edges: number } {
  const { recorded } = frames;
  const resized = recorded.width !== frames.live.width || recorded.height !== frames.live.height;
  const how = resized
    ? `its window is ${frames.live.width}x${frames.live.height} at (${frames.live.x}, ${frames.live.y}), recorded ${recorded.width}x${recorded.height} at (${recorded.x}, ${recorded.y}): placed by (${layout.dx}, ${layout.dy})`
    : frames.live.x === recorded.x && frames.live.y === recorded.y
      ? `its window where it was recorded, on a ${live.width}x${live.height} screen`
      : `its window moved by (${frames.live.x - recorded.x}, ${frames.live.y - recorded.y})`;
  const miss = (why: string, figure: number, threshold: number) => {
    const look = failed(step_i, 'before_step', `${why} (${how})`, figure, threshold, target.box, pre);
    return { look: { ok: false as const, failure: { ...look.failure, layout } }, edges: 0 };
  };
  const at = mapPoint(layout, target.point);
  if (!inBox(frames.live, at)) return miss('the window-relative place lies outside the window', 0, 1);
  const box = clampBox(target.box, pre);
  const byPixels = similarityAt(pre, live, box, layout);
  const edges = edgeSimilarity(pre, box, live, mapBox(layout, box));
  const otherColours = byPixels < TRACE_TARGET_SIMILARITY && inOtherColours(live, pre, box, layout);
  const figure = otherColours ? edges : byPixels;
  if (figure < TRACE_TARGET_SIMILARITY) {
    const why = otherColours
      ? `the target does not look as recorded where its window puts it (by edges: other colours; ${ratio(byPixels)} alike by pixels)`
      : 'the target does not look as recorded where its window puts it';
    return miss(why, figure, TRACE_TARGET_SIMILARITY);
  }
  if (edges < WINDOW_PLACE_EDGES) {
    return miss(
      `the target's edges are not where its window puts it (${ratio(byPixels)} alike by pixels: mostly blank)`,
      edges,
      WINDOW_PLACE_EDGES,
    );
  }
  const around = surroundingsAt(pre, live, target, layout);
  if (around && !around.ok) return miss(around.why, around.score, around.threshold);
  const content = windowContent(pre, live, target, frames, layout);
  const contentFigure = otherColours ? content.edges : content.pixels;
  if (contentFigure < TRACE_SCREEN_SIMILARITY) {
    const what = resized ? "the target's surroundings in its window" : 'its window';
    return miss(`${what} do not look as recorded`, contentFigure, TRACE_SCREEN_SIMILARITY);
  }
  const look = located(
    (p) => mapPoint(layout, p),
    layout,
    figure,
    `the target is at its place in its window (${ratio(figure)} alike${otherColours ? ' by edges' : ''}; ${how})`,
    'recorded-place',
  );
  return { look, edges: content.edges };
}

const inBox = (box: Box, p: Point) =>
  p.x >= box.x && p.y >= box.y && p.x < box.x + box.width && p.y < box.y + box.height;

/**
 * How alike the recorded window's content is where the layout puts it, by pixels and by edges: all of
 * it for a window of the same size; for another size, the target's surroundings (four times its box)
 * in the window. Only the part inside both windows and both screens counts (a smaller window clips).
 */
function windowContent(
  pre: RgbaImage,
  live: RgbaImage,
  target: { point: Point; box: Box },
  frames: { recorded: Box; live: Box },
  layout: Layout,
): { pixels: number; edges: number } {
  const { recorded } = frames;
  const resized = recorded.width !== frames.live.width || recorded.height !== frames.live.height;
  const back = (box: Box) => mapBox({ scale: 1, dx: -layout.dx, dy: -layout.dy }, box);
  const around = resized ? boxAround(target.point, target.box.width * 4, target.box.height * 4) : recorded;
  const region = [
    recorded,
    { x: 0, y: 0, width: pre.width, height: pre.height },
    back(frames.live),
    back({ x: 0, y: 0, width: live.width, height: live.height }),
  ].reduce<Box | null>((area, box) => intersect(area, box), around);
  if (!region) return { pixels: 0, edges: 0 };
  const there = mapBox(layout, region);
  return {
    pixels: similarity(crop(pre, region), crop(live, there)),
    edges: edgeSimilarity(pre, region, live, there),
  };
}

/** Where two boxes overlap; null when they do not. */
function intersect(a: Box | null, b: Box): Box | null {
  if (!a) return null;
  const x = Math.max(a.x, b.x);
  const y = Math.max(a.y, b.y);
  const width = Math.min(a.x + a.width, b.x + b.width) - x;
  const height = Math.min(a.y + a.height, b.y + b.height) - y;
  return width > 0 && height > 0 ? { x, y, width, height } : null;
}
