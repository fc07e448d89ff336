import {
  type AccessibleElement,
  checkWorkflow,
  findTemplateNames,
  identityOf,
  type PassBResult,
  POINTER_STEP_TYPES,
  type Problem,
  type RecordingMetadata,
  renderTemplate,
  type SafetyFact,
  type StepCard,
  type Workflow,
  type WorkflowInput,
  type WorkflowStep,
} from '@mime-desktop/schema';
import type { ReflectStep } from './steps.ts';

type Param = PassBResult['task_params'][number];
type PlannedStep = WorkflowInput['plan']['subtasks'][number]['steps'] extends (infer S)[] | undefined
  ? S
  : never;

const WHOLE_TEMPLATE = /^\{([A-Za-z_][A-Za-z0-9_]*)\}$/;

/** Secret typing becomes a `{param}` of a sensitive param with no example: Pass B's, or one made here. */
function secretValue(update: string | null, params: Param[]): string {
  const named = update ? WHOLE_TEMPLATE.exec(update)?.[1] : undefined;
  const param = named ? params.find((p) => p.name === named) : undefined;
  if (param) {
    param.sensitive = true;
    param.example = null;
    return `{${param.name}}`;
  }
  let name = 'secret';
  for (let n = 2; params.some((p) => p.name === name); n += 1) name = `secret_${n}`;
  params.push({
    name,
    type: 'string',
    description: 'Secret typed during the recording (not stored).',
    example: null,
    sensitive: true,
    optional: false,
  });
  return `{${name}}`;
}

/** The step's final action value, or a problem when the plan contradicts the recording. */
function actionValue(
  step: ReflectStep,
  update: string | null,
  params: Param[],
  problems: Problem[],
  path: string,
): string | null {
  if (POINTER_STEP_TYPES.has(step.actionType)) return null;
  if (step.secret) return secretValue(update, params);
  if (update === null || update.trim() === '') return step.recordedValue;
  if (step.actionType === 'TYPE' && step.recordedValue !== null) {
    const examples = Object.fromEntries(
      params.filter((p) => p.example !== null).map((p) => [p.name, p.example as string]),
    );
    const rendered = renderTemplate(update, examples);
    if (findTemplateNames(rendered).length === 0 && rendered !== step.recordedValue) {
      problems.push({
        path: `${path}.action_value`,
        message: `"${update}" renders to ${JSON.stringify(rendered)} with the params' examples, but the recorded text is ${JSON.stringify(step.recordedValue)}; use a template whose param example is the recorded text, or the literal text`,
      });
    }
  }
  return update;
}

/** Extracts of earlier subtasks that a subtask's text or steps name: its dependencies. */
function dependenciesOf(
  subtask: { text: string; steps: PlannedStep[] },
  upstream: ReadonlySet<string>,
): string[] {
  const texts = [
    subtask.text,
    ...subtask.steps.flatMap((s) => [
      s.action_value ?? '',
      s.intent,
      s.target.primary,
      s.target.fallback ?? '',
    ]),
  ];
  return [...new Set(texts.flatMap(findTemplateNames))].filter((name) => upstream.has(name));
}

export type MergeResult = { ok: true; workflow: Workflow } | { ok: false; problems: Problem[] };

/**
 * Builds the workflow from the recording's steps, their Pass A cards and the Pass B plan, and checks
 * it: every step assigned once, in order, to one of the plan's subtasks; typed values that render
 * back to what was recorded; secret typing as sensitive params; dependencies derived from the
 * templates; then every rule of the workflow validator.
 */
export function mergeWorkflow(
  metadata: RecordingMetadata,
  steps: readonly ReflectStep[],
  cards: ReadonlyMap<number, StepCard>,
  plan: PassBResult,
): MergeResult {
  const problems: Problem[] = [];
  const params = plan.task_params.map((p) => ({ ...p }));
  const updates = new Map<number, PassBResult['plan_step_updates'][number]>();
  for (const [n, update] of plan.plan_step_updates.entries()) {
    if (updates.has(update.i))
      problems.push({ path: `plan_step_updates[${n}].i`, message: `step ${update.i} is updated twice` });
    updates.set(update.i, update);
  }
  if (new Set(plan.subtasks).size !== plan.subtasks.length) {
    problems.push({ path: 'subtasks', message: 'two subtasks have the same text; make each one distinct' });
  }
  const subtasks = plan.subtasks.map((text) => ({ text, steps: [] as PlannedStep[] }));
  let lastSubtask = 0;
  for (const step of steps) {
    const update = updates.get(step.i);
    const card = cards.get(step.i);
    const path = `plan_step_updates[i=${step.i}]`;
    if (!update || !card) {
      problems.push({
        path,
        message: `step ${step.i} has no update; give one for every step from 0 to ${steps.length - 1}`,
      });
      continue;
    }
    const s = plan.subtasks.indexOf(update.subtask);
    if (s < 0) {
      problems.push({ path: `${path}.subtask`, message: 'is not exactly one of the subtasks strings' });
      continue;
    }
    if (s < lastSubtask) {
      problems.push({
        path: `${path}.subtask`,
        message: `step ${step.i} goes back to subtask ${s} after subtask ${lastSubtask}; steps stay in order`,
      });
    }
    lastSubtask = Math.max(lastSubtask, s);
    subtasks[s]?.steps.push({
      i: step.i,
      expected_current_state: card.expected_current_state,
      intent: card.intent,
      target: targetOf(card.target, step.event.element),
      action_type: step.actionType,
      action_value: actionValue(step, update.action_value, params, problems, path),
      post_action: card.post_action,
      variable_name: step.variableName,
      source: step.source,
    });
  }
  if (problems.length > 0) return { ok: false, problems };

  const upstream = new Set<string>();
  const document: WorkflowInput = {
    version: 2,
    task_name: metadata.name,
    task_description_user: metadata.description,
    detailed_task_description: plan.detailed_task_description,
    task_params: params,
    success_criteria: plan.success_criteria,
    ...(metadata.setup ? { setup: metadata.setup } : {}),
    ...safetyOf(plan),
    plan: {
      subtasks: subtasks.map((subtask, s) => {
        const dependencies = dependenciesOf(subtask, upstream);
        for (const step of subtask.steps) if (step.variable_name) upstream.add(step.variable_name);
        return { subtask_i: s, text: subtask.text, dependencies, steps: subtask.steps };
      }),
    },
  };
  const checked = checkWorkflow(document);
  return checked.ok ? { ok: true, workflow: checked.workflow } : { ok: false, problems: checked.problems };
}

/** The safety facts the plan states; one it leaves null stays unset in the workflow (unknown, never guessed). */
function safetyOf(plan: PassBResult): Partial<Pick<WorkflowInput, SafetyFact | 'safety_notes'>> {
  const notes = plan.safety_notes.map((n) => n.trim()).filter(Boolean);
  return {
    ...(plan.requires_login === null ? {} : { requires_login: plan.requires_login }),
    ...(plan.side_effects === null
      ? {}
      : { side_effects: plan.side_effects.map((e) => e.trim()).filter(Boolean) }),
    ...(plan.stops_before_payment === null ? {} : { stops_before_payment: plan.stops_before_payment }),
    ...(notes.length > 0 ? { safety_notes: notes } : {}),
  };
}

/** The card's target, with the recorded element's identity (its text stays in the recording). */
function targetOf(
  target: StepCard['target'],
  element: AccessibleElement | undefined,
): WorkflowStep['target'] {
  return element ? { ...target, element: identityOf(element) } : target;
}
