/**
 * The ladder that finds a step's recorded target on the live screen, rung by rung: the element by
 * its accessibility identity, the recorded pixels at their place, the recorded crop near where the
 * layout is expected, then anywhere at any scale (the first target of a subtask only). Each locator
 * answers from a frame (and the accessibility tree): found, a miss with its reason, or null when its
 * rung does not apply. Trace climbs the first two rungs, auto all four; the model is auto's hand-over.
 */
import type { Accessibility } from '@mime-desktop/os-io';
import type { WorkflowStep } from '@mime-desktop/schema';
import {
  type Box,
  clampBox,
  crop,
  detailSimilarity,
  findTemplate,
  greyContrast,
  type RgbaImage,
  type TemplateMatch,
} from '@mime-desktop/vision';
import {
  AUTO_MATCH,
  checkAtRecordedPlace,
  checkWholeScreen,
  failed,
  identity,
  type Located,
  type Look,
  located,
  ratio,
  similarityAt,
  TRACE_TARGET_SIMILARITY,
} from './checks.ts';
import { isMoved, type Layout, mapBox, mapPoint, RECORDED } from './layout-map.ts';
import { locateElement } from './locate-element.ts';
import { boxAround } from './recorded-step.ts';

type Point = { x: number; y: number };

/** What a locator looks at: the step, its recorded PRE frame, the live frame and what the subtask found so far. */
export interface LocateInput {
  step: WorkflowStep;
  pre: RgbaImage;
  live: RgbaImage;
  /** Where an earlier step of the subtask found the layout; null before the first. */
  layout: Layout | null;
}

export interface Locator {
  /** Found, a miss (with why), or null when this rung does not apply to the step. */
  locate(input: LocateInput): Promise<Look<Located> | null>;
}

/** The step's target: its point and box, or null for a step without one (typing, a key). */
function targetOf(step: WorkflowStep): { point: Point; box: Box } | null {
  const point = step.source?.point ?? null;
  const box = step.source?.box ?? null;
  return point && box ? { point, box } : null;
}

/** Rung 1: the recorded element, found once in the app's windows (a typing step's field: it has the focus). */
export function accessibilityLocator(a11y: Accessibility): Locator {
  return {
    async locate({ step, layout }) {
      const element = step.target.element;
      if (!element) return null;
      const byElement = await locateElement(a11y, element, targetOf(step)?.point ?? null);
      if (!byElement) return null;
      const found = byElement.layout ?? layout ?? RECORDED;
      return located(byElement.map, found, 1, byElement.reason, 'accessibility', byElement.element);
    },
  };
}

/** Trace, rung 2: the target as recorded, where it was recorded, on a screen alike the recording. */
export const tracePlaceLocator: Locator = {
  async locate({ step, pre, live }) {
    const target = targetOf(step);
    if (!target) return null;
    if (pre.width !== live.width || pre.height !== live.height) return otherScreen(step.i, pre, live);
    return checkAtRecordedPlace(step.i, pre, live, target.box);
  },
};

/**
 * Auto, rung 2: the target at its expected place (recorded, or moved as the subtask found the layout).
 * A featureless target (an empty field) matches any blank place: its surroundings must match too.
 */
export const autoPlaceLocator: Locator = {
  async locate({ step, pre, live, layout }) {
    const target = targetOf(step);
    if (!target || pre.width !== live.width || pre.height !== live.height) return null;
    const expected = layout ?? RECORDED;
    const { point, box } = target;
    const atPlace = similarityAt(pre, live, box, expected);
    const featureless = greyContrast(pre, box) < AUTO_MATCH.contrast;
    const context = clampBox(boxAround(point, box.width * 4, box.height * 4), pre);
    if (
      atPlace < TRACE_TARGET_SIMILARITY ||
      (featureless &&
        detailSimilarity(pre, context, live, mapBox(expected, context)) < TRACE_TARGET_SIMILARITY)
    ) {
      return null;
    }
    const moved = isMoved(expected);
    const reason = moved
      ? `target where the layout was found, moved by (${expected.dx}, ${expected.dy}) (${ratio(atPlace)} alike)`
      : `target found where it was recorded (${ratio(atPlace)} alike)`;
    return located(
      moved ? (p) => mapPoint(expected, p) : identity,
      expected,
      atPlace,
      reason,
      'recorded-place',
    );
  },
};

/** The layout a template match found: where the recorded crop `wide` stands now, and at what size. */
function layoutOf(match: TemplateMatch, wide: Box): Layout {
  return {
    scale: match.scale,
    dx: match.box.x - wide.x * match.scale,
    dy: match.box.y - wide.y * match.scale,
  };
}

function foundAt(
  match: TemplateMatch,
  wide: Box,
  where: string,
  rung: 'template-near' | 'template-anywhere',
) {
  const layout = layoutOf(match, wide);
  const moved = isMoved(layout);
  const by = { dx: match.box.x - wide.x, dy: match.box.y - wide.y };
  const reason = moved
    ? `target re-found ${where} (${ratio(match.score)} alike), moved by (${by.dx}, ${by.dy})${match.scale === 1 ? '' : ` at ${match.scale}x size`}`
    : `target found where it was recorded (${ratio(match.score)} alike)`;
  return located(moved ? (p) => mapPoint(layout, p) : identity, layout, match.score, reason, rung);
}

