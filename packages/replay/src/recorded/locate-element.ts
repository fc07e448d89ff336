/**
 * The first rung of the ladder: the recorded element found again by its accessibility identity in
 * the app's windows, right before acting. Exactly one match with a place on the screen counts; none
 * or several leave the target to the pixel rungs.
 */
import { setTimeout as delay } from 'node:timers/promises';
import type { Accessibility } from '@mime-desktop/os-io';
import {
  type AccessibleElement,
  describeElement,
  type ElementBox,
  type ElementIdentity,
  followsWindow,
  identityOf,
} from '@mime-desktop/schema';
import type { LayoutTransform } from '@mime-desktop/vision';

type Point = { x: number; y: number };

/** Asks again for the focus when another element has it, and the pause between, ms. */
const FOCUS_ASKS = 3;
const FOCUS_ASK_PAUSE_MS = 100;
/**
 * Looks again for an element the app places off the screen, and the pause between, ms: GTK 3 on sway
 * told a dialog's OK button at (1743, 1115) on a 1280x800 screen once under load (CI 14e), in the same
 * lookup that placed the dialog's fields right, and where it was in the runs before and after.
 */
const OFF_SCREEN_ASKS = 4;
const OFF_SCREEN_PAUSE_MS = 250;

export interface ElementLocated {
  /** Recorded point -> live point. */
  map: (point: Point) => Point;
  /** Where the recorded layout stands now, from the element's extents; null when only the focus was checked. */
  layout: LayoutTransform | null;
  reason: string;
  /** The element as found on the live screen. */
  element: ElementIdentity;
}

/** Why the recorded element was not found where the step can act (said when no rung finds its target). */
export interface ElementMissed {
  missed: string;
}

