/**
 * A run's heal as the studio shows it: each change (a step found at a new place, a subtask the agent
 * redid) with the recorded steps and the run's steps side by side, accepted or rejected one by one and
 * applied by the replay's own `planHeal`/`applyHeal` (what `mime heal --apply --reject` does).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { HealChange, HealStepView } from '@mime-desktop/replay';
import { isMimeError, RUN_FILES, type Size } from '@mime-desktop/schema';
import { frameSize } from './run-steps.ts';

/**
 * A step of a change as the page shows it. A step with no place (no box, no point) is shown as its
 * whole screenshot, whose size the page needs to hold its place before the pixels come: `size` is
 * that (null for a step shown as a crop of its target, or without a screenshot).
 */
export type HealStepShown = HealStepView & { size: Size | null };

/** A change of the heal as the page shows it. */
export type HealChangeShown = Omit<HealChange, 'before' | 'after'> & {
  before: HealStepShown[];
  after: HealStepShown[];
};

/** What the page shows of a run's heal. */
export type HealReview =
  | { state: 'ready'; changes: HealChangeShown[]; diff: string }
  /** The run learned a heal that cannot be applied (the workflow changed since, an invalid result). */
  | { state: 'refused'; code: string; message: string };

/** The heal run `runDir` learned, or null when it learned none. */
export async function reviewHeal(runDir: string): Promise<HealReview | null> {
  if (!existsSync(join(runDir, RUN_FILES.heal))) return null;
  const { planHeal } = await import('@mime-desktop/replay');
  try {
    const plan = await planHeal(runDir);
    const shown = async (view: HealStepView): Promise<HealStepShown> => ({
      ...view,
      size:
        view.screenshot && !view.box && !view.point
          ? await frameSize(view.in === 'run' ? runDir : plan.workflowDir, view.screenshot)
          : null,
    });
    const changes = await Promise.all(
      plan.changes.map(async (change) => ({
        ...change,
        before: await Promise.all(change.before.map(shown)),
        after: await Promise.all(change.after.map(shown)),
      })),
    );
    return { state: 'ready', changes, diff: plan.diff };
  } catch (error) {
    if (!isMimeError(error)) throw error;
    return { state: 'refused', code: error.code, message: error.message };
  }
}

/** Applies the heal of `runDir` without the changes `reject` names; says where the previous schema is. */
export async function acceptHeal(
  runDir: string,
  reject: readonly string[],
): Promise<{ backup: string; applied: string[]; rejected: string[] }> {
  const { applyHeal, planHeal } = await import('@mime-desktop/replay');
  const plan = await planHeal(runDir, { reject });
  const { backup } = await applyHeal(plan);
  return {
    backup,
    applied: plan.changes.filter((c) => !plan.rejected.includes(c.id)).map((c) => c.id),
    rejected: plan.rejected,
  };
}
