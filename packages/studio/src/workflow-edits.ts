/**
 * The edits the studio offers, as pure functions: each returns a new workflow (the caller validates
 * and saves it) or throws {@link StudioEditError} saying why the edit does not apply.
 * - "Make this a param": a typed value becomes a `{name}` template and a `task_params` entry in one
 *   action, the missing path from a reflected workflow with no params to one that replays with new
 *   values. Every other text that says the same value says the template instead, so the run's checks
 *   look for this run's value.
 * - Adding a param by name (its `{name}` then written where it goes, in a step's value or a text).
 * - Renaming a param: its templates follow. Deleting one: its templates become its example again.
 *   Its example, description and sensitive flag change in place (a secret keeps no example).
 * - A subtask's text (its instruction and "Expected outcome: ..."), templates checked on save.
 * - Dependencies of a subtask: only variables extracted by an earlier subtask.
 * - The workflow's name and description; a step's fields (intent, target, value, expected outcome).
 * - The plan's order and shape (plan-edits.ts): steps and subtasks moved, deleted or duplicated, a
 *   step or a subtask added; a step made from a recorded event no step uses (recorded-events.ts).
 */
import {
  formatStep,
  formatSubtask,
  IDENTIFIER,
  type Workflow,
  type WorkflowStep,
} from '@mime-desktop/schema';
import { StudioEditError } from './edit-error.ts';
import {
  addRecordedStep,
  addStep,
  addSubtask,
  deleteStep,
  deleteSubtask,
  duplicateStep,
  duplicateSubtask,
  moveStep,
  moveSubtask,
  type NewStep,
  stepAt,
} from './plan-edits.ts';

/** An edit of a workflow, as the page asks for it. */
export type WorkflowEdit =
  | { kind: 'make-param'; step_i: number; name: string; description?: string; sensitive?: boolean }
  | { kind: 'add-param'; name: string; example?: string | null; description?: string; sensitive?: boolean }
  | { kind: 'rename-param'; name: string; to: string }
  | { kind: 'delete-param'; name: string }
  | { kind: 'set-param'; name: string; example?: string | null; sensitive?: boolean; description?: string }
  | { kind: 'set-subtask-text'; subtask_i: number; text: string }
  | { kind: 'add-dependency'; subtask_i: number; variable: string }
  | { kind: 'remove-dependency'; subtask_i: number; variable: string }
  | { kind: 'set-step'; step_i: number; fields: StepFields }
  | { kind: 'move-step'; step_i: number; by: -1 | 1 }
  | { kind: 'delete-step'; step_i: number }
  | { kind: 'move-subtask'; subtask_i: number; by: -1 | 1 }
  | { kind: 'delete-subtask'; subtask_i: number }
  | { kind: 'duplicate-step'; step_i: number }
  | { kind: 'add-step'; subtask_i: number; after: number | null; step: NewStep }
  | { kind: 'add-recorded-step'; subtask_i: number; after: number | null; event_index: number }
  | { kind: 'add-subtask'; after: number; text: string }
  | { kind: 'duplicate-subtask'; subtask_i: number }
  | { kind: 'set-workflow'; name?: string; description?: string };

/** The fields of a step a person edits; those left out stay as they are. */
export interface StepFields {
  intent?: string;
  /** What to act on, in words (`target.primary`). */
  target?: string;
  /** What is typed, the keys pressed, the extract's query; null for none. */
  action_value?: string | null;
  /** What the screen shows after the step, one line each (`post_action`). */
  expected?: string[];
}

/**
 * Applies one edit; `recorded` is the step each recorded event makes, by event index (read from the
 * workflow's recording for an `add-recorded-step`).
 */
