/**
 * The checks of trace and auto replay as pure functions of frames (and of what the accessibility
 * tree says): each returns a verdict, never touches the desktop or the run log. The step loop
 * waits for a verdict to pass; a failure carries what the report shows.
 */
import {
  type AccessibleElement,
  type ElementIdentity,
  isSecretElement,
  type LocatorRung,
  type ScreenCheck,
} from '@mime-desktop/schema';
import {
  type Box,
  changedCellsIn,
  clampBox,
  crop,
  edgeImage,
  edgeSimilarity,
  greyStats,
  layoutProgressAt,
  type RgbaImage,
  similarity,
} from '@mime-desktop/vision';
import { isMoved, type Layout, mapBox, RECORDED } from './layout-map.ts';

/** The target region must be at least this alike the recording (pixels pixelmatch finds equal). */
export const TRACE_TARGET_SIMILARITY = 0.9;
/** The whole screen must be at least this alike before a step (other text may differ with new params). */
export const TRACE_SCREEN_SIMILARITY = 0.7;
/**
 * Auto: a re-found target needs this correlation (`edgeScore` on edges, see matchThreshold); far from
 * where the layout is expected it also needs
 * this lead over the next best place; near it, the offset may differ by this much. (A featureless
 * target is matched with its surroundings, see templateContext in locators.ts.)
 */
export const AUTO_MATCH = { score: 0.8, edgeScore: 0.9, margin: 0.05, offsetTolerance: 32 } as const;

/**
 * The correlation a match needs, by what it compared: edges ignore colours, so a restyled control
 * (the demo's Play button turned into a dashed, white "Listen" one) still scores 0.82 on them where
 * the same control in a dark theme or at 1.25x scores 0.97-1.0: edges need 0.9.
 */
export const matchThreshold = (features: 'grey' | 'edges') =>
  features === 'edges' ? AUTO_MATCH.edgeScore : AUTO_MATCH.score;
/**
 * A change check passes when at least `toAfter` of the cells the recorded action changed look like the
 * recording after it, and at most `stillBefore` still look like before. Measured on the demo app with
 * 10 other song titles than the recorded one: done 0.42-1.0 after / 0.0-0.35 before; not done 0.0-0.13
 * after / 0.86-1.0 before.
 */
export const CHANGE_CHECK = { toAfter: 0.3, stillBefore: 0.6 } as const;

type Point = { x: number; y: number };

/** Where the recorded target is on the live screen. */
export interface Located {
  /** Recorded point -> live point. */
  map: (point: Point) => Point;
  layout: Layout;
  score: number;
  reason: string;
  /** The rung of the ladder that found the target; none for a step without one. */
  rung?: LocatorRung;
  /** The target's element on the live screen, when the accessibility tree named it. */
  element?: ElementIdentity;
}

/** A failed check, with what the report needs to show it. */
export interface Failure {
  check: ScreenCheck;
  step_i: number | null;
  reason: string;
  similarity: number;
  threshold: number;
  /** Region of the recorded frame compared; null for the whole screen. */
  region: Box | null;
  /** The recorded frame the live screen was compared with. */
  expected: RgbaImage;
  /** Where the compared region stands on the live screen. */
  layout: Layout;
  /** Whether auto mode could have found the target elsewhere (a step with a target, before it ran). */
  regroundable: boolean;
  /** What the step does, e.g. `left_click at (240, 120)`. */
  description: string;
  /** A check by content: how it read the app (its tree, or OCR); absent for a check by pixels. */
  read?: 'app' | 'ocr';
}

/** The outcome of one look at the screen. */
export type Look<T> = { ok: true; value: T; score: number | null } | { ok: false; failure: Failure };

export const ratio = (n: number) => `${Math.round(n * 100)}%`;

/** The identity mapping of recorded points (the target is where it was recorded). */
export const identity = (p: Point) => p;

export function located(
  map: Located['map'],
  layout: Layout,
  score: number | null,
  reason: string,
  rung?: LocatorRung,
  element?: ElementIdentity,
): Look<Located> {
  const value: Located = { map, layout, score: score ?? 1, reason };
  if (rung) value.rung = rung;
  if (element) value.element = element;
  return { ok: true, value, score };
}

export function failed(
  step_i: number | null,
  check: ScreenCheck,
  reason: string,
  value: number,
  threshold: number,
  region: Box | null,
  expected: RgbaImage,
): { ok: false; failure: Failure } {
  const regroundable = check === 'before_step' && region !== null;
  return {
    ok: false,
    failure: {
      check,
      step_i,
      reason,
      similarity: value,
      threshold,
      region,
      expected,
      layout: RECORDED,
      regroundable,
      description: '',
    },
  };
}

