/**
 * The steps and manifest events a heal writes from a run's actions: a recorded step at the run's
 * place, one of the agent's actions as a new step (with its `source`), and the manifest event of each
 * action as the recorder writes one.
 */
import {
  eventOfAction,
  type HealAction,
  type HealFile,
  type ManifestEvent,
  type StepActionType,
  stepTypeOfAction,
  targetBoxAround,
  type WorkflowStep,
} from '@mime-desktop/schema';
import { describeAction } from '../actions/computer-action.ts';
import { HealError } from './heal-error.ts';

/** A recorded step at the place and frame of this run. */
export function movedStep(
  step: WorkflowStep,
  action: HealAction,
  index: number,
  screenshot: string,
): WorkflowStep {
  const source = step.source;
  const point = pointOf(action);
  const end = action.action?.action === 'left_click_drag' ? action.action.endPoint : null;
  const box =
    source?.box && point && source.point
      ? {
          ...source.box,
          x: Math.round(source.box.x + point.x - source.point.x),
          y: Math.round(source.box.y + point.y - source.point.y),
        }
      : (source?.box ?? null);
  return {
    ...step,
    target: action.element ? { ...step.target, element: action.element } : step.target,
    source: {
      event_index: index,
      screenshot,
      point: point ?? source?.point ?? null,
      end_point: end ?? source?.end_point ?? null,
      box,
      // The window's frame on this run's screen: the recorded one no longer frames the run's place.
      ...(action.window ? { window: action.window } : {}),
    },
  };
}

/** One of the agent's actions as a recorded step; typed param values written back as `{param}`. */
export function agentStep(
  action: HealAction,
  index: number,
  screenshot: string,
  heal: HealFile,
): WorkflowStep {
  const point = pointOf(action);
  const described = action.extract
    ? `extract ${action.extract.variable}`
    : action.action
      ? describeAction(action.action)
      : 'act';
  const note = action.note.trim() || `${described}, as the agent did it`;
  const value = action.extract
    ? action.extract.query
    : action.action?.action === 'type'
      ? templated(action.action.text, heal.params)
      : action.action?.action === 'key'
        ? action.action.keys
        : null;
  return {
    i: 0,
    expected_current_state: note,
    intent: `${described}, as the agent did it in run ${heal.run_id}`,
    // The element under the point, where the run named one: found first at replay.
    target: { primary: note, fallback: null, ...(action.element ? { element: action.element } : {}) },
    action_type: action.extract ? 'EXTRACT' : stepTypeOf(action),
    action_value: value,
    post_action: [],
    variable_name: action.extract?.variable ?? null,
    source: {
      event_index: index,
      screenshot,
      point,
      end_point: action.action?.action === 'left_click_drag' ? action.action.endPoint : null,
      box: point ? targetBoxAround(point) : null,
    },
  };
}

/** Typed text with each param's value written back as `{name}` (values of 3 characters or more, or the whole text). */
function templated(text: string, params: Record<string, string>): string {
  let out = text;
  for (const [name, value] of Object.entries(params)) {
    if (value === '' || value === `{${name}}`) continue;
    if (out === value) return `{${name}}`;
    if (value.length >= 3) out = out.split(value).join(`{${name}}`);
  }
  return out;
}

function pointOf(action: HealAction): { x: number; y: number } | null {
  const a = action.action;
  if (!a || !('point' in a) || !a.point) return null;
  return a.point;
}

/** The step type of an agent's action; an action no recording holds is an invalid heal. */
function stepTypeOf(action: HealAction): StepActionType {
  const type = action.action ? stepTypeOfAction(action.action) : null;
  if (type === null) throw unrecordable(action);
  return type;
}

const unrecordable = (action: HealAction) =>
  new HealError(
    'MIME_HEAL_INVALID',
    `heal.json holds an action that cannot be recorded (${action.action?.action ?? 'none'})`,
  );

/** The manifest event of an action, as the recorder writes one; secret typing stores no text. */
export function manifestEvent(action: HealAction, screenshot: string, timestamp: number): ManifestEvent {
  const common = {
    screenshot,
    timestamp,
    details: null,
    ...(action.element ? { element: action.element } : {}),
    ...(action.window ? { window: action.window } : {}),
  };
  if (action.extract) {
    return {
      action_type: 'extract',
      action_details: { query: action.extract.query, values: [action.extract.value] },
      ...common,
    };
  }
  const event = action.action ? eventOfAction(action.action) : null;
  if (!event) throw unrecordable(action);
  if (event.action_type === 'type' && /\{\w+\}/.test(event.action_details.text)) {
    return { action_type: 'type', action_details: { text: '', secret: true }, ...common };
  }
  return { ...event, ...common } as ManifestEvent;
}
