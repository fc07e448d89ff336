/**
 * The ladder that finds a step's recorded target on the live screen, rung by rung: the element by
 * its accessibility identity, the recorded pixels at their place, the recorded crop near where the
 * layout is expected, then anywhere at any scale (the first target of a subtask only). Each locator
 * answers from a frame (and the accessibility tree): found, a miss with its reason, or null when its
 * rung does not apply. Each mode says which rungs it climbs (recorded-mode.ts); the model is auto's
 * hand-over.
 */
import type { Accessibility } from '@mime-desktop/os-io';
import type { WorkflowStep } from '@mime-desktop/schema';
import {
  type Box,
  clampBox,
  crop,
  edgeBounds,
  edgeShare,
  edgeSimilarity,
  FEATURELESS_EDGES,
  findTemplate,
  isFeatureless,
  type RgbaImage,
  type TemplateMatch,
} from '@mime-desktop/vision';
import {
  AUTO_MATCH,
  checkAtRecordedPlace,
  checkWholeScreen,
  type Failure,
  failed,
  identity,
  type Located,
  type Look,
  located,
  matchThreshold,
  ratio,
  similarityAt,
  TRACE_TARGET_SIMILARITY,
} from './checks.ts';
import { ASSUMED_RECORDED, isMoved, type Layout, mapBox, mapPoint, RECORDED } from './layout-map.ts';
import { locateElement } from './locate-element.ts';
import type { LocateInput, Locator, Rung, Unanswered } from './locator.ts';
import { boxAround } from './recorded-step.ts';
import { surroundingsAt } from './surroundings.ts';
import { atWindowPlaces } from './window-place.ts';
import type { WindowPlacer } from './window-placer.ts';

export type { LocateInput, Locator, Rung } from './locator.ts';

type Point = { x: number; y: number };

/** The step's target: its point and box, or null for a step without one (typing, a key). */
function targetOf(step: WorkflowStep): { point: Point; box: Box } | null {
  const point = step.source?.point ?? null;
  const box = step.source?.box ?? null;
  return point && box ? { point, box } : null;
}

/** Rung 1: the recorded element, found once in the app's windows (a typing step's field: it has the focus). */
export function accessibilityLocator(a11y: Accessibility, placer: WindowPlacer | null = null): Rung {
  return {
    async locate({ step, layout, live }) {
      const element = step.target.element;
      if (!element) return null;
      const point = targetOf(step)?.point ?? null;
      // Where windows have no known place (GNOME), a pointer step's window is measured first.
      const placing = placer && point ? await placer.place(element, live) : null;
      if (placing?.ok === false)
        return { ok: 'unanswered', why: `its element not placed: ${placing.reason}` };
      const byElement = await locateElement(a11y, element, point, live);
      if ('missed' in byElement)
        return { ok: 'unanswered', why: `its element ${byElement.missed}`, missOnly: true };
      if (placing) {
        // The origin measured is its window's: an element the tree names in another window has no place.
        const { window } = byElement.element;
        if (window.role !== element.window.role || window.name !== element.window.name) {
          return {
            ok: 'unanswered',
            why: `its element named in another window, the ${window.role} '${window.name}'`,
          };
        }
        byElement.reason += `; ${placing.reason}`;
      }
      const found = byElement.layout ?? layout ?? RECORDED;
      return located(byElement.map, found, 1, byElement.reason, 'accessibility', byElement.element);
    },
  };
}

/**
 * Share of a target's edges that must stand where the recording has them (within a pixel) for auto to
 * take it at its expected place: a label gone from a blank place keeps none; a hover or a caret moves few.
 */
const PLACE_EDGES = 0.5;

/**
 * Trace, rung 2: the target as recorded, where it was recorded, on a screen alike the recording; where
 * its window now stands elsewhere or at another size (or on another screen), at its window-relative
 * place (see atWindowPlaces).
 */
export const tracePlaceLocator: Locator = {
  async locate({ step, pre, live, window }) {
    const target = targetOf(step);
    if (!target) return null;
    const inWindow = atWindowPlaces(step, target, pre, live, window ?? null);
    if (inWindow?.ok) return inWindow;
    if (pre.width !== live.width || pre.height !== live.height)
      return inWindow ?? otherScreen(step.i, pre, live);
    const found = checkAtRecordedPlace(step.i, pre, live, target.box);
    const around = found.ok ? surroundingsAt(pre, live, target, RECORDED) : null;
    if (!around || around.ok) return found.ok ? found : (inWindow ?? found);
    return failed(step.i, 'before_step', around.why, around.score, around.threshold, target.box, pre);
  },
};

