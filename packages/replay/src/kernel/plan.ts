import type { OptimizedPlan, SubtaskOrigin, Workflow, WorkflowStep } from '@mime-desktop/schema';
import { type CriterionCheck, expectedTexts } from './criteria.ts';

/** A value a subtask must extract before it is done. */
export interface RequiredExtract {
  variable: string;
  query: string;
}

/** A subtask as the agent runs it: from the workflow, or from a replan. Texts are rendered. */
export interface PlannedSubtask {
  /** Run-wide number: workflow subtasks keep theirs; replanned ones continue after the largest. */
  subtask_i: number;
  text: string;
  /** Variables from earlier subtasks whose values this subtask uses. */
  dependencies: string[];
  /** Reference steps: how it was done when recorded (examples, not executed). */
  steps: WorkflowStep[];
  /** Values this subtask must extract before it is done. */
  extracts: RequiredExtract[];
  /**
   * What shows it is done, from the workflow's optimized_plan.json (ai_mime's Pass C: the success
   * criteria of its steps made from this subtask). Default none.
   */
  checks?: string[];
  /**
   * The success criteria of the Pass C steps that end with this subtask (the last of their
   * `source_subtask_ids`), with the texts each says the app shows: checked on the app once the
   * subtask is done, by whichever executor did it. Default none.
   */
  criteria?: CriterionCheck[];
  origin: SubtaskOrigin;
}

/** The values a list of steps extracts (EXTRACT steps with a variable name). */
export function listExtracts(steps: readonly WorkflowStep[]): RequiredExtract[] {
  return steps.flatMap((step) =>
    step.action_type === 'EXTRACT' && step.variable_name
      ? [{ variable: step.variable_name, query: step.action_value ?? step.intent }]
      : [],
  );
}

/** The success criteria of a Pass C plan by the subtask each of its steps was made from. */
export function checksBySubtask(plan: OptimizedPlan | null): Map<number, string[]> {
  const checks = new Map<number, string[]>();
  for (const step of plan?.steps ?? []) {
    const criteria = step.success_criteria?.trim();
    if (!criteria) continue;
    for (const s of step.source_subtask_ids ?? []) checks.set(s, [...(checks.get(s) ?? []), criteria]);
  }
  return checks;
}

/** The values a run's criteria may name: its params' (`withheld`: the sensitive ones), else the plan's constants. */
export interface CriterionValues {
  values: Readonly<Record<string, string>>;
  withheld: ReadonlySet<string>;
}

/** A run's params as its criteria may name them: a sensitive one's value is never looked for. */
export function criterionValuesOf(
  params: readonly { name: string; display: string; sensitive: boolean }[],
): CriterionValues {
  return {
    values: Object.fromEntries(
      params.flatMap((p) => (!p.sensitive && p.display.trim() !== '' ? [[p.name, p.display]] : [])),
    ),
    withheld: new Set(params.flatMap((p) => (p.sensitive ? [p.name] : []))),
  };
}

/**
 * The success criteria of a Pass C plan by the subtask each step ends with (the last of its source
 * subtasks that the workflow has: the step's end state is only there then), with their texts.
 */
export function criteriaBySubtask(
  plan: OptimizedPlan | null,
  subtasks: readonly number[],
  { values, withheld }: CriterionValues,
): Map<number, CriterionCheck[]> {
  const constants = Object.fromEntries(
    Object.entries(plan?.constants ?? {}).flatMap(([name, value]) =>
      typeof value === 'string' || typeof value === 'number' ? [[name, String(value)]] : [],
    ),
  );
  const known = { ...constants, ...values };
  const criteria = new Map<number, CriterionCheck[]>();
  for (const step of plan?.steps ?? []) {
    const criterion = step.success_criteria?.trim();
    const last = Math.max(...(step.source_subtask_ids ?? []).filter((s) => subtasks.includes(s)));
    if (!criterion || !Number.isFinite(last)) continue;
    const check = { step: step.id ?? null, criterion, texts: expectedTexts(criterion, known, withheld) };
    criteria.set(last, [...(criteria.get(last) ?? []), check]);
  }
  return criteria;
}

/**
 * The workflow's plan as the agent runs it, with the checks of its Pass C plan when it has one
 * (`values`: what its criteria may name; without them, only their quoted texts free of names count).
 */
export function planFromWorkflow(
  workflow: Workflow,
  optimized: OptimizedPlan | null = null,
  values: CriterionValues = { values: {}, withheld: new Set() },
): PlannedSubtask[] {
  const checks = checksBySubtask(optimized);
  const numbers = workflow.plan.subtasks.map((s) => s.subtask_i);
  const criteria = criteriaBySubtask(optimized, numbers, values);
  return workflow.plan.subtasks.map((subtask) => ({
    subtask_i: subtask.subtask_i,
    text: subtask.text,
    dependencies: subtask.dependencies,
    steps: subtask.steps,
    extracts: listExtracts(subtask.steps),
    ...(checks.has(subtask.subtask_i) ? { checks: checks.get(subtask.subtask_i) } : {}),
    ...(criteria.has(subtask.subtask_i) ? { criteria: criteria.get(subtask.subtask_i) } : {}),
    origin: 'workflow',
  }));
}
