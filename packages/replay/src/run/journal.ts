/**
 * The run journal: the one owner of what a run did and the only writer of its files. Executors
 * (trace, auto, agent) are policies that ask it for subtask ids and frame names and tell it what they
 * did; it keeps the records the summary is built from, the completed-step context a replan is given
 * (seed 004), the extracts and the task memory, and writes events.jsonl, the screenshots and the JSON
 * files through the run folder's queue, redacted.
 */
import type { RawFrame } from '@mime-desktop/os-io';
import {
  RUN_FILES,
  type RunEvent,
  type RunSummary,
  type StepExecution,
  type SubtaskOrigin,
  type WorkflowStep,
} from '@mime-desktop/schema';
import type { BudgetTracker } from './budgets.ts';
import { type ReplayEvent, type ReplayEventListener, toRunEvent } from './events.ts';
import type { PlannedSubtask } from './plan.ts';
import type { Redactor } from './redact.ts';
import type { RunFolder } from './run-folder.ts';

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

/** Where in the run something happened. */
export interface At {
  subtask_i: number;
  iteration: number;
}

/** A subtask being run: its record, its turn counter and its end, reported once. */
export class SubtaskEntry {
  readonly record: SubtaskRecord;
  readonly #journal: RunJournal;
  readonly #started = performance.now();
  #ended = false;
  /** Why auto handed the rest of the subtask to the agent, if it did. */
  #handOverReason: string | null = null;

  constructor(journal: RunJournal, record: SubtaskRecord) {
    this.#journal = journal;
    this.record = record;
  }

  get subtask_i(): number {
    return this.record.subtask_i;
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
    this.#journal.emit({
      type: 'subtask_end',
      subtask_i: record.subtask_i,
      outcome,
      iterations: record.iterations,
      duration_ms: Math.round(record.duration_ms),
    });
  }
}

export interface RunJournalOptions {
  folder: RunFolder;
  redact: Redactor;
  budgets: BudgetTracker;
  onEvent?: ReplayEventListener;
  /** The plan at the start: subtasks not yet run, and the first free subtask id after theirs. */
  plan: readonly PlannedSubtask[];
}

export class RunJournal {
  readonly #log: RunEvent[] = [];
  readonly folder: RunFolder;
  readonly redact: Redactor;
  /** Subtasks started, in order. */
  readonly records: SubtaskRecord[] = [];
  /** Extracted values, by variable (real values: written redacted). */
  readonly extracts = new Map<string, string>();
  /** Subtasks finished with success, by text, for the agent's prompt. */
  readonly completedSubtasks: string[] = [];
  readonly #budgets: BudgetTracker;
  readonly #onEvent: ReplayEventListener | undefined;
  /** What was done, one line each (executed actions, traced steps, finished subtasks): a replan's context. */
  readonly #completed: string[] = [];
  readonly #frames = new Set<string>();
  #pending: PlannedSubtask[];
  #nextSubtaskId: number;
  #taskMemory = '';
  #replanFrames = 0;
  #entries: SubtaskEntry[] = [];

  constructor(options: RunJournalOptions) {
    this.folder = options.folder;
    this.redact = options.redact;
    this.#budgets = options.budgets;
    this.#onEvent = options.onEvent;
    this.#pending = [...options.plan];
    this.#nextSubtaskId = Math.max(-1, ...options.plan.map((s) => s.subtask_i)) + 1;
  }

  /** Redacts the event, appends it to events.jsonl and tells `onEvent`. */
  emit(event: ReplayEvent): void {
    const safe = this.redact.value(event);
    const line = toRunEvent(safe, new Date());
    this.#log.push(line);
    this.folder.appendEvent(line);
    this.#onEvent?.(safe);
  }

  /** Every event emitted so far, as written to events.jsonl (redacted). */
  get log(): readonly RunEvent[] {
    return this.#log;
  }

  /** Subtasks planned but not started (reported as `not_run` when the run ends early). */
  get pending(): readonly PlannedSubtask[] {
    return this.#pending;
  }