/**
 * Auto, rung 2: the target at its expected place (recorded, or moved as the subtask found the layout,
 * or, for a subtask's first target, where its window now stands: see atWindowPlaces).
 * A featureless target (an empty field) matches any blank place: its surroundings must match too.
 * A subtask's first target alike at its recorded place gives the recorded layout as assumed, not
 * measured: a field's inside drawn at another size covers its recorded place too.
 */
export const autoPlaceLocator: Locator = {
  async locate({ step, pre, live, layout, window }) {
    const target = targetOf(step);
    if (!target) return null;
    // A subtask's first target, in a window that moved or changed size: where the window puts it.
    const inWindow = layout === null ? atWindowPlaces(step, target, pre, live, window ?? null) : null;
    if (inWindow?.ok) return inWindow;
    if (pre.width !== live.width || pre.height !== live.height) return null;
    const expected = layout ?? ASSUMED_RECORDED;
    const atPlace = similarityAt(pre, live, target.box, expected);
    if (atPlace < TRACE_TARGET_SIMILARITY) return null;
    const around = surroundingsAt(pre, live, target, expected);
    if (around && !around.ok) return null;
    // A target with edges (a thin label, an icon) is mostly its background: grey levels find it
    // alike a blank place where it is gone. Its edges must be there too, or a later rung looks.
    if (!around && edgeSimilarity(pre, target.box, live, mapBox(expected, target.box)) < PLACE_EDGES)
      return null;
    const moved = isMoved(expected);
    const by = around ? ', by its surroundings: the target is featureless' : '';
    const reason = moved
      ? `target where the layout was found, moved by (${expected.dx}, ${expected.dy}) (${ratio(atPlace)} alike${by})`
      : `target found where it was recorded (${ratio(atPlace)} alike${by})`;
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
  features: 'grey' | 'edges',
) {
  const layout = layoutOf(match, wide);
  const moved = isMoved(layout);
  const by = { dx: match.box.x - wide.x, dy: match.box.y - wide.y };
  const alike = `${ratio(match.score)} alike${features === 'edges' ? ' by its edges' : ''}`;
  const reason = moved
    ? `target re-found ${where} (${alike}), moved by (${by.dx}, ${by.dy})${match.scale === 1 ? '' : ` at ${match.scale}x size`}`
    : `target found where it was recorded (${alike})`;
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

/** What template matching correlates, in order: grey levels, then (another theme) edges. */
const FEATURES = ['grey', 'edges'] as const;

/**
 * How much of the recorded frame around a target a template holds, in target sizes: twice its box,
 * or (a featureless target) as much as its surroundings need to hold edges; null when none do.
 */
function templateContext(pre: RgbaImage, point: Point, box: Box): number | null {
  for (const k of [2, 4, 8, 16]) {
    if (!isFeatureless(pre, clampBox(boxAround(point, box.width * k, box.height * k), pre))) return k;
  }
  return null;
}

/** A template of a target: the recorded crop `wide` (`k` target sizes around its point) and its pixels. */
interface Template {
  k: number;
  wide: Box;
  image: RgbaImage;
}

/**
 * The templates a target is searched by, in order: its crop with context (see templateContext), then,
 * where the target has edges of its own, its box alone. Context ties a target to what stands around it
 * at the recording's size; an app drawn at another size (Tk scaling) keeps some of it (its window's
 * frame, paddings in pixels) and scales the rest, so only the target alone still matches there.
 */
function templatesOf(pre: RgbaImage, point: Point, box: Box, k: number): Template[] {
  const context = clampBox(boxAround(point, box.width * k, box.height * k), pre);
  // A featureless target's wide surroundings, cut to where they hold something (a window's frame,
  // not the blank page and background around it), so they still fit a screen where the app moved.
  const wide = k > 2 ? (edgeBounds(pre, context) ?? context) : context;
  const templates = [{ k, wide, image: crop(pre, wide) }];
  const own = clampBox(boxAround(point, box.width, box.height), pre);
  if (!isFeatureless(pre, own)) templates.push({ k: 1, wide: own, image: crop(pre, own) });
  return templates;
}

/** Whether a match puts the recorded point inside the live window (where the desktop tells where it is). */
function inWindow(match: TemplateMatch, wide: Box, point: Point, window: Box | null | undefined): boolean {
  if (!window) return true;
  const at = mapPoint(layoutOf(match, wide), point);
  return (
    at.x >= window.x && at.y >= window.y && at.x < window.x + window.width && at.y < window.y + window.height
  );
}

/** A match, by what it correlated, and whether it was taken. */
interface Matched {
  match: TemplateMatch;
  features: (typeof FEATURES)[number];
  taken: boolean;
}

/** The first match (grey levels, then edges) `take` accepts, else the best scored; null when none fits the screen. */
async function firstMatch(
  live: RgbaImage,
  template: RgbaImage,
  within: Box | undefined,
  take: (match: TemplateMatch, threshold: number) => boolean,
): Promise<Matched | null> {
  let best: Matched | null = null;
  for (const features of FEATURES) {
    const match = await findTemplate(live, template, within ? { within, features } : { features });
    if (!match) continue;
    if (take(match, matchThreshold(features))) return { match, features, taken: true };
    if (!best || match.score > best.match.score) best = { match, features, taken: false };
  }
  return best;
}

/**
 * Auto, rungs 3 and 4: the recorded crop (with context, then the target's box alone: see templatesOf)
 * near where the layout is expected, then, for the first target of a subtask (or one after a layout
 * only assumed at the recorded place), anywhere on the screen at any scale where it is unique and in
 * its window where the desktop tells where that is (re-grounding an assumed layout). Each search correlates grey levels first, then edges
 * (which a dark theme keeps); a featureless target is searched with enough surroundings to hold
 * edges, never by its blank pixels alone. A miss reports the figure that failed, below its threshold.
 */
export const templateLocator: Locator = {
  async locate({ step, pre, live, layout, window }) {
    const target = targetOf(step);
    if (!target) return null;
    const { point, box } = target;
    const expected = layout ?? RECORDED;
    const fail = (why: string, figure: number, threshold: number) =>
      failed(step.i, 'before_step', why, figure, threshold, box, pre);
    const k = templateContext(pre, point, box);
    if (k === null) {
      const all = clampBox(boxAround(point, box.width * 16, box.height * 16), pre);
      return fail(
        'the recorded target and its surroundings have no edges to find them by',
        edgeShare(pre, all),
        FEATURELESS_EDGES,
      );
    }
    const templates = templatesOf(pre, point, box, k);
    let nearMiss: { template: Template; matched: Matched | null } | null = null;
    for (const template of templates) {
      const { wide } = template;
      const nearby = await firstMatch(
        live,
        template.image,
        near(point, box, expected, live, template.k),
        (m, threshold) => m.score >= threshold && consistent(m, wide, expected, point),
      );
      if (nearby?.taken) {
        const where = 'near where the layout was expected';
        return foundAt(nearby.match, wide, where, 'template-near', nearby.features);
      }
      nearMiss ??= { template, matched: nearby };
    }
    const missed =
      layout !== null && nearMiss
        ? nearMissOf(nearMiss.matched, nearMiss.template.wide, expected, point)
        : null;
    // Only a layout assumed at a first target's recorded place may be re-grounded anywhere.
    if (missed && !layout?.assumed) return fail(missed.why, missed.figure, missed.threshold);
    const assumed = layout?.assumed === true;
    let best: { template: Template; matched: Matched } | null = null;
    for (const template of templates) {
      const anywhere = await firstMatch(
        live,
        template.image,
        undefined,
        (m, threshold) =>
          m.score >= threshold &&
          m.margin >= AUTO_MATCH.margin &&
          // Where the desktop tells where the target's window stands, a place outside it is not the
          // target (the target's box alone, without its context, looks like a control of any window).
          inWindow(m, template.wide, point, window),
      );
      if (anywhere?.taken) {
        const where = assumed
          ? "unique on the screen, not near the layout assumed at the subtask's first target's recorded place"
          : 'unique on the screen';
        return foundAt(anywhere.match, template.wide, where, 'template-anywhere', anywhere.features);
      }
      best ??= anywhere && { template, matched: anywhere };
    }
    const before = missed ? `${missed.why}, nor anywhere else: ` : '';
    if (!best) return fail(`${before}the recorded target is larger than the screen`, 0, 1);
    const { match, features } = best.matched;
    return match.score < matchThreshold(features)
      ? fail(
          `${before}the recorded target was not found with confidence (best ${ratio(match.score)} alike)`,
          match.score,
          matchThreshold(features),
        )
      : match.margin < AUTO_MATCH.margin
        ? fail(
            `${before}the recorded target was not found with confidence: another place looks the same (best ${ratio(match.score)}, only ${ratio(match.margin)} ahead of the next place)`,
            match.margin,
            AUTO_MATCH.margin,
          )
        : fail(`${before}the only place that looks like the recorded target lies outside its window`, 0, 1);
  },
};

/** Why a target was not taken near the expected layout, with the figure that failed and its threshold. */
function nearMissOf(
  matched: Matched | null,
  wide: Box,
  expected: Layout,
  point: Point,
): { why: string; figure: number; threshold: number } {
  if (!matched) return { why: 'the recorded target is larger than the screen', figure: 0, threshold: 1 };
  const { match } = matched;
  const needed = matchThreshold(matched.features);
  const at = JSON.stringify(mapPoint(layoutOf(match, wide), point));
  const want = JSON.stringify(mapPoint(expected, point));
  return match.score < needed
    ? {
        why: `the recorded target was not found near where the previous step found the layout (best ${ratio(match.score)} alike, at ${at}, expected ${want})`,
        figure: match.score,
        threshold: needed,
      }
    : {
        why: `the recorded target was found at ${at}, not near where the previous step found the layout (${want}): a window does not jump within a subtask`,
        figure: 0,
        threshold: 1,
      };
}

/**
 * A step without a target (typing, a key): once a step found the layout moved or on another screen
 * (in trace too: the element by its identity), the check after the action decides, where the layout
 * now is; else the screen as a whole must be alike the recording, and the layout stays as found.
 */
export const screenLocator: Locator = {
  async locate({ step, pre, live, layout }) {
    if (targetOf(step)) return null;
    const otherSize = pre.width !== live.width || pre.height !== live.height;
    if (layout !== null && otherSize) {
      return located(identity, layout, null, 'the layout was found on this screen: checked after');
    }
    if (layout && isMoved(layout)) {
      return located(identity, layout, null, 'the layout was found moved: checked after');
    }
    if (otherSize) return otherScreen(step.i, pre, live);
    // The screen alike as a whole measures no layout: the one the subtask found (assumed or not) stays.
    const whole = checkWholeScreen(step.i, pre, live);
    return whole.ok && layout ? { ...whole, value: { ...whole.value, layout } } : whole;
  },
};

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

/** A miss with a later rung's reason added (its figure stays the first miss's). */
function alsoMissed(first: Failure, later: Failure): Failure {
  return { ...first, reason: `${first.reason}; ${later.reason}` };
}

/**
 * Climbs the ladder: the first rung that finds the target wins; when none does, the first miss says
 * why, with its figure (the pixels compared), and a later rung's miss adds its reason (the target's
 * words not read on the screen).
 */
export async function locate(locators: readonly Rung[], input: LocateInput): Promise<Look<Located>> {
  let miss: Failure | null = null;
  const unanswered: Unanswered[] = [];
  for (const locator of locators) {
    const result = await locator.locate(input);
    if (result?.ok === 'unanswered') unanswered.push(result);
    else if (result?.ok)
      return withUnanswered(
        result,
        unanswered.filter((u) => !u.missOnly),
      );
    else if (result) miss = miss === null ? result.failure : alsoMissed(miss, result.failure);
  }
  return withUnanswered(
    miss ? { ok: false, failure: miss } : otherScreen(input.step.i, input.pre, input.live),
    unanswered,
  );
}

/** The look with why earlier rungs could not look said after its reason. */
function withUnanswered(look: Look<Located>, unanswered: readonly Unanswered[]): Look<Located> {
  if (unanswered.length === 0) return look;
  const also = ` (${unanswered.map((u) => u.why).join('; ')})`;
  return look.ok
    ? { ...look, value: { ...look.value, reason: look.value.reason + also } }
    : { ok: false, failure: { ...look.failure, reason: look.failure.reason + also } };
}
