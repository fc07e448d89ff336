import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
/**
 * What a data root holds (`<home>/recordings/<id>/`, `<home>/workflows/<id>/` and their runs), as
 * `mime list`, the MCP server and the studio show it.
 */
import { FileReadError, isMimeError } from './errors.ts';
import { readJsonFile, readJsonlFile } from './json-files.ts';
import { readOptimizedPlan } from './optimized-plan.ts';
import { type PlanExecutor, workflowExecutors } from './plan-executors.ts';
import { readRecordingMetadata } from './recording.ts';
import { RunSummary } from './run.ts';
import { type RunLastStep, type RunProcess, readRunJournal } from './run-journal.ts';
import { type RunState, unfinishedRunState } from './run-state.ts';
import { type SafetyFacts, safetyFactsOf } from './safety.ts';
import { checkWorkflow, readWorkflowContext, WORKFLOW_FILE } from './workflow-file.ts';

export interface RecordingEntry {
  session_id: string;
  dir: string;
  name: string | null;
  created_at: string | null;
  /** Recorded actions (the end marker not counted). */
  events: number;
  /** Why the entry could not be read fully, or null. */
  problem: string | null;
}

export interface RunEntry {
  run_id: string;
  dir: string;
  mode: string | null;
  outcome: string | null;
  started_at: string | null;
  duration_ms: number | null;
  /** Ended, going on, interrupted (its process gone without a summary), or unknown; as of the listing. */
  state: RunState;
  /** A run without a summary: the process its journal names as running it, or null (ended, or older). */
  process: RunProcess | null;
  /** A run without a summary: the last step it began, or null. */
  last_step: RunLastStep | null;
  problem: string | null;
}

export interface WorkflowEntry {
  session_id: string;
  dir: string;
  name: string | null;
  created_at: string | null;
  /** `ready` (valid schema.json), `draft` (reflect not finished) or `invalid`. */
  state: 'ready' | 'draft' | 'invalid';
  subtasks: number;
  steps: number;
  params: string[];
  /** What the workflow says it needs and does (login, side effects, payment), null until it reads. */
  safety: SafetyFacts | null;
  /**
   * The steps its optimized_plan.json (ai_mime's Pass C) does by a script or a browser script, with
   * what each would do and the URL it opens (with the params' examples); mime replays the UI instead.
   */
  executors: PlanExecutor[];
  runs: RunEntry[];
  /** The newest run, or null. */
  last_run: RunEntry | null;
  problem: string | null;
}

export interface Inventory {
  home: string;
  recordings: RecordingEntry[];
  workflows: WorkflowEntry[];
}

async function subdirs(dir: string): Promise<string[]> {
  try {
    const entries = await readdir(dir, { withFileTypes: true });
    return entries
      .filter((e) => e.isDirectory())
      .map((e) => e.name)
      .sort();
  } catch {
    return [];
  }
}

const reason = (error: unknown) => (isMimeError(error) ? error.message : String(error));
const isoOf = async (path: string) => (await stat(path)).mtime.toISOString();

async function readRecording(dir: string, session_id: string): Promise<RecordingEntry> {
  const entry: RecordingEntry = { session_id, dir, name: null, created_at: null, events: 0, problem: null };
  try {
    const metadata = await readRecordingMetadata(join(dir, 'metadata.json'));
    entry.name = metadata.name;
    entry.created_at = metadata.created_at ?? (await isoOf(join(dir, 'metadata.json')));
    const lines = await readJsonlFile(join(dir, 'manifest.jsonl'));
    entry.events = lines.filter(
      (l) => (l.value as { action_type?: unknown } | null)?.action_type != null,
    ).length;
  } catch (error) {
    entry.problem = reason(error);
  }
  return entry;
}

/** The `problem` of a run with no summary: going on, or killed. */
const RUN_WITHOUT_SUMMARY = 'no summary (still running, or killed)';

