/**
 * "Make this a param": a typed value becomes a `{name}` template and a `task_params` entry in one
 * action, the missing path from a reflected workflow with no params to one that replays with new
 * values. Every other text of the workflow that says the same value (the subtask's instruction, its
 * expected outcome, later steps) says the template instead, so the run's checks look for this run's
 * value. Pure: returns a new workflow, the caller validates and saves it.
 */
import { IDENTIFIER, MimeError, type Workflow, type WorkflowStep } from '@mime-desktop/schema';

/** A change the workflow cannot take: no such step, nothing to make a param of, a bad name. */
export class StudioEditError extends MimeError {
  constructor(message: string) {
    super('MIME_STUDIO_EDIT', message);
  }
}

export interface MakeParamRequest {
  /** The TYPE step whose value becomes the param, by its plan-wide number. */
  step_i: number;
  name: string;
  description?: string;
  sensitive?: boolean;
}

/** `text` with every whole occurrence of `value` (not inside a word or a template) as `{name}`. */
function templated(text: string, value: string, name: string): string {
  const literal = value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const edge = (side: 'start' | 'end') => {
    const char = side === 'start' ? value[0] : value.at(-1);
    return char && /\w/.test(char) ? (side === 'start' ? '(?<![\\w{])' : '(?![\\w}])') : '';
  };
  return text.replace(new RegExp(`${edge('start')}${literal}${edge('end')}`, 'g'), `{${name}}`);
}

/** The workflow with step `step_i`'s typed value as the param `name` (see the module comment). */
export function makeParam(workflow: Workflow, request: MakeParamRequest): Workflow {
  const { name } = request;
  if (!IDENTIFIER.test(name)) {
    throw new StudioEditError(
      `"${name}" cannot name a param: use letters, digits and _ (not first), e.g. song_name`,
    );
  }
  if (workflow.task_params.some((p) => p.name === name)) {
    throw new StudioEditError(`the workflow already has a param named ${name}: choose another name`);
  }
  const step = workflow.plan.subtasks.flatMap((s) => s.steps).find((s) => s.i === request.step_i);
  if (!step) throw new StudioEditError(`the workflow has no step ${request.step_i}`);
  const value = step.action_value ?? '';
  if (step.action_type !== 'TYPE' || value.trim() === '') {
    throw new StudioEditError(`step ${step.i} types no text: only a typed value can become a param`);
  }
  if (/\{[A-Za-z_]\w*\}/.test(value)) {
    throw new StudioEditError(`step ${step.i} already types a template (${value}): it is a param already`);
  }
  const sensitive = request.sensitive ?? false;
  const swap = (text: string) => templated(text, value, name);
  const swapStep = (s: WorkflowStep): WorkflowStep => ({
    ...s,
    // The step itself types the param, whatever else it typed around the value.
    action_value: s.i === step.i ? `{${name}}` : s.action_value === null ? null : swap(s.action_value),
    intent: swap(s.intent),
    expected_current_state: swap(s.expected_current_state),
    post_action: s.post_action.map(swap),
    target: {
      ...s.target,
      primary: swap(s.target.primary),
      fallback: s.target.fallback && swap(s.target.fallback),
    },
  });
  return {
    ...workflow,
    task_description_user: swap(workflow.task_description_user),
    detailed_task_description: swap(workflow.detailed_task_description),
    success_criteria: swap(workflow.success_criteria),
    task_params: [
      ...workflow.task_params,
      {
        name,
        type: 'string',
        description: request.description ?? `the text typed at step ${step.i}`,
        // A secret's value is never stored, not even as its example.
        example: sensitive ? null : value,
        sensitive,
        optional: false,
      },
    ],
    plan: {
      ...workflow.plan,
      subtasks: workflow.plan.subtasks.map((subtask) => ({
        ...subtask,
        text: swap(subtask.text),
        steps: subtask.steps.map(swapStep),
      })),
    },
  };
}
