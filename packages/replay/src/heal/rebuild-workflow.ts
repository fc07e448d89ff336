/**
 * The workflow recorded again from an auto run's heal.json: each subtask's change (steps found at a
 * new place, actions the agent took), its steps and manifest events, rejected changes kept as recorded.
 */
import {
  eventOfAction,
  formatStep,
  formatSubtask,
  type HealAction,
  type HealFile,
  type ManifestEvent,
  type StepActionType,
  stepTypeOfAction,
  targetBoxAround,
  type Workflow,
  type WorkflowStep,
} from '@mime-desktop/schema';
import { describeAction } from '../actions/computer-action.ts';
import { HealError } from './heal-error.ts';

/** A step as a heal shows it beside its counterpart: its frame is in the workflow folder or the run's. */
export interface HealStepView {
  intent: string;
  action_type: StepActionType;
  action_value: string | null;
  /** The step's PRE frame, relative to `in`'s folder, or null. */
  screenshot: string | null;
  in: 'workflow' | 'run';
  point: { x: number; y: number } | null;
  box: { x: number; y: number; width: number; height: number } | null;
}

/**
 * What a heal changes in one subtask (steps found at a new place, actions the agent took), accepted
 * unless its id is rejected.
 */
export interface HealChange {
  /** `subtask-<n>`. */
  id: string;
  /** `agent` when the agent acted in the subtask, else `moved`. */
  kind: 'moved' | 'agent';
  subtask_i: number;
  text: string;
  /** The recorded steps it replaces, and the steps it writes instead. */
  before: HealStepView[];
  after: HealStepView[];
}

export interface Rebuilt {
  workflow: Workflow;
  events: ManifestEvent[];
  frames: Array<{ from: string; to: string }>;
  changes: HealChange[];
  /** The changes left out. */
  rejected: Set<string>;
}

/** A step as a heal shows it, its frame in `place`'s folder. */
function viewOf(step: WorkflowStep, place: HealStepView['in']): HealStepView {
  return {
    intent: step.intent,
    action_type: step.action_type,
    action_value: step.action_value,
    screenshot: step.source?.screenshot ?? null,
    in: place,
    point: step.source?.point ?? null,
    box: step.source?.box ?? null,
  };
}

/**
 * The workflow recorded again from the run: every change accepted unless `reject` names it (a rejected
 * step or subtask keeps its recorded steps, with their recorded events and frames).
 */
export function rebuild(
  workflow: Workflow,
  heal: HealFile,
  recorded: readonly ManifestEvent[],
  reject: ReadonlySet<string>,
): Rebuilt {
  const events: ManifestEvent[] = [];
  const frames: Array<{ from: string; to: string }> = [];
  const copied = new Map<string, string>();
  const started = Date.parse(heal.created_at) / 1000;
  const frameFor = (from: string) => {
    let to = copied.get(from);
    if (!to) {
      to = `screenshots/heal-${heal.run_id}/${String(frames.length).padStart(3, '0')}.png`;
      copied.set(from, to);
      frames.push({ from, to });
    }
    return to;
  };
  const record = (action: HealAction): { index: number; screenshot: string } => {
    const screenshot = frameFor(action.frame);
    events.push(manifestEvent(action, screenshot, started + events.length * 0.001));
    return { index: events.length - 1, screenshot };
  };
  /** A recorded step kept as it was, with its recorded event. */
  const keep = (step: WorkflowStep): WorkflowStep => {
    if (!step.source) return step;
    const event = recorded[step.source.event_index];
    if (!event || event.action_type === null) {
      throw new HealError(
        'MIME_HEAL_INVALID',
        `${formatStep(step.i)} names event ${step.source.event_index}, which manifest.jsonl does not hold; fix the workflow with mime edit first`,
      );
    }
    events.push({ ...event, timestamp: started + events.length * 0.001 });
    return { ...step, source: { ...step.source, event_index: events.length - 1 } };
  };
  /** A screen with no action (the recorder ends a recording with one). */
  const screenOnly = (screenshot: string) =>
    events.push({
      action_type: null,
      action_details: {},
      screenshot,
      timestamp: started + events.length * 0.001,
      details: null,
    });
  /** An executed action recorded as its step: a recorded step at this run's place, or the agent's. */
  const placed = (action: HealAction, original: WorkflowStep | undefined): WorkflowStep => {
    const { index, screenshot } = record(action);
    return original
      ? movedStep(original, action, index, screenshot)
      : agentStep(action, index, screenshot, heal);
  };
  const parts = workflow.plan.subtasks.map((subtask) => subtaskPart(subtask, heal));
  const changes = parts.flatMap((part) => {
    const change = changeOf(part, heal);
    return change ? [change] : [];
  });
  const rejected = new Set(changes.map((c) => c.id).filter((id) => reject.has(id)));
  const isKept = (part: SubtaskPart | undefined) => part !== undefined && rejected.has(part.id);
  const subtasks = parts.map((part, k) => {
    const { subtask, actions, originalOf } = part;
    const kept = isKept(part);
    const steps = kept ? subtask.steps.map(keep) : actions.map((a) => placed(a, originalOf(a)));
    // Where the next subtask comes from the other screen (the recording's or the run's), this one's
    // last step keeps the screen that followed it on its own: a marker with no action holds it.
    const following = parts[k + 1];
    if (following && isKept(following) !== kept && steps.length > 0) {
      const last = steps.at(-1)?.source?.event_index ?? -1;
      const screen = kept
        ? recorded[(subtask.steps.at(-1)?.source?.event_index ?? -2) + 1]?.screenshot
        : (following.actions[0]?.frame ?? heal.final_frame);
      if (last === events.length - 1 && screen) screenOnly(kept ? screen : frameFor(screen));
    }
    return { ...subtask, steps };
  });
  // The end: the recording's last screen after a kept last subtask, else the run's.
  const recordedEnd = recorded.at(-1);
  screenOnly(
    isKept(parts.at(-1)) && recordedEnd?.action_type === null && recordedEnd.screenshot
      ? recordedEnd.screenshot
      : frameFor(heal.final_frame),
  );
  let next = 0;
  const numbered = subtasks.map((s) => ({ ...s, steps: s.steps.map((step) => ({ ...step, i: next++ })) }));
  return {
    workflow: { ...workflow, plan: { ...workflow.plan, subtasks: numbered } },
    events,
    frames,
    changes,
    rejected,
  };
}