/** Run folder `dir` as `listHome` lists it (`run_id`: its folder's name). */
export async function readRunEntry(dir: string, run_id: string): Promise<RunEntry> {
  const entry: RunEntry = {
    run_id,
    dir,
    mode: null,
    outcome: null,
    started_at: null,
    duration_ms: null,
    state: 'ended',
    process: null,
    last_step: null,
    problem: null,
  };
  try {
    const summary = RunSummary.parse(await readJsonFile(join(dir, 'summary.json')));
    Object.assign(entry, {
      mode: summary.mode,
      outcome: summary.outcome,
      started_at: summary.started_at,
      duration_ms: summary.duration_ms,
    });
  } catch (error) {
    const missing = error instanceof FileReadError;
    entry.problem = missing ? RUN_WITHOUT_SUMMARY : reason(error);
    // Going on or killed: what its journal says so far.
    const journal = missing ? await readRunJournal(dir) : null;
    entry.started_at = journal?.started_at ?? (await isoOf(dir).catch(() => null));
    entry.state = missing ? unfinishedRunState(journal, entry.started_at) : 'unknown';
    if (journal) {
      Object.assign(entry, { mode: journal.mode, process: journal.process, last_step: journal.last_step });
    }
  }
  return entry;
}

/** One workflow folder as `listHome` lists it (`session_id`: its folder's name). */
export async function readWorkflowEntry(dir: string, session_id: string): Promise<WorkflowEntry> {
  const entry: WorkflowEntry = {
    session_id,
    dir,
    name: null,
    created_at: null,
    state: 'draft',
    subtasks: 0,
    steps: 0,
    params: [],
    safety: null,
    executors: [],
    runs: [],
    last_run: null,
    problem: null,
  };
  const runsDir = join(dir, '.replay');
  entry.runs = await Promise.all((await subdirs(runsDir)).map((id) => readRunEntry(join(runsDir, id), id)));
  entry.runs.sort((a, b) => (a.started_at ?? '').localeCompare(b.started_at ?? ''));
  entry.last_run = entry.runs.at(-1) ?? null;
  try {
    const metadata = await readRecordingMetadata(join(dir, 'metadata.json'));
    entry.name = metadata.name;
    entry.created_at = metadata.created_at ?? null;
  } catch {
    // A hand-made workflow may have no metadata; the schema's task name is used below.
  }
  const file = join(dir, WORKFLOW_FILE);
  try {
    entry.created_at ??= await isoOf(file);
  } catch {
    entry.problem = 'no schema.json yet: run `mime reflect` to finish it';
    return entry;
  }
  try {
    const result = checkWorkflow(await readJsonFile(file), await readWorkflowContext(dir));
    if (!result.ok) {
      entry.state = 'invalid';
      entry.problem = `${result.problems.length} problem(s): run \`mime validate ${dir}\``;
      return entry;
    }
    const { workflow } = result;
    entry.state = 'ready';
    entry.name = workflow.task_name;
    entry.subtasks = workflow.plan.subtasks.length;
    entry.steps = workflow.plan.subtasks.reduce((n, s) => n + s.steps.length, 0);
    entry.params = workflow.task_params.map((p) => p.name);
    entry.safety = safetyFactsOf(workflow);
    entry.executors = workflowExecutors(workflow, (await readOptimizedPlan(dir)).plan);
  } catch (error) {
    entry.state = 'invalid';
    entry.problem = reason(error);
  }
  return entry;
}

/** Everything under a data root: recordings, workflows and their runs. Unreadable entries are listed with the reason. */
export async function listHome(home: string): Promise<Inventory> {
  const recordingsDir = join(home, 'recordings');
  const workflowsDir = join(home, 'workflows');
  const [recordings, workflows] = await Promise.all([
    Promise.all((await subdirs(recordingsDir)).map((id) => readRecording(join(recordingsDir, id), id))),
    Promise.all((await subdirs(workflowsDir)).map((id) => readWorkflowEntry(join(workflowsDir, id), id))),
  ]);
  return { home, recordings, workflows };
}
