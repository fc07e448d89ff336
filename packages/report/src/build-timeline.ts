/**
 * Groups a run's events into what the report shows in order: subtasks and their turns (one capture,
 * model call and decision each), the replans between them, and what stopped the run.
 */
import type { RunEvent, RunSummary, UnfinishedRunStatus } from '@mime-desktop/schema';
import { type RunEventData, type TypedRunEvent, typedRunEvent } from '@mime-desktop/schema';

/**
 * One turn of a subtask: the screen, what the model saw and chose (agent), or the workflow step
 * carried out (trace, auto), and what happened.
 */
export interface Turn {
  subtask_i: number;
  iteration: number;
  /** ms since the run started, at the turn's first event. */
  at: number;
  capture: RunEventData<'capture'> | null;
  modelCalls: RunEventData<'model_call'>[];
  /** The model's last call of the turn (earlier ones were repaired). */
  call: RunEventData<'tool_call'> | null;
  repairs: RunEventData<'repair'>[];
  action: RunEventData<'action'> | null;
  /** How a workflow step was carried out (trace and auto modes). */
  step: RunEventData<'step'> | null;
  extract: RunEventData<'extract'> | null;
  done: RunEventData<'done'> | null;
  /** The model's claims (done, an extract) checked on the live app. */
  claims: RunEventData<'claim'>[];
  divergences: RunEventData<'divergence'>[];
  /** Checks of the screen after the step that passed. */
  verified: RunEventData<'verify'>[];
  errors: RunEventData<'error'>[];
  /** Events of the turn whose data the report cannot read, shown raw. */
  unreadable: RunEvent[];
}

/** Something outside a turn: what ended the run, or an event the report cannot read. */
export type Notice = { at: number } & (
  | { kind: 'error'; data: RunEventData<'error'> }
  | { kind: 'handover'; data: RunEventData<'handover'> }
  | { kind: 'verify'; data: RunEventData<'verify'> }
  | { kind: 'setup'; data: RunEventData<'setup'> }
  | { kind: 'scope'; data: RunEventData<'agent_scope'> }
  | { kind: 'budget'; data: RunEventData<'budget_exhausted'> }
  | { kind: 'divergence'; data: RunEventData<'divergence'> }
  | { kind: 'unreadable'; event: RunEvent }
);

export type SubtaskOutcome = RunSummary['subtasks'][number]['outcome'] | UnfinishedRunStatus;

/** The check of a subtask's outcome against the recording (trace, auto): passed, or a divergence. */
export type OutcomeCheck =
  | { kind: 'verify'; at: number; data: RunEventData<'verify'> }
  | { kind: 'divergence'; at: number; data: RunEventData<'divergence'> };

export interface SubtaskTimeline {
  subtask_i: number;
  text: string;
  origin: 'workflow' | 'replan';
  /** Position in the plan when it started, and the plan's length then. */
  position: number | null;
  count: number | null;
  /** ms since the run started; null for a subtask that never started. */
  at: number | null;
  /** Started, but the log ends before its end: the run's own word (`running`, `interrupted`, `unfinished`). */
  outcome: SubtaskOutcome;
  durationMs: number | null;
  turns: Turn[];
  notices: Notice[];
  /** The checks of its outcome, after its last turn (not a turn of its own). */
  outcomeChecks: OutcomeCheck[];
  /** How each reference step was carried out, from summary.json (empty without it). */
  steps: RunSummary['subtasks'][number]['steps'];
}

/** A replan: why, the context the model was given, and the new subtasks. */
export interface Replan {
  /** 1-based; the replay saves the screen it replanned from as `replan_<number>.png`. */
  number: number;
  at: number;
  /** The subtask that was replanned. */
  subtask_i: number | null;
  modelCall: RunEventData<'model_call'> | null;
  /** Null when the replan call failed. */
  data: RunEventData<'replan'> | null;
  /** What was done before the replan, as the replay tells the model: executed actions and finished subtasks. */
  completed: string[];
}

export type TimelineBlock =
  | { kind: 'subtask'; subtask: SubtaskTimeline }
  | { kind: 'replan'; replan: Replan }
  | { kind: 'notice'; notice: Notice };

const turnKey = (subtask: number, iteration: number) => `${subtask}:${iteration}`;

