/**
 * The element a target re-found by its pixels stands on, as the accessibility tree names it at its
 * point: kept in the run's step event so a heal writes it into the step.
 */
import { setTimeout as delay } from 'node:timers/promises';
import type { Accessibility } from '@mime-desktop/os-io';
import {
  type ElementIdentity,
  identityOf,
  isContainer,
  isWholeWindow,
  type RunAction,
  type StepExecution,
} from '@mime-desktop/schema';
import type { Located } from './checks.ts';

/** Lookups of a re-found target's element that may name a container before it names the target. */
const ELEMENT_ASKS = 3;
const ELEMENT_ASK_PAUSE_MS = 250;

/**
 * The target's element on the live screen: as the ladder found it, or (a target re-found by its
 * pixels) the element the tree names at its point. A container (a page's landmark) is what a browser
 * names while it still builds the tree there: asked again a moment later, and kept only once it names
 * a target (no element beats a wrong one).
 */
export async function regroundedElement(
  found: Located,
  executed_by: StepExecution,
  action: RunAction | null,
  a11y: () => Promise<Accessibility | null>,
  signal: AbortSignal,
): Promise<ElementIdentity | undefined> {
  if (found.element || executed_by !== 'regrounded' || !action || !('point' in action) || !action.point) {
    return found.element;
  }
  const tree = await a11y();
  const point = action.point;
  for (let asked = 0; tree && asked < ELEMENT_ASKS; asked += 1) {
    if (asked > 0) await delay(ELEMENT_ASK_PAUSE_MS, undefined, { signal });
    const element = await tree.elementAt(point).catch(() => null);
    if (!element) return undefined;
    if (!isWholeWindow(element) && !isContainer(element)) return identityOf(element);
  }
  return undefined;
}
