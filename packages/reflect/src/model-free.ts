/**
 * A workflow from the recording alone, without a model: step cards with plain intents named after
 * the elements acted on (from the accessibility tree where the recording has them), subtasks split
 * where the app or window changes, each typed text a param named after its field's label (`name`,
 * `city`, else `text_1`) with the typed text as its example, secret typing a sensitive param, and the
 * annotations' extracts. Trace and auto replay it; a later reflect with a model improves it.
 */
import {
  describeElement,
  formatStep,
  IDENTIFIER,
  identityOf,
  type PassBResult,
  type StepCard,
  shownName,
  slugOf,
  type WorkflowStep,
} from '@mime-desktop/schema';
import { describeAction } from './prompts.ts';
import type { ReflectStep } from './steps.ts';

type Param = PassBResult['task_params'][number];

/** What a step acts on, in words: its element, or the place. */
function targetOf(step: ReflectStep): string {
  const element = step.event.element;
  if (element) return `the ${describeElement(element)} in ${element.app}`;
  const d = step.event.action_details as { x?: number; y?: number };
  return d.x === undefined
    ? 'the focused element'
    : `the place at (${Math.round(d.x)}, ${Math.round(Number(d.y))})`;
}

const VERBS: Record<string, string> = {
  CLICK: 'Click',
  DOUBLE_CLICK: 'Double-click',
  RIGHT_CLICK: 'Right-click',
  MIDDLE_CLICK: 'Middle-click',
  DRAG: 'Drag',
  SCROLL: 'Scroll',
  KEYPRESS: 'Press',
  TYPE: 'Type into',
  EXTRACT: 'Read',
};

/** A step card from the recorded action and its element. */
export function modelFreeCard(step: ReflectStep): StepCard {
  const target = targetOf(step);
  const element = step.event.element;
  const intent =
    step.actionType === 'KEYPRESS'
      ? `Press ${step.recordedValue ?? 'a key'} in ${target}.`
      : step.actionType === 'EXTRACT'
        ? `Read ${step.recordedValue ?? 'a value'} from the screen.`
        : `${VERBS[step.actionType] ?? 'Act on'} ${target}.`;
  return {
    i: step.i,
    expected_current_state: element
      ? `The ${element.window.role} ${JSON.stringify(element.window.name)} of ${element.app} is shown.`
      : 'The screen as recorded before this step.',
    intent,
    action_type: step.actionType,
    action_value: step.secret ? null : step.recordedValue,
    target: { primary: target, fallback: `as recorded: ${describeAction(step)}` },
    post_action: ['The screen as recorded after this step.'],
  };
}

/**
 * The workflow step one recorded event makes without a model (numbered 0: its place numbers it), with
 * its source, so trace replays it; typed text is its value as recorded. The studio adds one so.
 */
export function modelFreeStep(step: ReflectStep): WorkflowStep {
  const card = modelFreeCard(step);
  const element = step.event.element;
  return {
    i: 0,
    expected_current_state: card.expected_current_state,
    intent: card.intent,
    target: element ? { ...card.target, element: identityOf(element) } : card.target,
    action_type: step.actionType,
    action_value: card.action_value,
    post_action: card.post_action,
    variable_name: step.variableName,
    source: step.source,
  };
}

/** An identifier from a field's label: `City` -> `city`, `E-mail address` -> `e_mail_address`. */
function nameFrom(label: string): string | null {
  const name = slugOf(label, '_', 40);
  if (!name) return null;
  return IDENTIFIER.test(name) ? name : `field_${name}`;
}

/** Where a step happens: its app and window kind; null when the recording does not say. */
const placeOf = (step: ReflectStep) => {
  const element = step.event.element;
  return element ? `${element.app}/${element.window.role}` : null;
};

/** A param for each typed text, named after its field; each typing step's `{param}`. */
function paramsOf(steps: readonly ReflectStep[]): { params: Param[]; templates: Map<number, string> } {
  const params: Param[] = [];
  const templates = new Map<number, string>();
  const unique = (base: string) => {
    let name = base;
    for (let n = 2; params.some((p) => p.name === name); n += 1) name = `${base}_${n}`;
    return name;
  };
  for (const step of steps) {
    if (step.actionType !== 'TYPE') continue;
    const element = step.event.element;
    const field = element ? shownName(element) : null;
    const name = unique((field && nameFrom(field)) || (step.secret ? 'secret' : `text_${params.length + 1}`));
    const secret = step.secret ? ' (a secret: never stored)' : '';
    params.push({
      name,
      type: 'string',
      description: field
        ? `What is typed into the ${JSON.stringify(field)} field${secret}.`
        : `The text typed at ${formatStep(step.i)}${secret}.`,
      example: step.secret ? null : step.recordedValue,
      sensitive: step.secret,
      optional: false,
    });
    templates.set(step.i, `{${name}}`);
  }
  return { params, templates };
}

/** The steps in subtasks: a new one where the app or its window kind changes. */
function groupsOf(steps: readonly ReflectStep[]): ReflectStep[][] {
  const groups: ReflectStep[][] = [];
  let place: string | null = null;
  for (const step of steps) {
    const here = placeOf(step);
    if (groups.length === 0 || (here !== null && place !== null && here !== place)) groups.push([]);
    groups.at(-1)?.push(step);
    place = here ?? place;
  }
  return groups;
}

/** The plan Pass B would give, made from the steps alone. */
export function modelFreePlan(
  metadata: { name: string; description: string },
  steps: readonly ReflectStep[],
): PassBResult {
  const { params, templates } = paramsOf(steps);
  const groups = groupsOf(steps);
  const texts = groups.map((group, k) => {
    const first = group[0];
    const app = first?.event.element?.app;
    const typed = group.flatMap((s) => templates.get(s.i) ?? []);
    const what = typed.length > 0 ? `enter ${typed.join(' and ')}` : `steps ${first?.i}-${group.at(-1)?.i}`;
    return `Part ${k + 1}${app ? ` in ${app}` : ''}: ${what}, as recorded. Expected outcome: the screen as recorded after ${formatStep(group.at(-1)?.i ?? 0)}.`;
  });
  return {
    detailed_task_description: metadata.description || metadata.name,
    subtasks: texts,
    task_params: params,
    success_criteria: 'The screen shows what the recording showed at its end.',
    // The steps alone cannot tell these: unknown, never guessed (the reflect's output says so).
    requires_login: null,
    side_effects: null,
    stops_before_payment: null,
    safety_notes: [],
    plan_step_updates: groups.flatMap((group, k) =>
      group.map((step) => ({
        i: step.i,
        action_value: templates.get(step.i) ?? step.recordedValue,
        subtask: texts[k] ?? '',
      })),
    ),
  };
}
