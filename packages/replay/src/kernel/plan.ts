import type { SubtaskOrigin, Workflow, WorkflowStep } from '@mime-desktop/schema';

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

/** The workflow's plan as the agent runs it. */
export function planFromWorkflow(workflow: Workflow): PlannedSubtask[] {
  return workflow.plan.subtasks.map((subtask) => ({
    subtask_i: subtask.subtask_i,
    text: subtask.text,
    dependencies: subtask.dependencies,
    steps: subtask.steps,
    extracts: listExtracts(subtask.steps),
    origin: 'workflow',
  }));
}
