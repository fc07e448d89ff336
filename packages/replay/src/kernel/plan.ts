import type { OptimizedPlan, SubtaskOrigin, Workflow, WorkflowStep } from '@mime-desktop/schema';

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

/** The workflow's plan as the agent runs it, with the checks of its Pass C plan when it has one. */
export function planFromWorkflow(
  workflow: Workflow,
  optimized: OptimizedPlan | null = null,
): PlannedSubtask[] {
  const checks = checksBySubtask(optimized);
  return workflow.plan.subtasks.map((subtask) => ({
    subtask_i: subtask.subtask_i,
    text: subtask.text,
    dependencies: subtask.dependencies,
    steps: subtask.steps,
    extracts: listExtracts(subtask.steps),
    ...(checks.has(subtask.subtask_i) ? { checks: checks.get(subtask.subtask_i) } : {}),
    origin: 'workflow',
  }));
}