/** How alike a region of the recording is to where the layout puts it on the live screen (same size only). */
export function similarityAt(recorded: RgbaImage, live: RgbaImage, box: Box, layout: Layout): number {
  if (layout.scale !== 1) return 0;
  const region = clampBox(box, recorded);
  const moved = mapBox(layout, region);
  if (
    moved.x < 0 ||
    moved.y < 0 ||
    moved.x + moved.width > live.width ||
    moved.y + moved.height > live.height
  )
    return 0;
  return similarity(crop(recorded, region), crop(live, moved));
}

/** Trace's check of a step with a target: the region and the whole screen alike the recording. */
export function checkAtRecordedPlace(
  step_i: number,
  pre: RgbaImage,
  live: RgbaImage,
  box: Box,
): Look<Located> {
  const target = similarity(pre, live, box);
  if (target < TRACE_TARGET_SIMILARITY && inOtherColours(live, pre, box, RECORDED)) {
    return byEdgesAtPlace(step_i, pre, live, box, target);
  }
  if (target < TRACE_TARGET_SIMILARITY) {
    return failed(
      step_i,
      'before_step',
      'the target does not look as recorded',
      target,
      TRACE_TARGET_SIMILARITY,
      box,
      pre,
    );
  }
  const whole = similarity(pre, live);
  if (whole < TRACE_SCREEN_SIMILARITY) {
    return failed(
      step_i,
      'before_step',
      'the screen is not the one recorded',
      whole,
      TRACE_SCREEN_SIMILARITY,
      null,
      pre,
    );
  }
  return located(
    identity,
    RECORDED,
    target,
    `the screen matches the recording around the target (${ratio(target)} alike)`,
    'recorded-place',
  );
}

/**
 * Trace's check where the target's region is in other colours than recorded (another theme): pixels
 * cannot tell, the target's edges and the whole screen's must be where the recording has them.
 */
function byEdgesAtPlace(
  step_i: number,
  pre: RgbaImage,
  live: RgbaImage,
  box: Box,
  byPixels: number,
): Look<Located> {
  const target = edgeSimilarity(pre, box, live, box);
  if (target < TRACE_TARGET_SIMILARITY) {
    return failed(
      step_i,
      'before_step',
      `the target does not look as recorded (by edges: it is in other colours; ${ratio(byPixels)} alike by pixels)`,
      target,
      TRACE_TARGET_SIMILARITY,
      box,
      pre,
    );
  }
  const screen = { x: 0, y: 0, width: pre.width, height: pre.height };
  const whole = edgeSimilarity(pre, screen, live, screen);
  if (whole < TRACE_SCREEN_SIMILARITY) {
    return failed(
      step_i,
      'before_step',
      'the screen is not the one recorded (by edges: it is in other colours)',
      whole,
      TRACE_SCREEN_SIMILARITY,
      null,
      pre,
    );
  }
  return located(
    identity,
    RECORDED,
    target,
    `the target's edges are where the recording has them (${ratio(target)} alike; ${ratio(byPixels)} by pixels: other colours)`,
    'recorded-place',
  );
}

/**
 * A step without a target (typing, a key): the screen as a whole alike the recording, by pixels, or
 * (a screen in other colours: another theme) by its edges.
 */
export function checkWholeScreen(step_i: number, pre: RgbaImage, live: RgbaImage): Look<Located> {
  const whole = similarity(pre, live);
  if (whole >= TRACE_SCREEN_SIMILARITY) {
    return located(identity, RECORDED, whole, `the screen matches the recording (${ratio(whole)} alike)`);
  }
  const screen = { x: 0, y: 0, width: pre.width, height: pre.height };
  const edges = edgeSimilarity(pre, screen, live, screen);
  return edges >= TRACE_SCREEN_SIMILARITY
    ? located(
        identity,
        RECORDED,
        edges,
        `the screen matches the recording by its edges (${ratio(edges)} alike; ${ratio(whole)} by pixels: other colours)`,
      )
    : failed(
        step_i,
        'before_step',
        'the screen is not the one recorded before this step (by pixels and by edges)',
        edges,
        TRACE_SCREEN_SIMILARITY,
        null,
        pre,
      );
}

/** How far around a recorded change its unchanged surroundings are compared to line it up, pixels. */
const CONTEXT_MARGIN = 16;

/**
 * Below this share of the change's unchanged surroundings alike in grey levels, the live screen is not
 * the recorded one in its colours or place (another theme, a moved or rescaled window): grey levels
 * cannot judge the change there, edges do.
 */
const SAME_SCREEN_CONTEXT = 0.5;