export function applyEdit(
  workflow: Workflow,
  edit: WorkflowEdit,
  recorded: ReadonlyMap<number, { step: WorkflowStep }> = new Map(),
): Workflow {
  switch (edit.kind) {
    case 'make-param':
      return makeParam(workflow, edit);
    case 'add-param':
      return addParam(workflow, edit);
    case 'rename-param':
      return renameParam(workflow, edit.name, edit.to);
    case 'delete-param':
      return deleteParam(workflow, edit.name);
    case 'set-param':
      return setParam(workflow, edit.name, edit);
    case 'set-subtask-text':
      return setSubtaskText(workflow, edit.subtask_i, edit.text);
    case 'add-dependency':
      return addDependency(workflow, edit.subtask_i, edit.variable);
    case 'remove-dependency':
      return removeDependency(workflow, edit.subtask_i, edit.variable);
    case 'set-step':
      return setStep(workflow, edit.step_i, edit.fields ?? {});
    case 'move-step':
      return moveStep(workflow, edit.step_i, edit.by);
    case 'delete-step':
      return deleteStep(workflow, edit.step_i);
    case 'move-subtask':
      return moveSubtask(workflow, edit.subtask_i, edit.by);
    case 'delete-subtask':
      return deleteSubtask(workflow, edit.subtask_i);
    case 'duplicate-step':
      return duplicateStep(workflow, edit.step_i);
    case 'add-step':
      return addStep(workflow, { subtask_i: edit.subtask_i, after: edit.after }, edit.step);
    case 'add-recorded-step': {
      const made = recorded.get(edit.event_index);
      if (!made) {
        throw new StudioEditError(
          `the recording has no action at event ${JSON.stringify(edit.event_index)}: choose one the form lists`,
        );
      }
      return addRecordedStep(workflow, { subtask_i: edit.subtask_i, after: edit.after }, made.step);
    }
    case 'add-subtask':
      return addSubtask(workflow, edit.after, edit.text ?? '');
    case 'duplicate-subtask':
      return duplicateSubtask(workflow, edit.subtask_i);
    case 'set-workflow':
      return setWorkflow(workflow, edit);
    default:
      // The page's request is data: an edit this studio does not know is refused, named.
      throw new StudioEditError(`no edit named ${JSON.stringify((edit as { kind: unknown }).kind)}`);
  }
}

/** The workflow with `change` applied to every text a person or the model reads, templates included. */
function mapTexts(workflow: Workflow, change: (text: string) => string): Workflow {
  const step = (s: WorkflowStep): WorkflowStep => ({
    ...s,
    action_value: s.action_value === null ? null : change(s.action_value),
    intent: change(s.intent),
    expected_current_state: change(s.expected_current_state),
    post_action: s.post_action.map(change),
    target: {
      ...s.target,
      primary: change(s.target.primary),
      fallback: s.target.fallback && change(s.target.fallback),
    },
  });
  return {
    ...workflow,
    task_description_user: change(workflow.task_description_user),
    detailed_task_description: change(workflow.detailed_task_description),
    success_criteria: change(workflow.success_criteria),
    plan: {
      ...workflow.plan,
      subtasks: workflow.plan.subtasks.map((subtask) => ({
        ...subtask,
        text: change(subtask.text),
        steps: subtask.steps.map(step),
      })),
    },
  };
}

const escaped = (literal: string) => literal.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** `text` with every whole occurrence of `value` (not inside a word or a template) as `{name}`. */
function templated(text: string, value: string, name: string): string {
  const start = /^\w/.test(value) ? '(?<![\\w{])' : '';
  const end = /\w$/.test(value) ? '(?![\\w}])' : '';
  return text.replace(new RegExp(`${start}${escaped(value)}${end}`, 'g'), `{${name}}`);
}

function checkNewName(workflow: Workflow, name: string): void {
  if (!IDENTIFIER.test(name)) {
    throw new StudioEditError(
      `"${name}" cannot name a param: use letters, digits and _ (not first), e.g. song_name`,
    );
  }
  if (workflow.task_params.some((p) => p.name === name)) {
    throw new StudioEditError(`the workflow already has a param named ${name}: choose another name`);
  }
}

/** The workflow with step `step_i`'s typed value as the param `name` (see the module comment). */
export function makeParam(
  workflow: Workflow,
  request: { step_i: number; name: string; description?: string; sensitive?: boolean },
): Workflow {
  const { name } = request;
  checkNewName(workflow, name);
  const step = workflow.plan.subtasks.flatMap((s) => s.steps).find((s) => s.i === request.step_i);
  if (!step) throw new StudioEditError(`the workflow has no ${formatStep(request.step_i)}`);
  const value = step.action_value ?? '';
  if (step.action_type !== 'TYPE' || value.trim() === '') {
    throw new StudioEditError(`${formatStep(step.i)} types no text: only a typed value can become a param`);
  }
  if (/\{[A-Za-z_]\w*\}/.test(value)) {
    throw new StudioEditError(
      `${formatStep(step.i)} already types a template (${value}): it is a param already`,
    );
  }
  const sensitive = request.sensitive ?? false;
  const changed = mapTexts(workflow, (text) => templated(text, value, name));
  return {
    ...changed,
    task_params: [
      ...workflow.task_params,
      {
        name,
        type: 'string',
        description: request.description ?? `the text typed at ${formatStep(step.i)}`,
        // A secret's value is never stored, not even as its example.
        example: sensitive ? null : value,
        sensitive,
        optional: false,
      },
    ],
    plan: {
      ...changed.plan,
      subtasks: changed.plan.subtasks.map((subtask) => ({
        ...subtask,
        // The step itself types the param, whatever else it typed around the value.
        steps: subtask.steps.map((s) => (s.i === step.i ? { ...s, action_value: `{${name}}` } : s)),
      })),
    },
  };
}