/** The search window around the expected place of a target: its context and as much again around it. */
function near(point: Point, box: Box, layout: Layout, live: RgbaImage, context = 2): Box {
  const size = context * 2 * layout.scale;
  return clampBox(boxAround(mapPoint(layout, point), box.width * size, box.height * size), live);
}

/** Whether a match puts the recorded point where the expected layout does (a window does not jump within a subtask). */
function consistent(match: TemplateMatch, wide: Box, expected: Layout, point: Point): boolean {
  const found = mapPoint(layoutOf(match, wide), point);
  const want = mapPoint(expected, point);
  return (
    Math.abs(found.x - want.x) <= AUTO_MATCH.offsetTolerance &&
    Math.abs(found.y - want.y) <= AUTO_MATCH.offsetTolerance
  );
}

/**
 * Auto, rungs 3 and 4: the recorded crop (with context) near where the layout is expected, then,
 * for the first target of a subtask, anywhere on the screen at any scale where it is unique.
 */
export const templateLocator: Locator = {
  async locate({ step, pre, live, layout }) {
    const target = targetOf(step);
    if (!target) return null;
    const { point, box } = target;
    const expected = layout ?? RECORDED;
    const search = async (context: number, within?: Box) => {
      const wide = clampBox(boxAround(point, box.width * context, box.height * context), pre);
      const match = await findTemplate(live, crop(pre, wide), within ? { within } : {});
      return match ? { match, wide } : null;
    };
    let found = await search(2, near(point, box, expected, live));
    if (found && found.match.contrast < AUTO_MATCH.contrast) {
      // A flat target (an empty text area, a field with a caret): its surroundings tell where it is.
      found = await search(4, near(point, box, expected, live, 4));
    }
    if (
      found &&
      consistent(found.match, found.wide, expected, point) &&
      found.match.score >= AUTO_MATCH.score &&
      found.match.contrast >= AUTO_MATCH.contrast
    ) {
      return foundAt(found.match, found.wide, 'near where the layout was expected', 'template-near');
    }
    const atPlace =
      pre.width === live.width && pre.height === live.height ? similarityAt(pre, live, box, expected) : 0;
    const fail = (why: string) =>
      failed(step.i, 'before_step', why, atPlace, TRACE_TARGET_SIMILARITY, box, pre);
    if (layout !== null) {
      return fail(
        found
          ? `the recorded target was not found near where the previous step found the layout (best ${ratio(found.match.score)} at ${JSON.stringify(mapPoint(layoutOf(found.match, found.wide), point))}, expected ${JSON.stringify(mapPoint(expected, point))})`
          : 'the recorded target is larger than the screen',
      );
    }
    const anywhere = await search(2);
    const m = anywhere?.match;
    if (!anywhere || !m) return fail('the recorded target is larger than the screen');
    if (m.contrast < AUTO_MATCH.contrast) {
      return fail('the recorded target and its surroundings have too little detail to find');
    }
    if (m.score >= AUTO_MATCH.score && m.margin >= AUTO_MATCH.margin) {
      return foundAt(m, anywhere.wide, 'unique on the screen', 'template-anywhere');
    }
    return fail(
      `the recorded target was not found with confidence (best ${ratio(m.score)}, ${ratio(m.margin)} ahead of the next place)`,
    );
  },
};

/**
 * A step without a target (typing, a key): once a step found the layout moved or on another screen,
 * the check after the action decides; else the screen as a whole must be alike the recording.
 */
export function screenLocator(mode: 'trace' | 'auto'): Locator {
  return {
    async locate({ step, pre, live, layout }) {
      if (targetOf(step)) return null;
      const otherSize = pre.width !== live.width || pre.height !== live.height;
      if (layout !== null && otherSize) {
        return located(identity, layout, null, 'the layout was found on this screen: checked after');
      }
      if (mode === 'auto' && layout && isMoved(layout)) {
        return located(identity, layout, null, 'the layout was found moved: checked after');
      }
      if (otherSize) return otherScreen(step.i, pre, live);
      return checkWholeScreen(step.i, pre, live);
    },
  };
}

/** A screen of another size where nothing found the app's layout: both sizes named. */
function otherScreen(step_i: number, pre: RgbaImage, live: RgbaImage): Look<never> {
  return failed(
    step_i,
    'before_step',
    `the screen is ${live.width}x${live.height} and the recording ${pre.width}x${pre.height}, and nothing found the app's layout on it`,
    0,
    1,
    null,
    pre,
  );
}

/** The rungs of a mode, first to last. */
export function ladder(mode: 'trace' | 'auto', a11y: Accessibility | null): Locator[] {
  const structural = a11y ? [accessibilityLocator(a11y)] : [];
  return mode === 'trace'
    ? [...structural, tracePlaceLocator, screenLocator(mode)]
    : [...structural, autoPlaceLocator, templateLocator, screenLocator(mode)];
}

/**
 * Climbs the ladder: the first rung that finds the target wins; when none does, the last miss says
 * why (its reason is the most informative: it looked the widest).
 */
export async function locate(locators: readonly Locator[], input: LocateInput): Promise<Look<Located>> {
  let miss: Look<Located> | null = null;
  for (const locator of locators) {
    const result = await locator.locate(input);
    if (result?.ok) return result;
    if (result) miss = result;
  }
  return miss ?? otherScreen(input.step.i, input.pre, input.live);
}
