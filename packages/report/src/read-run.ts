/**
 * Reads a run folder (`<workflow>/.replay/<run_id>/`, see DESIGN.md "Files"): the events are
 * required; the summary, rendered workflow, task memory and extracts are read when present, so a run
 * that was killed before its summary still has a report.
 */
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import {
  type Problem,
  RunEvent,
  RunSummary,
  readJsonFile,
  readJsonlFile,
  ValidationError,
  Workflow,
  zodProblems,
} from '@mime-desktop/schema';
import { z } from 'zod';
import { NotARunError } from './errors.ts';

/** The files of a run the report reads. */
export const RUN_FILE_NAMES = {
  events: 'events.jsonl',
  summary: 'summary.json',
  renderedSchema: 'schema.rendered.json',
  taskMemory: 'task_memory.json',
  extracts: 'extracts.json',
} as const;

/** `task_memory.json`: the model's memory after its last turn. */
const TaskMemoryFile = z.object({
  task_memory: z.string(),
  subtask_i: z.number().nullable().default(null),
  iteration: z.number().nullable().default(null),
  updated_at: z.string().nullable().default(null),
});
export type TaskMemoryFile = z.infer<typeof TaskMemoryFile>;

const ExtractsFile = z.record(z.string(), z.string());

/** The name of a run's folder: `20261122T101500Z-3fa2`. */
const RUN_ID = /^\d{8}T\d{6}Z-/;

/** What a run folder holds. Sensitive values are already `{name}` in all of it. */
export interface RunArtifacts {
  dir: string;
  events: RunEvent[];
  summary: RunSummary | null;
  workflow: Workflow | null;
  taskMemory: TaskMemoryFile | null;
  extracts: Record<string, string> | null;
  /** Names of the files in the folder. */
  files: ReadonlySet<string>;
}

async function listFolder(dir: string): Promise<Set<string>> {
  let isDirectory: boolean;
  try {
    isDirectory = (await stat(dir)).isDirectory();
  } catch {
    throw new NotARunError(dir, 'no such folder');
  }
  if (!isDirectory) throw new NotARunError(dir, 'it is a file, not a folder');
  return new Set(await readdir(dir));
}

/** A hint for a folder that is not a run but may hold runs (a workflow, or its `.replay`). */
function missingEventsReason(files: ReadonlySet<string>): string {
  const missing = [
    RUN_FILE_NAMES.events,
    ...(files.has(RUN_FILE_NAMES.summary) ? [] : [RUN_FILE_NAMES.summary]),
  ];
  const reason = `${missing.join(' and ')} ${missing.length === 1 ? 'is' : 'are'} missing`;
  if (files.has('.replay')) return `${reason} (this looks like a workflow folder: its runs are in .replay/)`;
  const newest = [...files]
    .filter((name) => RUN_ID.test(name))
    .sort()
    .at(-1);
  return newest ? `${reason} (this folder holds runs: pass one, e.g. ${newest})` : reason;
}

async function readOptional<T>(
  dir: string,
  files: ReadonlySet<string>,
  name: string,
  what: string,
  schema: z.ZodType<T>,
): Promise<T | null> {
  if (!files.has(name)) return null;
  const file = join(dir, name);
  const parsed = schema.safeParse(await readJsonFile(file));
  if (!parsed.success) throw new ValidationError(file, what, zodProblems(parsed.error));
  return parsed.data;
}

async function readEvents(file: string): Promise<RunEvent[]> {
  const events: RunEvent[] = [];
  const problems: Problem[] = [];
  for (const { line, value } of await readJsonlFile(file)) {
    const parsed = RunEvent.safeParse(value);
    if (parsed.success) events.push(parsed.data);
    else problems.push(...zodProblems(parsed.error, [`line ${line}`]));
  }
  if (problems.length > 0) throw new ValidationError(file, 'run event log', problems);
  return events;
}

/**
 * Reads a run folder. Throws {@link NotARunError} when `dir` is not one, and the errors of
 * @mime-desktop/schema (`MIME_INVALID_JSON`, `MIME_INVALID_FILE`) for a file that is damaged.
 */
export async function readRun(dir: string): Promise<RunArtifacts> {
  const files = await listFolder(dir);
  if (!files.has(RUN_FILE_NAMES.events)) throw new NotARunError(dir, missingEventsReason(files));
  const events = await readEvents(join(dir, RUN_FILE_NAMES.events));
  if (!events.some((e) => e.type === 'run_start')) {
    throw new NotARunError(dir, `${RUN_FILE_NAMES.events} has no run_start event`);
  }
  const [summary, workflow, taskMemory, extracts] = await Promise.all([
    readOptional(dir, files, RUN_FILE_NAMES.summary, 'run summary', RunSummary),
    readOptional(dir, files, RUN_FILE_NAMES.renderedSchema, 'rendered workflow', Workflow),
    readOptional(dir, files, RUN_FILE_NAMES.taskMemory, 'task memory file', TaskMemoryFile),
    readOptional(dir, files, RUN_FILE_NAMES.extracts, 'extracts file', ExtractsFile),
  ]);
  return { dir, events, summary, workflow, taskMemory, extracts, files };
}