  setPending(pending: readonly PlannedSubtask[]): void {
    this.#pending = [...pending];
  }

  /** `count` new run-wide subtask ids, after every id the run has used: replans and hand-overs never reuse one. */
  allocateSubtaskIds(count: number): number[] {
    const first = this.#nextSubtaskId;
    this.#nextSubtaskId += count;
    return Array.from({ length: count }, (_, k) => first + k);
  }

  /** Starts a subtask: its record, a fresh iteration budget, and `subtask_start`. */
  beginSubtask(subtask: PlannedSubtask, position: { index: number; count: number }): SubtaskEntry {
    const record: SubtaskRecord = {
      subtask_i: subtask.subtask_i,
      text: subtask.text,
      origin: subtask.origin,
      outcome: 'failed',
      iterations: 0,
      duration_ms: 0,
      steps: subtask.steps,
      executions: [],
    };
    this.records.push(record);
    this.#pending = this.#pending.filter((s) => s.subtask_i !== subtask.subtask_i);
    this.#budgets.startSubtask();
    this.emit({
      type: 'subtask_start',
      subtask_i: subtask.subtask_i,
      text: subtask.text,
      origin: subtask.origin,
      position: position.index + 1,
      count: position.count,
    });
    const entry = new SubtaskEntry(this, record);
    this.#entries.push(entry);
    return entry;
  }

  /** The last subtask started, if any. */
  get lastSubtask(): number | null {
    return this.records.at(-1)?.subtask_i ?? null;
  }

  /** Ends every subtask still open as failed (the run stopped inside it). */
  endOpenSubtasks(): void {
    for (const entry of this.#entries) entry.end('failed');
  }

  /** Notes something done, for a replan's completed-step context. */
  noteCompleted(line: string): void {
    this.#completed.push(line);
  }

  /** A subtask finished with success; `result` is what the model said it achieved, if anything. */
  noteSubtaskDone(text: string, result: string | null = null): void {
    const done = result ? `${text} (result: ${result})` : text;
    this.completedSubtasks.push(done);
    this.#completed.push(`Subtask done: ${done}`);
  }

  /** The latest completed-step lines, oldest first (redacted only when written). */
  completed(limit = 40): string[] {
    return this.#completed.slice(-limit);
  }

  get taskMemory(): string {
    return this.#taskMemory;
  }

  /** Keeps the model's task memory and writes task_memory.json. */
  /** Keeps the model's task memory; `null` (a model that sent none) keeps the last one. */
  remember(memory: string | null, at: At): void {
    if (memory === null) return;
    this.#taskMemory = memory;
    this.folder.writeJson(RUN_FILES.taskMemory, {
      task_memory: this.redact.text(memory),
      subtask_i: at.subtask_i,
      iteration: at.iteration,
      updated_at: new Date().toISOString(),
    });
  }

  /** Stores an extracted value, writes extracts.json and reports it. */
  storeExtract(variable: string, query: string, value: string, at: At): void {
    this.extracts.set(variable, value);
    this.emit({ type: 'extract', ...at, variable, query, value });
    this.folder.writeJson(RUN_FILES.extracts, this.redact.value(Object.fromEntries(this.extracts)));
  }

  /** Saves a full frame under `name`, or under a unique variant when the name was used; returns the name used. */
  saveFrame(name: string, frame: RawFrame): string {
    const unique = this.#claim(name);
    this.folder.saveFrame(unique, frame);
    return unique;
  }

  /** Writes an image (a divergence crop) under a unique name; returns the name used. */
  saveImage(name: string, png: Buffer): string {
    const unique = this.#claim(name);
    this.folder.writeFile(unique, png);
    return unique;
  }

  /** The next `replan_<n>.png` name. */
  nextReplanFrame(): string {
    this.#replanFrames += 1;
    return `replan_${this.#replanFrames}.png`;
  }

  #claim(name: string): string {
    let unique = name;
    for (let n = 2; this.#frames.has(unique); n += 1) unique = name.replace(/(\.\w+)$/, `_${n}$1`);
    this.#frames.add(unique);
    return unique;
  }
}