/**
 * A change check's verdict: `score` is the figure that decided and `threshold` the one it was held
 * to, so a failure's figure is always below its threshold and a pass's at or above it (see
 * CHANGE_CHECK): the share of the changed cells that look like after, or (when that passed and too
 * many still look like before) the share that no longer look like before. `by` says what was
 * compared: grey levels, or edges on a screen in other colours or place than recorded.
 */
export interface ChangeVerdict {
  ok: boolean;
  score: number;
  threshold: number;
  by: 'pixels' | 'edges';
  /** What `score` counts: changed places that look as after, or that no longer look as before. */
  measure?: 'not-before';
}

/** The verdict of a progress figure: the figure that failed is the one reported. */
function changeVerdict(
  progress: { toAfter: number; toBefore: number },
  by: ChangeVerdict['by'],
): ChangeVerdict {
  if (progress.toAfter < CHANGE_CHECK.toAfter) {
    return { ok: false, score: progress.toAfter, threshold: CHANGE_CHECK.toAfter, by };
  }
  const away = 1 - progress.toBefore;
  const needed = 1 - CHANGE_CHECK.stillBefore;
  if (progress.toBefore > CHANGE_CHECK.stillBefore) {
    return { ok: false, score: away, threshold: needed, by, measure: 'not-before' };
  }
  return { ok: true, score: progress.toAfter, threshold: CHANGE_CHECK.toAfter, by };
}

/**
 * The progress at the best-lined-up of nearby positions (see checkChange), and how well its
 * surroundings line up.
 */
function bestProgress(
  live: RgbaImage,
  before: RgbaImage,
  after: RgbaImage,
  region: Box,
  layout: Layout,
): { toAfter: number; toBefore: number; context: number } {
  const nudges = isMoved(layout) ? [-6, -3, 0, 3, 6] : [0];
  const x = Math.max(0, region.x - CONTEXT_MARGIN);
  const y = Math.max(0, region.y - CONTEXT_MARGIN);
  const around = {
    x,
    y,
    width: Math.min(before.width, region.x + region.width + CONTEXT_MARGIN) - x,
    height: Math.min(before.height, region.y + region.height + CONTEXT_MARGIN) - y,
  };
  const offsets = nudges.flatMap((ny) => nudges.map((nx) => ({ nx, ny })));
  const progress = layoutProgressAt(
    live,
    before,
    after,
    around,
    offsets.map(({ nx, ny }) => ({ ...layout, dx: layout.dx + nx, dy: layout.dy + ny })),
  );
  let best = { toAfter: 0, toBefore: 1, context: Number.NEGATIVE_INFINITY, distance: 0 };
  for (const [k, { toAfter, toBefore, context }] of progress.entries()) {
    const { nx, ny } = offsets[k] ?? { nx: 0, ny: 0 };
    const distance = Math.abs(nx) + Math.abs(ny);
    if (context > best.context || (context === best.context && distance < best.distance)) {
      best = { toAfter, toBefore, context, distance };
    }
  }
  return best;
}

/**
 * Whether the live region went from the recorded before-frame to the recorded after-frame. A layout
 * found moved or resized is known to a few pixels only: nearby positions are tried too, lined up by
 * what the action left alone around and inside the change (labels, edges), and the change is judged
 * where that fits best (the nearest such position when it fits equally well). Judging the position
 * where the change leads most would judge a misaligned view, one like neither recorded frame (the
 * demo's "Now playing: nothing" at 1.1x, 88% like the before-frame where it lines up, passed 3 px off
 * before the app had played anything); judging the one most like either frame would line blank
 * background up with a blank before-frame instead of new text (a form's "Sent to" line, other names).
 *
 * On a changed screen (the layout found moved or rescaled, or surroundings that do not line up in
 * grey levels: another theme) grey levels are no verdict: the change is judged on the frames' edges
 * (see edgeImage), which a theme does not invert, as densities per cell, which a rescale keeps.
 */
export function checkChange(
  live: RgbaImage,
  before: RgbaImage,
  after: RgbaImage,
  region: Box,
  layout: Layout,
): ChangeVerdict {
  const grey = bestProgress(live, before, after, region, layout);
  if (!isMoved(layout) && grey.context >= SAME_SCREEN_CONTEXT) return changeVerdict(grey, 'pixels');
  const mapped = mapBox(layout, {
    x: region.x - CONTEXT_MARGIN * 2,
    y: region.y - CONTEXT_MARGIN * 2,
    width: region.width + CONTEXT_MARGIN * 4,
    height: region.height + CONTEXT_MARGIN * 4,
  });
  const edges = bestProgress(edgeImage(live, mapped), edgeImage(before), edgeImage(after), region, layout);
  return changeVerdict(edges, 'edges');
}

