/**
 * Where a run is, from its events: "Step n of N" (n the step's place in the whole plan, N its steps)
 * and what the run is doing now (the check being made), kept up to date as each event comes in.
 */
import { formatPlace, formatSubtask } from './numbering.js';

/** What the run does after each step's event, by how the step was done. */
const AFTER_STEP = {
  trace: 'acting as recorded',
  regrounded: 'acting where the target is now',
  skipped: 'stopped here',
  agent: 'handed to the model',
};

/** Progress of a run of `workflow` (the saved one, which the run replays). */
export class RunProgress {
  /** "Step n of N: what it does", once a step began; else null. */
  step = null;
  /** What the run does now (a check, a wait, the model), else null. */
  now = null;
  /** Who paused the run and how it waits, while it is paused; else null. */
  paused = null;

  constructor(workflow) {
    this.subtasks = workflow.plan.subtasks;
    this.steps = this.subtasks.flatMap((s) => s.steps);
  }

  /** "step n of N" for step `i` (its place in the plan, 1-based). */
  of(i) {
    const at = this.steps.findIndex((s) => s.i === i);
    return `step ${(at === -1 ? i : at) + 1} of ${this.steps.length}`;
  }

  /** What the run does before step `i`: waits for its recorded screen. */
  lookFor(i) {
    const step = this.steps.find((s) => s.i === i);
    return `looking for the recorded screen of ${this.of(i)}${step ? ` (${step.intent})` : ''}`;
  }

  /** What comes after step `i`: the next step of its subtask, else the subtask's outcome check. */
  after(i) {
    const subtask = this.subtasks.find((s) => s.steps.some((step) => step.i === i));
    const next = subtask?.steps[subtask.steps.findIndex((step) => step.i === i) + 1];
    if (next) return this.lookFor(next.i);
    if (!subtask) return 'going on';
    return `checking the outcome of ${formatSubtask(subtask.subtask_i)} against the recording`;
  }

  /** Takes `event` (with who paused it, for a pause) in. */
  take(event, by) {
    const then = TAKE[event.type];
    if (then) then(this, event, by);
  }
}

const who = (event, by) =>
  by === 'studio' ? 'from the studio' : `by the hotkey${event.hotkey ? ` ${event.hotkey}` : ''}`;

/** How each event moves the progress on. */
const TAKE = {
  run_start: (p) => {
    p.now = 'starting the app or finding its window';
  },
  setup: (p, e) => {
    const first = p.steps[0];
    const app = e.fresh
      ? 'the app was restarted fresh'
      : e.launched
        ? 'the app was started'
        : 'the app is open';
    p.now = first ? `${app}; ${p.lookFor(first.i)}` : app;
  },
  subtask_start: (p, e) => {
    const subtask = p.subtasks[e.subtask_i ?? -1];
    const first = e.origin === 'workflow' ? subtask?.steps[0] : undefined;
    p.now = first
      ? p.lookFor(first.i)
      : `${formatSubtask(e.subtask_i ?? e.position - 1)}: the model works on "${e.text}"`;
  },
  step: (p, e) => {
    const place = p.of(e.step_i);
    p.step = `${place[0].toUpperCase()}${place.slice(1)} · ${formatPlace(e.subtask_i, e.step_i)}: ${e.description}`;
    p.now =
      e.executed_by === 'trace' || e.executed_by === 'regrounded'
        ? `${AFTER_STEP[e.executed_by]}, then ${p.after(e.step_i)}`
        : `${AFTER_STEP[e.executed_by] ?? e.executed_by}: ${e.reason}`;
  },
  verify: (p, e) => {
    if (e.check === 'subtask_outcome')
      p.now = `${formatSubtask(e.subtask_i ?? 0)}'s outcome matches the recording`;
    else if (e.step_i !== null) p.now = `${p.of(e.step_i)} checked; ${p.after(e.step_i)}`;
  },
  divergence: (p, e) => {
    p.now = `the screen differs from the recording at ${e.step_i === null ? 'the outcome check' : p.of(e.step_i)}`;
  },
  handover: (p, e) => {
    p.now = `handed to the model: ${e.reason}`;
  },
  model_call: (p) => {
    p.now = 'the model answered; acting on it';
  },
  paused: (p, e, by) => {
    p.paused = `Paused ${who(e, by)}: the run waits before its next action`;
  },
  resumed: (p) => {
    p.paused = null;
  },
  run_end: (p, e) => {
    p.now = null;
    p.paused = null;
    p.step = p.step ?? (e.outcome === 'success' ? null : 'Before the first step');
  },
};

/** The log line of a pause or resume, naming who did it. */
export const pauseLine = (event, by) =>
  event.type === 'paused'
    ? `Paused ${who(event, by)}: the run waits before its next action`
    : `Resumed ${who(event, by)}`;
