import type { PlannedSubtask, RequiredExtract } from '../kernel/plan.ts';
import type { RevisedPlan } from './agent-tools.ts';

/**
 * Turns a replan's answer into subtasks that replace `remaining`: reference steps are looked up by
 * number among the remaining plan's steps (unknown numbers are dropped), each value still to extract
 * goes to the subtask that claims it first, and values no subtask claims go to the last one, so the
 * run cannot succeed without them; the success criteria of the replaced subtasks (Pass C) go to the
 * last one too, for the same reason. Numbers continue from `firstId`.
 */
export function revisePlan(
  revised: RevisedPlan,
  remaining: readonly PlannedSubtask[],
  pending: readonly RequiredExtract[],
  firstId: number,
): PlannedSubtask[] {
  const steps = new Map(remaining.flatMap((s) => s.steps).map((step) => [step.i, step]));
  const unclaimed = new Map(pending.map((e) => [e.variable, e]));
  const subtasks = revised.subtasks.map((subtask, k): PlannedSubtask => {
    const extracts = subtask.extracts.flatMap((name) => {
      const extract = unclaimed.get(name);
      unclaimed.delete(name);
      return extract ? [extract] : [];
    });
    return {
      subtask_i: firstId + k,
      text: subtask.text,
      dependencies: [],
      steps: subtask.reference_steps.flatMap((i) => {
        const step = steps.get(i);
        return step ? [step] : [];
      }),
      extracts,
      origin: 'replan',
    };
  });
  const last = subtasks.at(-1);
  if (last) last.extracts.push(...unclaimed.values());
  const criteria = remaining.flatMap((s) => s.criteria ?? []);
  if (last && criteria.length > 0) last.criteria = criteria;
  return subtasks;
}