/** The workflow with a new param `name`, used nowhere yet: `{name}` goes where its value is to be typed or said. */
export function addParam(
  workflow: Workflow,
  request: { name: string; example?: string | null; description?: string; sensitive?: boolean },
): Workflow {
  const { name } = request;
  checkNewName(workflow, name);
  const sensitive = request.sensitive ?? false;
  const example = request.example ?? null;
  if (sensitive && example !== null && example !== '') {
    throw new StudioEditError(`${name} is sensitive: its value is never stored, so it keeps no example`);
  }
  return {
    ...workflow,
    task_params: [
      ...workflow.task_params,
      {
        name,
        type: 'string',
        description: request.description ?? `the ${name.replaceAll('_', ' ')}`,
        example: example === '' ? null : example,
        sensitive,
        optional: false,
      },
    ],
  };
}

function paramNamed(workflow: Workflow, name: string) {
  const param = workflow.task_params.find((p) => p.name === name);
  if (!param) throw new StudioEditError(`the workflow has no param named ${name}`);
  return param;
}

/** The workflow with param `name` called `to`, every `{name}` template with it. */
export function renameParam(workflow: Workflow, name: string, to: string): Workflow {
  paramNamed(workflow, name);
  checkNewName(workflow, to);
  const changed = mapTexts(workflow, (text) => text.replaceAll(`{${name}}`, `{${to}}`));
  return {
    ...changed,
    task_params: workflow.task_params.map((p) => (p.name === name ? { ...p, name: to } : p)),
  };
}

/** The workflow without param `name`: its templates say its example again (a secret has none to say). */
export function deleteParam(workflow: Workflow, name: string): Workflow {
  const param = paramNamed(workflow, name);
  const uses = JSON.stringify(workflow.plan).split(`{${name}}`).length - 1;
  if (uses > 0 && param.example === null) {
    throw new StudioEditError(
      `${name} has no example to type in its place, and the workflow uses {${name}} ${uses} time${uses === 1 ? '' : 's'}: give it an example first, or keep it`,
    );
  }
  const changed = mapTexts(workflow, (text) => text.replaceAll(`{${name}}`, param.example ?? ''));
  return { ...changed, task_params: workflow.task_params.filter((p) => p.name !== name) };
}

/** The workflow with param `name`'s example, description or sensitive flag changed; a secret keeps no example. */
export function setParam(
  workflow: Workflow,
  name: string,
  change: { example?: string | null; sensitive?: boolean; description?: string },
): Workflow {
  const param = paramNamed(workflow, name);
  const sensitive = change.sensitive ?? param.sensitive;
  const example = change.example === undefined ? param.example : change.example;
  if (sensitive && example !== null && example !== '') {
    throw new StudioEditError(`${name} is sensitive: its value is never stored, so it keeps no example`);
  }
  const updated = {
    ...param,
    sensitive,
    example: sensitive || example === '' ? null : example,
    description: change.description ?? param.description,
  };
  return { ...workflow, task_params: workflow.task_params.map((p) => (p.name === name ? updated : p)) };
}

/** The workflow with subtask `subtask_i`'s text (instruction and expected outcome) replaced. */
export function setSubtaskText(workflow: Workflow, subtask_i: number, text: string): Workflow {
  if (!workflow.plan.subtasks.some((s) => s.subtask_i === subtask_i)) {
    throw new StudioEditError(`the workflow has no ${formatSubtask(subtask_i)}`);
  }
  if (text.trim() === '')
    throw new StudioEditError(`${formatSubtask(subtask_i)} needs a text: say what it does`);
  return {
    ...workflow,
    plan: {
      ...workflow.plan,
      subtasks: workflow.plan.subtasks.map((s) => (s.subtask_i === subtask_i ? { ...s, text } : s)),
    },
  };
}

