/**
 * What the run knows as it goes: the extracted values, the model's task memory, and the completed-step
 * lines a replan is given (seed 004). Its files (extracts.json, task_memory.json) go through the log.
 */
import { RUN_FILES } from '@mime-desktop/schema';
import type { EventLog } from './event-log.ts';

/** Where in the run something happened. */
export interface At {
  subtask_i: number;
  iteration: number;
}

export class RunMemory {
  readonly #log: EventLog;
  readonly #extracts = new Map<string, string>();
  /** Subtasks finished with success, by text (and result), for the agent's prompt. */
  readonly #doneSubtasks: string[] = [];
  /** What was done, one line each (executed actions, traced steps, finished subtasks): a replan's context. */
  readonly #completed: string[] = [];
  #taskMemory = '';

  /** A memory that writes nothing until told something (see {@link RunMemory.start}). */
  constructor(log: EventLog) {
    this.#log = log;
  }

  /** A run's memory, its empty extracts.json and task_memory.json written: the files exist from its start. */
  static start(log: EventLog): RunMemory {
    log.writeJson(RUN_FILES.extracts, {});
    log.writeJson(RUN_FILES.taskMemory, {
      task_memory: '',
      subtask_i: null,
      iteration: null,
      updated_at: null,
    });
    return new RunMemory(log);
  }

  /** Extracted values, by variable (real values: written redacted). */
  get extracts(): ReadonlyMap<string, string> {
    return this.#extracts;
  }

  /** Subtasks finished with success, oldest first. */
  get doneSubtasks(): readonly string[] {
    return this.#doneSubtasks;
  }

  get taskMemory(): string {
    return this.#taskMemory;
  }

  /** Notes something done, for a replan's completed-step context. */
  noteCompleted(line: string): void {
    this.#completed.push(line);
  }

  /** A subtask finished with success; `result` is what the model said it achieved, if anything. */
  noteSubtaskDone(text: string, result: string | null = null): void {
    const done = result ? `${text} (result: ${result})` : text;
    this.#doneSubtasks.push(done);
    this.#completed.push(`Subtask done: ${done}`);
  }

  /** The latest completed-step lines, oldest first (redacted only when written). */
  completed(limit = 40): string[] {
    return this.#completed.slice(-limit);
  }

  /** Keeps the model's task memory and writes task_memory.json; `null` (a model that sent none) keeps the last one. */
  remember(memory: string | null, at: At): void {
    if (memory === null) return;
    this.#taskMemory = memory;
    this.#log.writeJson(RUN_FILES.taskMemory, {
      task_memory: memory,
      subtask_i: at.subtask_i,
      iteration: at.iteration,
      updated_at: new Date().toISOString(),
    });
  }

  /** Stores an extracted value, reports it and writes extracts.json. */
  storeExtract(variable: string, query: string, value: string, at: At): void {
    this.#extracts.set(variable, value);
    this.#log.emit({ type: 'extract', ...at, variable, query, value });
    this.#log.writeJson(RUN_FILES.extracts, Object.fromEntries(this.#extracts));
  }
}