const placed = (box: ElementBox | null): box is ElementBox => box !== null && box.width > 0 && box.height > 0;
const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * How far apart, as a share, an element's width and height may have changed for it to count as drawn
 * at another scale rather than stretched by its window (a box a pixel taller is 3% of a field's height).
 */
const STRETCHED = 0.1;

/**
 * Where the recorded layout stands now, from the element's recorded and live extents: at the scale its
 * width changed by, except where its size follows the window (a notebook in a window made smaller is
 * smaller, the app's text is not) or it was stretched (its width changed apart from its height: a GTK 4
 * entry that fills its row, in a window 3/4 as wide, is 2/3 as wide and as tall): there only where its
 * top-left corner went.
 */
function layoutFromExtents(
  element: AccessibleElement,
  recorded: ElementBox,
  live: ElementBox,
): LayoutTransform {
  const byWidth = live.width / recorded.width;
  const byHeight = live.height / recorded.height;
  const stretched = Math.abs(byWidth - byHeight) > STRETCHED * Math.max(byWidth, byHeight);
  const scale = followsWindow(element) || stretched ? 1 : Math.round(byWidth * 1000) / 1000;
  return { scale, dx: Math.round(live.x - recorded.x * scale), dy: Math.round(live.y - recorded.y * scale) };
}

/** The recorded point inside the live element: at the same place relative to its extents, kept inside it. */
function pointInElement(point: Point, recorded: ElementBox | null, live: ElementBox): Point {
  const inside = (v: number, from: number, size: number) =>
    Math.round(Math.min(from + size - 1, Math.max(from, v)));
  if (!placed(recorded))
    return { x: Math.round(live.x + live.width / 2), y: Math.round(live.y + live.height / 2) };
  return {
    x: inside(live.x + ((point.x - recorded.x) * live.width) / recorded.width, live.x, live.width),
    y: inside(live.y + ((point.y - recorded.y) * live.height) / recorded.height, live.y, live.height),
  };
}

/**
 * A pointer step's element (`point` given): found once, on the screen (`screen`, logical px: where
 * the step would act must lie on it; an app that tells a box off the screen, as a GTK dialog on sway
 * did under load, is asked again a few times: a wrong box was a passing one). A typing step's element
 * (no point): it has the focus.
 */
export async function locateElement(
  a11y: Accessibility,
  element: AccessibleElement,
  point: Point | null,
  screen: { width: number; height: number },
): Promise<ElementLocated | ElementMissed> {
  if (point === null) return focusedElement(a11y, element);
  let result = await placedElement(a11y, element, point, screen);
  for (let asked = 0; 'offScreen' in result && asked < OFF_SCREEN_ASKS; asked += 1) {
    await delay(OFF_SCREEN_PAUSE_MS);
    result = await placedElement(a11y, element, point, screen);
  }
  return 'offScreen' in result ? { missed: result.missed } : result;
}

/** One lookup of a pointer step's element; `offScreen` where the app tells a box the step cannot act in. */
async function placedElement(
  a11y: Accessibility,
  element: AccessibleElement,
  point: Point,
  screen: { width: number; height: number },
): Promise<ElementLocated | (ElementMissed & { offScreen?: true })> {
  let all: AccessibleElement[];
  try {
    all = await a11y.find(element);
  } catch (error) {
    return { missed: `the lookup failed: ${errorText(error)}` };
  }
  const found = all.filter((e) => placed(e.extents));
  const [live] = found;
  if (found.length !== 1 || !live?.extents) {
    return {
      missed:
        found.length > 1
          ? `${found.length} elements of ${element.app} are it`
          : all.length > 0
            ? `found in ${element.app} with no place on the screen`
            : `not found in ${element.app}'s windows`,
    };
  }
  const liveBox = live.extents;
  const recorded = placed(element.extents) ? element.extents : null;
  const layout = recorded ? layoutFromExtents(element, recorded, liveBox) : null;
  const at = pointInElement(point, recorded, liveBox);
  if (at.x < 0 || at.y < 0 || at.x >= screen.width || at.y >= screen.height) {
    return {
      // The boxes say which was wrong the next time: the app's box, or the mapping of the point.
      missed: `found at (${at.x}, ${at.y}), off the ${screen.width}x${screen.height} screen (the app's box ${boxText(liveBox)}, recorded ${recorded ? boxText(recorded) : 'none'})`,
      offScreen: true,
    };
  }
  const moved = layout !== null && (layout.scale !== 1 || layout.dx !== 0 || layout.dy !== 0);
  return {
    map: (p) => pointInElement(p, recorded, liveBox),
    layout,
    element: identityOf(live),
    reason: moved
      ? `found the ${describeElement(element)} by its accessibility identity, moved by (${layout.dx}, ${layout.dy})${layout.scale === 1 ? '' : ` at ${layout.scale}x size`}`
      : `found the ${describeElement(element)} by its accessibility identity`,
  };
}

const boxText = (box: ElementBox) => `${box.width}x${box.height} at (${box.x}, ${box.y})`;

/** A typing step's element: the recorded one has the focus (asked again while another has it). */
async function focusedElement(
  a11y: Accessibility,
  element: AccessibleElement,
): Promise<ElementLocated | ElementMissed> {
  const isRecorded = (e: AccessibleElement | null): e is AccessibleElement =>
    e !== null &&
    e.role === element.role &&
    e.name === element.name &&
    (element.name !== '' || element.label === null || e.label === element.label);
  let failed: unknown = null;
  const ask = () =>
    a11y.focused().catch((error: unknown) => {
      failed = error;
      return null;
    });
  let focused = await ask();
  // Another element with the focus, right after a click that moves it: the app tells the tree a
  // moment after it draws (a busy browser), so it is asked again before the step goes on without it.
  for (let asked = 0; focused !== null && !isRecorded(focused) && asked < FOCUS_ASKS; asked += 1) {
    await delay(FOCUS_ASK_PAUSE_MS);
    focused = await ask();
  }
  if (isRecorded(focused)) {
    return {
      map: (p) => p,
      layout: null,
      reason: `the recorded ${describeElement(element)} has the focus`,
      element: identityOf(focused),
    };
  }
  return {
    missed: focused
      ? `the ${describeElement(focused)} has the focus`
      : failed
        ? `the focus not told: ${errorText(failed)}`
        : 'no element has the focus',
  };
}