class TimelineBuilder {
  readonly blocks: TimelineBlock[] = [];
  readonly #start: number;
  readonly #subtasks = new Map<number, SubtaskTimeline>();
  readonly #turns = new Map<string, Turn>();
  /** Subtasks started and not ended yet. */
  readonly #open = new Set<number>();
  readonly #completed: string[] = [];
  #replan: Replan | null = null;
  #replans = 0;
  /** What a subtask the log ends inside is: what the run is. */
  readonly #openOutcome: UnfinishedRunStatus;

  constructor(startedAt: string, openOutcome: UnfinishedRunStatus) {
    this.#start = Date.parse(startedAt);
    this.#openOutcome = openOutcome;
  }

  add(raw: RunEvent): void {
    const at = Date.parse(raw.time) - this.#start;
    const event = typedRunEvent(raw);
    if (event === null) {
      const turn = this.#turnOf(raw, at);
      if (turn) turn.unreadable.push(raw);
      else this.#notice(raw.subtask_i, { at, kind: 'unreadable', event: raw });
      return;
    }
    this.#addTyped(event, at);
  }

  #addTyped(event: TypedRunEvent, at: number): void {
    switch (event.type) {
      case 'subtask_start':
        this.#startSubtask(event.subtask_i ?? -1, event.data, at);
        return;
      case 'subtask_end': {
        const subtask = this.#subtasks.get(event.subtask_i ?? -1);
        if (subtask) {
          subtask.outcome = event.data.outcome;
          subtask.durationMs = event.data.duration_ms;
        }
        this.#open.delete(event.subtask_i ?? -1);
        return;
      }
      case 'model_call':
        if (event.data.purpose === 'replan') this.#openReplan(event.subtask_i, at).modelCall = event.data;
        else this.#turnOf(event, at)?.modelCalls.push(event.data);
        return;
      case 'replan': {
        const replan = this.#openReplan(event.subtask_i, at);
        replan.data = event.data;
        // What the replay told the model; runs written before it was logged: rebuilt from the events.
        if (event.data.completed.length > 0) replan.completed = event.data.completed;
        this.#replan = null;
        return;
      }
      case 'budget_exhausted':
        this.#notice(event.subtask_i, { at, kind: 'budget', data: event.data });
        return;
      case 'handover':
        this.#notice(event.subtask_i, { at, kind: 'handover', data: event.data });
        return;
      case 'setup':
        this.#notice(null, { at, kind: 'setup', data: event.data });
        return;
      case 'agent_scope':
        this.#notice(event.subtask_i, { at, kind: 'scope', data: event.data });
        return;
      case 'run_start':
      case 'run_end':
      // Said first in the report's cause.
      case 'app_window_gone':
        return;
      default:
        this.#addToTurn(event, at);
    }
  }

  /** A subtask outcome's check goes to its subtask, not to a turn of its own. */
  #addOutcomeCheck(event: TypedRunEvent, at: number): boolean {
    const subtask = this.#subtasks.get(event.subtask_i ?? -1);
    if (!subtask) return false;
    if (event.type === 'verify' && event.data.check === 'subtask_outcome') {
      subtask.outcomeChecks.push({ kind: 'verify', at, data: event.data });
      return true;
    }
    if (event.type === 'divergence' && event.data.check === 'subtask_outcome') {
      subtask.outcomeChecks.push({ kind: 'divergence', at, data: event.data });
      return true;
    }
    return false;
  }

  #addToTurn(event: TypedRunEvent, at: number): void {
    if (this.#addOutcomeCheck(event, at)) return;
    const turn = this.#turnOf(event, at);
    switch (event.type) {
      case 'error':
        if (turn) turn.errors.push(event.data);
        else this.#notice(event.subtask_i, { at, kind: 'error', data: event.data });
        return;
      case 'divergence':
        if (turn) turn.divergences.push(event.data);
        else this.#notice(event.subtask_i, { at, kind: 'divergence', data: event.data });
        return;
      case 'verify':
        if (turn) turn.verified.push(event.data);
        else this.#notice(event.subtask_i, { at, kind: 'verify', data: event.data });
        return;
      case 'capture':
        if (turn) turn.capture = event.data;
        return;
      case 'tool_call':
        if (turn) turn.call = event.data;
        return;
      case 'repair':
        turn?.repairs.push(event.data);
        return;
      case 'action':
        if (turn) turn.action = event.data;
        if (event.data.status === 'executed') this.#completed.push(event.data.description);
        return;
      case 'step':
        if (turn) turn.step = event.data;
        if (event.data.action) this.#completed.push(event.data.description);
        return;
      case 'extract':
        if (turn) turn.extract = event.data;
        return;
      case 'claim':
        turn?.claims.push(event.data);
        return;
      case 'done': {
        if (turn) turn.done = event.data;
        const subtask = this.#subtasks.get(event.subtask_i ?? -1);
        if (subtask) this.#completed.push(`Subtask done: ${subtask.text}`);
        return;
      }
    }
  }

  #startSubtask(subtask_i: number, data: RunEventData<'subtask_start'>, at: number): void {
    const subtask: SubtaskTimeline = {
      subtask_i,
      text: data.text,
      origin: data.origin,
      position: data.position ?? null,
      count: data.count ?? null,
      at,
      outcome: this.#openOutcome,
      durationMs: null,
      turns: [],
      notices: [],
      outcomeChecks: [],
      steps: [],
    };
    this.#subtasks.set(subtask_i, subtask);
    this.#open.add(subtask_i);
    this.blocks.push({ kind: 'subtask', subtask });
  }

  /** The turn an event belongs to, created at its first event; null for events outside turns. */
  #turnOf(event: RunEvent | TypedRunEvent, at: number): Turn | null {
    const { subtask_i, iteration } = event;
    if (subtask_i === null || iteration === null) return null;
    const subtask = this.#subtasks.get(subtask_i);
    if (!subtask) return null;
    const key = turnKey(subtask_i, iteration);
    let turn = this.#turns.get(key);
    if (!turn) {
      turn = {
        subtask_i,
        iteration,
        at,
        capture: null,
        modelCalls: [],
        call: null,
        repairs: [],
        action: null,
        step: null,
        extract: null,
        done: null,
        claims: [],
        divergences: [],
        verified: [],
        errors: [],
        unreadable: [],
      };
      this.#turns.set(key, turn);
      subtask.turns.push(turn);
    }
    return turn;
  }

  #openReplan(subtask_i: number | null, at: number): Replan {
    if (this.#replan) return this.#replan;
    this.#replans += 1;
    this.#replan = {
      number: this.#replans,
      at,
      subtask_i,
      modelCall: null,
      data: null,
      completed: [...this.#completed],
    };
    this.blocks.push({ kind: 'replan', replan: this.#replan });
    return this.#replan;
  }

  /** On the subtask while it runs; after it ended (what stopped the run), in the timeline. */
  #notice(subtask_i: number | null, notice: Notice): void {
    const subtask = subtask_i === null ? undefined : this.#subtasks.get(subtask_i);
    if (subtask && this.#open.has(subtask.subtask_i)) subtask.notices.push(notice);
    else this.blocks.push({ kind: 'notice', notice });
  }

  /** Adds what only the summary knows: the steps of each subtask, and subtasks that never started. */
  complete(summary: RunSummary | null): void {
    for (const entry of summary?.subtasks ?? []) {
      const known = this.#subtasks.get(entry.subtask_i);
      if (known) {
        known.steps = entry.steps;
        continue;
      }
      const subtask: SubtaskTimeline = {
        subtask_i: entry.subtask_i,
        text: entry.text,
        origin: entry.origin,
        position: null,
        count: null,
        at: null,
        outcome: entry.outcome,
        durationMs: null,
        turns: [],
        notices: [],
        outcomeChecks: [],
        steps: entry.steps,
      };
      this.#subtasks.set(entry.subtask_i, subtask);
      this.blocks.push({ kind: 'subtask', subtask });
    }
  }
}

/**
 * The blocks of the report's timeline, in the order they happened; times count from the run_start
 * event. A subtask the log ends inside is `openOutcome`: the run's word for itself (running,
 * interrupted) when it has no summary.
 */
export function buildTimeline(
  events: readonly RunEvent[],
  summary: RunSummary | null,
  openOutcome: UnfinishedRunStatus = 'unfinished',
): TimelineBlock[] {
  const start = events.find((e) => e.type === 'run_start') ?? events[0];
  const builder = new TimelineBuilder(start?.time ?? new Date(0).toISOString(), openOutcome);
  for (const event of events) builder.add(event);
  builder.complete(summary);
  return builder.blocks;
}