/** What a subtask did in the run: its actions, the recorded step of each, and its change's id. */
interface SubtaskPart {
  subtask: Workflow['plan']['subtasks'][number];
  actions: HealAction[];
  /** The recorded step an action replayed (trace or re-found), or undefined for the agent's. */
  originalOf(action: HealAction): WorkflowStep | undefined;
  id: string;
}

function subtaskPart(subtask: SubtaskPart['subtask'], heal: HealFile): SubtaskPart {
  const actions = heal.actions.filter((a) => a.subtask_i === subtask.subtask_i);
  if (actions.length === 0 && subtask.steps.length > 0) {
    throw new HealError(
      'MIME_HEAL_INVALID',
      `run ${heal.run_id} did not replay ${formatSubtask(subtask.subtask_i)}; heal a run that replayed the whole workflow`,
    );
  }
  return {
    subtask,
    actions,
    originalOf: (action) =>
      action.step_i === null || action.by === 'agent'
        ? undefined
        : subtask.steps.find((s) => s.i === action.step_i),
    id: `subtask-${subtask.subtask_i}`,
  };
}

/**
 * The change a subtask makes, or null when it replayed as recorded. One change a subtask: its steps
 * were replayed on one screen, and a trace places each step after a re-found one by the same shift,
 * so a subtask is recorded again whole, or kept whole.
 */
function changeOf({ subtask, actions, originalOf, id }: SubtaskPart, heal: HealFile): HealChange | null {
  const moved = actions.filter((a) => a.by === 'regrounded' && originalOf(a));
  const agentActions = actions.filter((a) => !originalOf(a));
  if (moved.length === 0 && agentActions.length === 0) return null;
  const replaced = subtask.steps.filter((s) => !actions.some((a) => originalOf(a) === s));
  const texts = moved.map((a) => {
    const original = originalOf(a) as WorkflowStep;
    return `${formatStep(original.i, { title: true })} (${original.intent}) is found at its new place`;
  });
  if (agentActions.length > 0) {
    texts.push(
      `${formatSubtask(subtask.subtask_i, { title: true })}: ${agentActions.length} action(s) the agent took replace ${replaced.length} recorded step(s) that no longer fit the screen`,
    );
  }
  const changed = new Set([...moved.map(originalOf), ...replaced]);
  return {
    id,
    kind: agentActions.length > 0 ? 'agent' : 'moved',
    subtask_i: subtask.subtask_i,
    text: texts.join('; '),
    before: subtask.steps.filter((s) => changed.has(s)).map((s) => viewOf(s, 'workflow')),
    after: actions
      .filter((a) => moved.includes(a) || agentActions.includes(a))
      .map((a) => {
        const original = originalOf(a);
        return viewOf(original ? movedStep(original, a, 0, a.frame) : agentStep(a, 0, a.frame, heal), 'run');
      }),
  };
}

/** A recorded step at the place and frame of this run. */
function movedStep(step: WorkflowStep, action: HealAction, index: number, screenshot: string): WorkflowStep {
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
    },
  };
}

/** One of the agent's actions as a recorded step; typed param values written back as `{param}`. */
function agentStep(action: HealAction, index: number, screenshot: string, heal: HealFile): WorkflowStep {
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
    target: { primary: note, fallback: null },
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
function manifestEvent(action: HealAction, screenshot: string, timestamp: number): ManifestEvent {
  const common = {
    screenshot,
    timestamp,
    details: null,
    ...(action.element ? { element: action.element } : {}),
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
