/**
 * Edits of a plan's order and shape: steps moved within their subtask, subtasks within the plan,
 * either deleted or duplicated, a new subtask added. Numbers follow the plan order after each; an order
 * that uses a value before it is extracted (or not at all) is still a draft, whose check names it.
 */
import { formatStep, formatSubtask, type Workflow, type WorkflowStep } from '@mime-desktop/schema';
import { StudioEditError } from './edit-error.ts';

type Subtask = Workflow['plan']['subtasks'][number];

/** Where step `step_i` is: its subtask's index in the plan and its index in that subtask. */
export function stepAt(workflow: Workflow, step_i: number): { k: number; j: number; step: WorkflowStep } {
  for (const [k, subtask] of workflow.plan.subtasks.entries()) {
    const j = subtask.steps.findIndex((s) => s.i === step_i);
    if (j >= 0) return { k, j, step: subtask.steps[j] as WorkflowStep };
  }
  throw new StudioEditError(`the workflow has no ${formatStep(step_i)}`);
}

function subtaskIndex(workflow: Workflow, subtask_i: number): number {
  const k = workflow.plan.subtasks.findIndex((s) => s.subtask_i === subtask_i);
  if (k < 0) throw new StudioEditError(`the workflow has no ${formatSubtask(subtask_i)}`);
  return k;
}

/**
 * The plan with its subtasks and steps numbered again in plan order. An order that uses a value before
 * a subtask extracts it (or one no subtask extracts any more) is still a draft: its check says where.
 */
function renumbered(workflow: Workflow, subtasks: Workflow['plan']['subtasks']): Workflow {
  let next = 0;
  const plan = {
    ...workflow.plan,
    subtasks: subtasks.map((subtask, k) => ({
      ...subtask,
      subtask_i: k,
      steps: subtask.steps.map((step) => ({ ...step, i: next++ })),
    })),
  };
  return { ...workflow, plan };
}

/** The workflow with step `step_i` one place earlier (`by` -1) or later (1) in its subtask. */
export function moveStep(workflow: Workflow, step_i: number, by: -1 | 1): Workflow {
  if (by !== -1 && by !== 1) throw new StudioEditError('a step moves by one place: by is -1 or 1');
  const { k, j } = stepAt(workflow, step_i);
  const steps = [...(workflow.plan.subtasks[k]?.steps ?? [])];
  const to = j + by;
  if (to < 0 || to >= steps.length) {
    throw new StudioEditError(
      `${formatStep(step_i)} is the ${by < 0 ? 'first' : 'last'} of its subtask: it moves only within it`,
    );
  }
  [steps[j], steps[to]] = [steps[to] as WorkflowStep, steps[j] as WorkflowStep];
  const subtasks = workflow.plan.subtasks.map((s, n) => (n === k ? { ...s, steps } : s));
  return renumbered(workflow, subtasks);
}

/** The workflow without step `step_i`. */
export function deleteStep(workflow: Workflow, step_i: number): Workflow {
  const { k } = stepAt(workflow, step_i);
  const subtasks = workflow.plan.subtasks.map((s, n) =>
    n === k ? { ...s, steps: s.steps.filter((x) => x.i !== step_i) } : s,
  );
  return renumbered(workflow, subtasks);
}

/** The workflow with subtask `subtask_i` one place earlier (`by` -1) or later (1) in the plan. */
export function moveSubtask(workflow: Workflow, subtask_i: number, by: -1 | 1): Workflow {
  if (by !== -1 && by !== 1) throw new StudioEditError('a subtask moves by one place: by is -1 or 1');
  const k = subtaskIndex(workflow, subtask_i);
  const subtasks = [...workflow.plan.subtasks];
  const to = k + by;
  if (to < 0 || to >= subtasks.length) {
    throw new StudioEditError(`${formatSubtask(subtask_i)} is the ${by < 0 ? 'first' : 'last'} of the plan`);
  }
  [subtasks[k], subtasks[to]] = [subtasks[to], subtasks[k]] as [
    Workflow['plan']['subtasks'][number],
    Workflow['plan']['subtasks'][number],
  ];
  return renumbered(workflow, subtasks);
}

/** The workflow without subtask `subtask_i` and its steps. */
export function deleteSubtask(workflow: Workflow, subtask_i: number): Workflow {
  const k = subtaskIndex(workflow, subtask_i);
  if (workflow.plan.subtasks.length === 1) {
    throw new StudioEditError('a workflow keeps at least one subtask: this is its only one');
  }
  return renumbered(
    workflow,
    workflow.plan.subtasks.filter((_, n) => n !== k),
  );
}

/** The workflow with a copy of step `step_i` right after it (the copy replays the same recorded event). */
export function duplicateStep(workflow: Workflow, step_i: number): Workflow {
  const { k, j, step } = stepAt(workflow, step_i);
  const subtasks = workflow.plan.subtasks.map((s, n) =>
    n === k
      ? { ...s, steps: [...s.steps.slice(0, j + 1), structuredClone(step), ...s.steps.slice(j + 1)] }
      : s,
  );
  return renumbered(workflow, subtasks);
}

