/**
 * What a run's journal (`events.jsonl`) says of a run that has no summary yet: its mode, when it
 * started, the process running it, and the last step it began. Read for runs going on or killed.
 */
import { join } from 'node:path';
import { readJsonlFile } from './json-files.ts';
import { RUN_FILES, RunEvent, type RunEventData, typedRunEvent } from './run.ts';

/** The process running a replay, as its `run_start` event records it. */
export type RunProcess = NonNullable<RunEventData<'run_start'>['process']>;

/** The last step a run began (trace and auto modes). */
export interface RunLastStep {
  subtask_i: number | null;
  step_i: number;
  description: string;
}

export interface RunJournal {
  mode: string;
  started_at: string;
  /** Null for runs written before it was recorded. */
  process: RunProcess | null;
  last_step: RunLastStep | null;
}

/**
 * The journal of the run in `dir`, or null when it has no `run_start` yet (or no journal). A line
 * that is no run event is passed over: a run's own journal being written is read, not checked.
 */
export async function readRunJournal(dir: string): Promise<RunJournal | null> {
  const lines = await readJsonlFile(join(dir, RUN_FILES.events)).catch(() => []);
  let journal: RunJournal | null = null;
  for (const { value } of lines) {
    const parsed = RunEvent.safeParse(value);
    const event = parsed.success ? typedRunEvent(parsed.data) : null;
    if (event?.type === 'run_start') {
      journal = {
        mode: event.data.mode,
        started_at: event.time,
        process: event.data.process ?? null,
        last_step: null,
      };
    } else if (event?.type === 'step' && journal) {
      const { step_i, description } = event.data;
      journal.last_step = { subtask_i: event.subtask_i, step_i, description };
    }
  }
  return journal;
}
