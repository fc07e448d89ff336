/**
 * The check by layout: the change the recording shows between two frames must appear on the live
 * screen, where the layout now is. Used after a key or typing step where content cannot tell, before
 * an extract (the value must have appeared), and for a subtask's outcome where no value is shown.
 */
import type { ScreenCheck } from '@mime-desktop/schema';
import { changedCellsIn, type RgbaImage } from '@mime-desktop/vision';
import type { At } from '../kernel/run-memory.ts';
import {
  CHANGE_CHECK,
  type ChangeVerdict,
  changeReason,
  checkChange,
  checkPlace,
  failed,
  identity,
  inOtherColours,
  located,
} from './checks.ts';
import { type Layout, mapBox, RECORDED } from './layout-map.ts';
import { type LoopParts, outcomeShots } from './loop-parts.ts';

export interface ChangeSpec {
  /** The screen before the action, where the check may ask for a change since it (see `byPlace`). */
  liveBefore: RgbaImage | null;
  /**
   * When only where the screen changed since `liveBefore` is checked (it must be where the recording
   * changed), not how: always (other text typed than recorded), or where that screen shows the
   * region in other colours than recorded (another theme). Default: never.
   */
  byPlace?: 'always' | 'in-other-colours';
  /** A subtask's outcome: the recorded frame `after` is, relative to the workflow folder. */
  recordedFrame?: string;
  check: ScreenCheck;
  step_i: number | null;
  before: RgbaImage;
  after: RgbaImage;
  layout: Layout;
  turn: At;
  reason: string;
  description: string;
}

/**
 * Waits for the recorded change to appear; null when it did (or the recording shows no visible
 * change), else why the subtask cannot go on (see Verifier.fail).
 */
export async function verifyChange(parts: LoopParts, spec: ChangeSpec): Promise<string | null> {
  const { before, after, layout, turn, liveBefore, byPlace } = spec;
  const region = parts.frames.change(before, after);
  if (!region) return null;
  let recordedCells: number | null = null;
  /** Whether the screen before the action was in other colours than recorded (asked once, on a first miss). */
  let otherColours: boolean | null = null;
  /** The verdict of the last look: its figure and threshold are the ones journaled. */
  let decided: ChangeVerdict | null = null;
  return parts.verifier.verify({
    turn,
    description: spec.description,
    layout,
    look: (live) => {
      // A layout found by a locator (not the recorded one) maps the compared region to any screen.
      const sameSize = (live.width === before.width && live.height === before.height) || layout !== RECORDED;
      const inPlace = (since: RgbaImage) => {
        recordedCells ??= changedCellsIn(before, after, region);
        return checkPlace(since, live, mapBox(layout, region), recordedCells);
      };
      let change: ChangeVerdict = !sameSize
        ? { ok: false, score: 0, threshold: CHANGE_CHECK.toAfter, by: 'pixels' }
        : liveBefore && byPlace === 'always'
          ? inPlace(liveBefore)
          : checkChange(live, before, after, region, layout);
      if (sameSize && !change.ok && liveBefore && byPlace === 'in-other-colours') {
        otherColours ??= inOtherColours(liveBefore, before, region, layout);
        if (otherColours) change = inPlace(liveBefore);
      }
      decided = change;
      return change.ok
        ? located(identity, layout, change.score, '')
        : failed(
            spec.step_i,
            spec.check,
            sameSize ? changeReason(spec.reason, change) : 'the screen size differs from the recording',
            change.score,
            change.threshold,
            region,
            after,
          );
    },
    verdict: (watched, score) => ({
      step_i: spec.step_i,
      check: spec.check,
      similarity: score ?? 1,
      threshold: decided?.threshold ?? CHANGE_CHECK.toAfter,
      region: mapBox(layout, region),
      ...(spec.recordedFrame && outcomeShots(parts.ctx, turn, watched.frame, spec.recordedFrame)),
    }),
  });
}