/** The variables the subtasks before `subtask_i` extract: what it may depend on. */
export function upstreamExtracts(workflow: Workflow, subtask_i: number): string[] {
  const index = workflow.plan.subtasks.findIndex((s) => s.subtask_i === subtask_i);
  if (index < 0) throw new StudioEditError(`the workflow has no ${formatSubtask(subtask_i)}`);
  return workflow.plan.subtasks
    .slice(0, index)
    .flatMap((s) => s.steps)
    .flatMap((s) => (s.action_type === 'EXTRACT' && s.variable_name ? [s.variable_name] : []));
}

function withDependencies(
  workflow: Workflow,
  subtask_i: number,
  change: (deps: string[]) => string[],
): Workflow {
  return {
    ...workflow,
    plan: {
      ...workflow.plan,
      subtasks: workflow.plan.subtasks.map((s) =>
        s.subtask_i === subtask_i ? { ...s, dependencies: change(s.dependencies) } : s,
      ),
    },
  };
}

/** The workflow with subtask `subtask_i` using `variable`, which an earlier subtask must extract. */
export function addDependency(workflow: Workflow, subtask_i: number, variable: string): Workflow {
  const offered = upstreamExtracts(workflow, subtask_i);
  if (!offered.includes(variable)) {
    throw new StudioEditError(
      `${formatSubtask(subtask_i)} can use only what an earlier subtask extracts (${offered.length > 0 ? offered.join(', ') : 'none does'}), not ${variable}`,
    );
  }
  const subtask = workflow.plan.subtasks.find((s) => s.subtask_i === subtask_i);
  if (subtask?.dependencies.includes(variable)) {
    throw new StudioEditError(`${formatSubtask(subtask_i)} uses ${variable} already`);
  }
  return withDependencies(workflow, subtask_i, (deps) => [...deps, variable]);
}

/** The workflow with subtask `subtask_i` no longer using `variable`. */
export function removeDependency(workflow: Workflow, subtask_i: number, variable: string): Workflow {
  upstreamExtracts(workflow, subtask_i);
  return withDependencies(workflow, subtask_i, (deps) => deps.filter((d) => d !== variable));
}

/** The workflow with step `step_i`'s intent, target, value or expected outcome changed. */
export function setStep(workflow: Workflow, step_i: number, fields: StepFields): Workflow {
  const { step } = stepAt(workflow, step_i);
  for (const [name, value] of [
    ['intent', fields.intent],
    ['target', fields.target],
  ] as const) {
    if (value !== undefined && value.trim() === '')
      throw new StudioEditError(`${formatStep(step_i)} needs its ${name}: say it in words`);
  }
  const value = fields.action_value === undefined ? step.action_value : fields.action_value;
  // A TYPE or KEYPRESS may have none (null, as ai_mime writes them: the recorded value, else the model's),
  // never a blank one; an EXTRACT always needs its query.
  const unset = value === null && (step.action_type === 'TYPE' || step.action_type === 'KEYPRESS');
  if (['TYPE', 'KEYPRESS', 'EXTRACT'].includes(step.action_type) && !unset && (value ?? '').trim() === '') {
    throw new StudioEditError(
      `${formatStep(step_i)} (${step.action_type}) needs a value: ${step.action_type === 'TYPE' ? 'the text it types' : step.action_type === 'KEYPRESS' ? 'the keys it presses' : 'what it reads'}`,
    );
  }
  const changed: WorkflowStep = {
    ...step,
    intent: fields.intent ?? step.intent,
    target: fields.target === undefined ? step.target : { ...step.target, primary: fields.target },
    action_value: value,
    post_action:
      fields.expected === undefined ? step.post_action : fields.expected.map((l) => l.trim()).filter(Boolean),
  };
  return {
    ...workflow,
    plan: {
      ...workflow.plan,
      subtasks: workflow.plan.subtasks.map((s) => ({
        ...s,
        steps: s.steps.map((x) => (x.i === step_i ? changed : x)),
      })),
    },
  };
}

/** The workflow renamed (`task_name`) or described again (`task_description_user`). */
export function setWorkflow(workflow: Workflow, change: { name?: string; description?: string }): Workflow {
  const name = change.name?.trim();
  if (name !== undefined && name === '')
    throw new StudioEditError('a workflow needs a name: say what it does');
  return {
    ...workflow,
    task_name: name ?? workflow.task_name,
    task_description_user: change.description?.trim() ?? workflow.task_description_user,
  };
}
