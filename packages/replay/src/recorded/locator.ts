/** What a rung of the ladder is: it finds a step's target on the live screen, or says why not. */
import type { WorkflowStep } from '@mime-desktop/schema';
import type { Box, RgbaImage } from '@mime-desktop/vision';
import type { Located, Look } from './checks.ts';
import type { Layout } from './layout-map.ts';

export interface LocateInput {
  step: WorkflowStep;
  pre: RgbaImage;
  live: RgbaImage;
  /** Where an earlier step of the subtask found the layout; null before the first. */
  layout: Layout | null;
  /**
   * The frame (logical px) of the window the step's target was recorded in, where it stands now
   * (the step's recorded window found live); null or absent when unknown.
   */
  window?: Box | null;
}

/**
 * A rung that applies to the step but could not look (the place of the target's window unknown), or
 * looked and did not find it (`missOnly`): why is said beside what a later rung finds or misses (only
 * misses for the latter), never taken for a miss of the target.
 */
export interface Unanswered {
  ok: 'unanswered';
  why: string;
  /** Said only beside a miss: the element looked for and not found where a later rung finds the target. */
  missOnly?: boolean;
}

export interface Locator<Answer = Look<Located> | null> {
  /** Found, a miss (with why), or null when this rung does not apply to the step. */
  locate(input: LocateInput): Promise<Answer>;
}

/** A rung of the ladder: a locator that may also be unanswered (the accessibility rung). */
export type Rung = Locator<Look<Located> | Unanswered | null>;
