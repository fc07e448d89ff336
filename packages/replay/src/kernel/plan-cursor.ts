/**
 * The plan cursor: which subtask runs now, which are still to run, and the run-wide subtask ids.
 * Executors take the next subtask from it; a replan replaces the current subtask and some of the
 * pending ones. It keeps the record of every subtask started, for the summary.
 */
import type { RunSummary, StepExecution, SubtaskOrigin, WorkflowStep } from '@mime-desktop/schema';
import type { BudgetTracker } from './budgets.ts';
import type { EventSink } from './event-log.ts';
import type { PlannedSubtask } from './plan.ts';
import type { At } from './run-memory.ts';

/** How one workflow step was carried out. */
export interface StepExecutionRecord {
  i: number;
  executed_by: StepExecution;
  reason: string;
}

/** What became of one subtask of a run. */
export interface SubtaskRecord {
  subtask_i: number;
  text: string;
  origin: SubtaskOrigin;
  outcome: RunSummary['subtasks'][number]['outcome'];
  iterations: number;
  duration_ms: number;
  steps: readonly WorkflowStep[];
  /** How each step was carried out: by trace or auto as recorded, or by the agent. */
  executions: StepExecutionRecord[];
}

/** A subtask being run: its record, its turn counter and its end, reported once. */
export class SubtaskEntry {
  readonly subtask: PlannedSubtask;
  readonly record: SubtaskRecord;
  readonly #events: EventSink;
  readonly #started = performance.now();
  #ended = false;
  /** Why auto handed the rest of the subtask to the agent, if it did. */
  #handOverReason: string | null = null;

  constructor(subtask: PlannedSubtask, events: EventSink) {
    this.subtask = subtask;
    this.#events = events;
    this.record = {
      subtask_i: subtask.subtask_i,
      text: subtask.text,
      origin: subtask.origin,
      outcome: 'failed',
      iterations: 0,
      duration_ms: 0,
      steps: subtask.steps,
      executions: [],
    };
  }

  get subtask_i(): number {
    return this.subtask.subtask_i;
  }

  get ended(): boolean {
    return this.#ended;
  }

  /** The next turn of this subtask (trace, auto and agent turns share one count, so names never collide). */
  nextTurn(): At {
    const iteration = this.record.iterations;
    this.record.iterations += 1;
    return { subtask_i: this.record.subtask_i, iteration };
  }

  /** Records how a step was carried out (once per step: a later record replaces an earlier one). */
  recordStep(execution: StepExecutionRecord): void {
    const executions = this.record.executions;
    const at = executions.findIndex((e) => e.i === execution.i);
    if (at >= 0) executions[at] = execution;
    else executions.push(execution);
  }

  /** Auto gave the rest of the subtask to the agent: steps not recorded otherwise are the agent's. */
  handOver(reason: string): void {
    this.#handOverReason = reason;
  }

  /** Ends the subtask: its outcome, duration and `subtask_end`. Later calls do nothing. */
  end(outcome: 'success' | 'failed' | 'replanned'): void {
    if (this.#ended) return;
    this.#ended = true;
    const { record } = this;
    record.outcome = outcome;
    record.duration_ms = performance.now() - this.#started;
    const unexecuted = outcome === 'success' ? 'agent' : 'skipped';
    const reason =
      outcome === 'success'
        ? this.#handOverReason
          ? `handed to the agent: ${this.#handOverReason}`
          : 'agent mode: the model acted on the live screen, with this step as a reference'
        : outcome === 'replanned'
          ? 'the subtask was replaced by a replan'
          : 'not reached: the subtask stopped before it';
    for (const step of record.steps) {
      if (!record.executions.some((e) => e.i === step.i)) {
        record.executions.push({ i: step.i, executed_by: unexecuted, reason });
      }
    }
    record.executions.sort((a, b) => a.i - b.i);
    this.#events.emit({
      type: 'subtask_end',
      subtask_i: record.subtask_i,
      outcome,
      iterations: record.iterations,
      duration_ms: Math.round(record.duration_ms),
    });
  }
}

export interface PlanCursorOptions {
  /** The plan at the start, in order. */
  plan: readonly PlannedSubtask[];
  events: EventSink;
  /** Each subtask started gets a fresh iteration budget. */
  budgets: Pick<BudgetTracker, 'startSubtask'>;
}

export class PlanCursor {
  readonly #events: EventSink;
  readonly #budgets: Pick<BudgetTracker, 'startSubtask'>;
  readonly #entries: SubtaskEntry[] = [];
  #pending: PlannedSubtask[];
  #nextId: number;
  /** Subtasks started and not replaced by a replan: the plan position of the next one. */
  #passed = 0;
  #currentReplaced = false;

  constructor(options: PlanCursorOptions) {
    this.#events = options.events;
    this.#budgets = options.budgets;
    this.#pending = [...options.plan];
    this.#nextId = Math.max(-1, ...options.plan.map((s) => s.subtask_i)) + 1;
  }

  /** The subtask running now (the last one started), if any. */
  get current(): SubtaskEntry | null {
    return this.#entries.at(-1) ?? null;
  }

  /** Subtasks planned but not started, in order (reported as `not_run` when the run ends early). */
  get pending(): readonly PlannedSubtask[] {
    return this.#pending;
  }

  /** Where the current subtask is in the plan as it stands (replaced subtasks not counted): 1-based. */
  get position(): { position: number; count: number } {
    return { position: this.#passed + 1, count: this.#passed + 1 + this.#pending.length };
  }

  /** Starts the next pending subtask (a fresh iteration budget, `subtask_start`); null when none is left. */
  next(): SubtaskEntry | null {
    const subtask = this.#pending.shift();
    if (subtask === undefined) return null;
    if (this.current !== null && !this.#currentReplaced) this.#passed += 1;
    this.#currentReplaced = false;
    this.#budgets.startSubtask();
    this.#events.emit({
      type: 'subtask_start',
      subtask_i: subtask.subtask_i,
      text: subtask.text,
      origin: subtask.origin,
      ...this.position,
    });
    const entry = new SubtaskEntry(subtask, this.#events);
    this.#entries.push(entry);
    return entry;
  }

  /**
   * A replan: the current subtask and the first `count` pending ones are replaced by `revised`, which
   * run next. Give the revised subtasks ids from {@link allocateIds}.
   */
  replace(count: number, revised: readonly PlannedSubtask[]): void {
    this.#currentReplaced = this.current !== null;
    this.#pending = [...revised, ...this.#pending.slice(count)];
  }

  /** `count` new run-wide subtask ids, after every id the run has used: replans never reuse one. */
  allocateIds(count: number): number[] {
    const first = this.#nextId;
    this.#nextId += count;
    return Array.from({ length: count }, (_, k) => first + k);
  }

  /** Ends every subtask still open as failed (the run stopped inside it). */
  endOpen(): void {
    for (const entry of this.#entries) entry.end('failed');
  }

  /** What became of every subtask: those started, then those never reached (`not_run`). */
  outcomes(): SubtaskRecord[] {
    return [
      ...this.#entries.map((entry) => entry.record),
      ...this.#pending.map((s) => ({
        subtask_i: s.subtask_i,
        text: s.text,
        origin: s.origin,
        outcome: 'not_run' as const,
        iterations: 0,
        duration_ms: 0,
        steps: s.steps,
        executions: [],
      })),
    ];
  }
}