/**
 * The workflow with a new subtask of no steps after subtask `after` (-1: first), saying `text`: the
 * model does it from the screen (in the agent mode, or when auto hands a subtask of no steps over).
 */
export function addSubtask(workflow: Workflow, after: number, text: string): Workflow {
  if (after !== -1) subtaskIndex(workflow, after);
  if (text.trim() === '') throw new StudioEditError('a new subtask needs a text: say what it does');
  const k = after === -1 ? 0 : subtaskIndex(workflow, after) + 1;
  const added: Subtask = { subtask_i: k, text: text.trim(), dependencies: [], steps: [] };
  const subtasks = [...workflow.plan.subtasks.slice(0, k), added, ...workflow.plan.subtasks.slice(k)];
  return renumbered(workflow, subtasks);
}

/** The workflow with a copy of subtask `subtask_i` (its steps too) right after it. */
export function duplicateSubtask(workflow: Workflow, subtask_i: number): Workflow {
  const k = subtaskIndex(workflow, subtask_i);
  const copy = structuredClone(workflow.plan.subtasks[k] as Subtask);
  const subtasks = [...workflow.plan.subtasks.slice(0, k + 1), copy, ...workflow.plan.subtasks.slice(k + 1)];
  return renumbered(workflow, subtasks);
}

/** The actions a step added by hand may take (pointer actions find their target from its words). */
export const ADDED_STEP_ACTIONS = ['CLICK', 'DOUBLE_CLICK', 'RIGHT_CLICK', 'TYPE', 'KEYPRESS'] as const;

/** A step added by hand: what it does, on what, and why. */
export interface NewStep {
  action_type: (typeof ADDED_STEP_ACTIONS)[number];
  intent: string;
  /** What to act on, in words. */
  target: string;
  /** The text typed (TYPE) or keys pressed (KEYPRESS); none for a pointer action. */
  action_value?: string | null;
}

/**
 * The workflow with a step added by hand in subtask `subtask_i`, after its step `after` (null: first).
 * It has no recorded source: auto and agent replays find its target from its words on the live screen
 * (trace, which only re-executes recordings, says so and stops there).
 */
export function addStep(
  workflow: Workflow,
  place: { subtask_i: number; after: number | null },
  step: NewStep,
): Workflow {
  if (!ADDED_STEP_ACTIONS.includes(step.action_type)) {
    throw new StudioEditError(
      `a step added here is one of ${ADDED_STEP_ACTIONS.join(', ')}, not ${step.action_type}`,
    );
  }
  for (const [name, value] of [
    ['intent', step.intent],
    ['target', step.target],
  ] as const) {
    if ((value ?? '').trim() === '')
      throw new StudioEditError(`a new step needs its ${name}: say it in words`);
  }
  const pointer = step.action_type !== 'TYPE' && step.action_type !== 'KEYPRESS';
  const value = pointer ? null : (step.action_value ?? '').trim();
  if (value === '') {
    throw new StudioEditError(
      `a new ${step.action_type} step needs ${step.action_type === 'TYPE' ? 'the text it types' : 'the keys it presses'}`,
    );
  }
  return insertStep(workflow, place, {
    i: 0,
    expected_current_state: '',
    intent: step.intent.trim(),
    target: { primary: step.target.trim(), fallback: null },
    action_type: step.action_type,
    action_value: value,
    post_action: [],
    variable_name: null,
    source: null,
  });
}

/**
 * The workflow with a step made from a recorded event (`step`, as {@link recordedSteps} makes it) in
 * subtask `subtask_i` after its step `after` (null: first). Its source is the event, so trace replays
 * it; an event a step replays already is refused (Duplicate copies that step).
 */
export function addRecordedStep(
  workflow: Workflow,
  place: { subtask_i: number; after: number | null },
  step: WorkflowStep,
): Workflow {
  const index = step.source?.event_index;
  const user = workflow.plan.subtasks.flatMap((s) => s.steps).find((s) => s.source?.event_index === index);
  if (user) {
    throw new StudioEditError(
      `${formatStep(user.i)} replays recorded event ${index} already: duplicate that step to do it twice`,
    );
  }
  return insertStep(workflow, place, step);
}

function insertStep(
  workflow: Workflow,
  place: { subtask_i: number; after: number | null },
  added: WorkflowStep,
): Workflow {
  const k = subtaskIndex(workflow, place.subtask_i);
  const steps = workflow.plan.subtasks[k]?.steps ?? [];
  const j = place.after === null ? 0 : steps.findIndex((s) => s.i === place.after) + 1;
  if (j === 0 && place.after !== null) {
    throw new StudioEditError(`${formatSubtask(place.subtask_i)} has no ${formatStep(place.after)}`);
  }
  const subtasks = workflow.plan.subtasks.map((s, n) =>
    n === k ? { ...s, steps: [...s.steps.slice(0, j), added, ...s.steps.slice(j)] } : s,
  );
  return renumbered(workflow, subtasks);
}
