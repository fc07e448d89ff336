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

export interface Locator {
  /** Found, a miss (with why), or null when this rung does not apply to the step. */
  locate(input: LocateInput): Promise<Look<Located> | null>;
}