/** A failed change check's reason, saying what the figure is (and that edges were compared on a changed screen). */
export function changeReason(reason: string, verdict: ChangeVerdict): string {
  const figure =
    verdict.measure === 'not-before'
      ? 'share of the changed places no longer as before'
      : 'share of the changed places as the recording shows after';
  const by =
    verdict.by === 'edges'
      ? ', compared by edges: the screen is in other colours or place than recorded'
      : '';
  return `${reason} (${figure}${by})`;
}

/** How far apart two mean greys (0-255) may be for two screens to count as in the same colours. */
const OTHER_COLOURS_GREY = 64;

/**
 * Whether the live screen before an action shows the region the recording changed in other colours
 * (a dark theme for a light one: its mean grey is far from the recorded one), where "changed the way
 * the recording shows" cannot be told and only "changed in the same place" can. Another value in a
 * field or other rows in a list leave the colours as they were: the check stays by pixels then.
 */
export function inOtherColours(
  liveBefore: RgbaImage,
  before: RgbaImage,
  region: Box,
  layout: Layout,
): boolean {
  const recorded = greyStats(before, region).mean;
  return Math.abs(greyStats(liveBefore, mapBox(layout, region)).mean - recorded) >= OTHER_COLOURS_GREY;
}

/**
 * Whether the live screen changed since `liveBefore` where the recording's action changed it
 * (`expected`, mapped): at least 30% as many cells as the recording changed there, whatever
 * changed elsewhere (a focus ring moving on, a caret). Typing into another field changes nothing there.
 */
export function checkPlace(
  liveBefore: RgbaImage,
  live: RgbaImage,
  expected: Box,
  recordedCells: number,
): ChangeVerdict {
  const inside = changedCellsIn(liveBefore, live, expected);
  const cells = Math.max(1, recordedCells);
  const needed = Math.max(2, recordedCells * CHANGE_CHECK.toAfter);
  // The figure and its threshold are shares of the same cells: a failure's is below its threshold.
  const threshold = needed / cells;
  const ok = inside >= needed;
  const score = ok ? Math.max(threshold, Math.min(1, inside / cells)) : inside / cells;
  return { ok, score, threshold, by: 'pixels' };
}

/** What typing's content check found: the field holds the text, it does not, or content cannot tell. */
export type TypedVerdict =
  | { kind: 'holds' }
  | { kind: 'differs'; element: AccessibleElement }
  | { kind: 'unknown' };

/** Whether typing can be checked by content: not a password field, no secret still to type (`{name}`). */
export function typedTextCheckable(recorded: ElementIdentity | undefined, typed: string): boolean {
  return recorded !== undefined && !isSecretElement(recorded) && !/\{[A-Za-z_]\w*\}/u.test(typed);
}

/** What the recording says of a typed field: its text before the burst and after it. */
export interface FieldTexts {
  before: string;
  after: string;
}

/**
 * The recorded field's text before and after a burst, with this run's text put in where the
 * recording's was (`typed` for `recordedTyped`); null when the recording does not tell (no text kept,
 * or the typed text not found once in it).
 */
export function fieldTexts(
  recordedText: string | null | undefined,
  recordedTyped: string,
  typed: string,
): FieldTexts | null {
  if (typeof recordedText !== 'string' || recordedTyped === '') return null;
  const at = recordedText.indexOf(recordedTyped);
  if (at < 0 || recordedText.indexOf(recordedTyped, at + 1) >= 0) return null;
  const head = recordedText.slice(0, at);
  const tail = recordedText.slice(at + recordedTyped.length);
  return { before: head + tail, after: head + typed + tail };
}

/** Field texts compare as the user sees them: line ends and trailing blanks do not count. */
export const sameFieldText = (a: string, b: string) =>
  a.replace(/\r\n?/gu, '\n').trimEnd() === b.replace(/\r\n?/gu, '\n').trimEnd();

/**
 * After typing, by content: the focused field (as the accessibility tree reads it now) must hold
 * exactly what the recording's field held with this run's text put in (`expected`), or, where the
 * recording does not tell, contain what was typed; content cannot tell when no focused field has text.
 */
export function checkTypedText(
  focused: AccessibleElement | null,
  typed: string,
  expected: string | null,
): TypedVerdict {
  // Object replacement characters stand for words the field keeps in child objects: text cannot tell.
  if (!focused || typeof focused.text !== 'string' || focused.text.includes('\ufffc'))
    return { kind: 'unknown' };
  const holds = expected === null ? focused.text.includes(typed) : sameFieldText(focused.text, expected);
  return holds ? { kind: 'holds' } : { kind: 'differs', element: focused };
}
