/**
 * The workflows of a mime home as the studio shows and saves them. A workflow is named by its folder
 * under `<home>/workflows/`; every path a request names stays inside it (the guard the CLI uses).
 * Saving validates with the schema's own checks, takes the folder's lock, refuses to overwrite a file
 * changed on disk since it was opened (its version, the SHA-256 of its bytes), keeps the previous file
 * beside it as `schema.<time>.json` (as a heal does) and writes atomically. Recordings are listed
 * (reflected or not) and found under `<home>/recordings/`, a workflow's runs under its `.replay/`,
 * each by its folder's name, never a path.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { cp, mkdir } from 'node:fs/promises';
import { basename, join } from 'node:path';
import {
  backupStamp,
  checkWorkflow,
  copyFileUnique,
  type FileAccess,
  isMissingFileError,
  listHome,
  MAX_JSON_BYTES,
  MimeError,
  type PlanExecutor,
  type Problem,
  parseJsonText,
  RUN_FILES,
  RUNS_FOLDER,
  type RunEntry,
  type RunLastStep,
  type RunState,
  readOptimizedPlan,
  readPngInside,
  readRegularFile,
  readRunEntry,
  readWorkflowContext,
  readWorkflowEntry,
  resolveInside,
  slugOf,
  upgradeWorkflowDocument,
  WORKFLOW_FILE,
  type Workflow,
  type WorkflowEntry,
  withFolderLock,
  workflowExecutors,
  workflowFileAccess,
  writeWorkflow,
} from '@mime-desktop/schema';
import { StudioEditError } from './edit-error.ts';

/** No workflow of that name in the home. */
export class WorkflowNotFoundError extends MimeError {
  constructor(id: string) {
    super('MIME_NOT_FOUND', `no workflow named "${id}" in this home`);
  }
}

/** The workflow as saved would not be valid: nothing was written; the problems say where. */
export class WorkflowInvalidError extends MimeError {
  readonly problems: Problem[];

  constructor(problems: Problem[]) {
    super(
      'MIME_INVALID_WORKFLOW',
      `the workflow is not valid (${problems.length} problem${problems.length === 1 ? '' : 's'}): nothing was saved`,
    );
    this.problems = problems;
  }
}

/** The file changed on disk since the page loaded it: not overwritten. */
export class WorkflowConflictError extends MimeError {
  readonly version: string;

  constructor(file: string, version: string) {
    super(
      'MIME_EDIT_CONFLICT',
      `${file} changed on disk since you opened it (an edit, a heal or a reflect): it was not overwritten; reload it and make your change again`,
    );
    this.version = version;
  }
}

/** No run of that name in the workflow's runs. */
export class RunNotFoundError extends MimeError {
  constructor(id: string, run: string) {
    super('MIME_NOT_FOUND', `workflow "${id}" has no run "${run}"`);
  }
}

/** No recording of that name in the home. */
export class RecordingNotFoundError extends MimeError {
  constructor(id: string) {
    super('MIME_NOT_FOUND', `no recording named "${id}" in this home`);
  }
}

/** The largest report.html the studio shows (its screenshots are embedded). */
const MAX_REPORT_BYTES = 64 * 1024 * 1024;
/** What a copy of a workflow leaves out: its runs, its backups, its lock. */
const notCopied = (name: string) =>
  name === RUNS_FOLDER || name === '.mime.lock' || /^schema\.\d{8}T\d+Z(-\d+)?\.json$/.test(name);
/** A folder name: a workflow's or a run's. */
const FOLDER_NAME = /^\w[\w.-]*$/;

/** A workflow in the list. */
export interface WorkflowSummary {
  id: string;
  name: string | null;
  state: 'ready' | 'draft' | 'invalid';
  params: string[];
  steps: number;
  last_run: { run_id: string; outcome: string | null; started_at: string | null; state: RunState } | null;
  /** The first step's screenshot, relative to the workflow folder. */
  thumbnail: string | null;
  problem: string | null;
}

/** A recording of the home, and whether its workflow is made. */
export interface RecordingSummary {
  id: string;
  name: string | null;
  created_at: string | null;
  events: number;
  /** Its workflow is made and valid (reflected). */
  reflected: boolean;
  problem: string | null;
}

/** A workflow opened for review and editing. */
export interface OpenedWorkflow {
  id: string;
  workflow: Workflow;
  /** SHA-256 of schema.json as read: a save names it, and is refused if the file changed since. */
  version: string;
  /** What reading an older (ai_mime) layout changed. */
  warnings: Problem[];
  runs: RunListing[];
  /** The files the workflow says it may read and write (its optimized_plan.json), or null without one. */
  files: FileAccess | null;
  /** The Pass C steps ai_mime does by a script or a browser script (shown, never run by mime). */
  executors: PlanExecutor[];
}

/** A run as the workflow page lists it. */
export interface RunListing {
  run_id: string;
  mode: string | null;
  outcome: string | null;
  started_at: string | null;
  duration_ms: number | null;
  /** Ended, going on (from this studio or another process), interrupted (killed), or unknown. */
  state: RunState;
  /** A run going on: the last step it began, or null. */
  step: RunLastStep | null;
}

/** A run as {@link WorkflowStore.runs} lists it: the step of a run going on only. */
function runListing(entry: RunEntry): RunListing {
  const { run_id, mode, outcome, started_at, duration_ms, state } = entry;
  const step = state === 'running' ? entry.last_step : null;
  return { run_id, mode, outcome, started_at, duration_ms, state, step };
}

const versionOf = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');

export class WorkflowStore {
  readonly home: string;

  constructor(home: string) {
    this.home = home;
  }

  /** The home's workflows, and its recordings with whether each is reflected. */
  async list(): Promise<{ workflows: WorkflowSummary[]; recordings: RecordingSummary[] }> {
    const { workflows, recordings } = await listHome(this.home);
    const ready = new Set(workflows.filter((w) => w.state === 'ready').map((w) => w.session_id));
    return {
      workflows: await this.#summaries(workflows),
      recordings: recordings.map((r) => ({
        id: r.session_id,
        name: r.name,
        created_at: r.created_at,
        events: r.events,
        reflected: ready.has(r.session_id),
        problem: r.problem,
      })),
    };
  }

  async #summaries(workflows: WorkflowEntry[]): Promise<WorkflowSummary[]> {
    return Promise.all(
      workflows.map(async (entry) => {
        // listHome read the runs already: only the workflow itself is read again, for its first frame.
        const opened =
          entry.state === 'invalid' ? null : await this.#read(entry.session_id).catch(() => null);
        const first = opened?.workflow.plan.subtasks.flatMap((s) => s.steps).find((s) => s.source);
        return {
          id: entry.session_id,
          name: entry.name,
          state: entry.state,
          params: entry.params,
          steps: entry.steps,
          last_run: entry.last_run && {
            run_id: entry.last_run.run_id,
            outcome: entry.last_run.outcome,
            started_at: entry.last_run.started_at,
            state: entry.last_run.state,
          },
          thumbnail: first?.source?.screenshot ?? null,
          problem: entry.problem,
        };
      }),
    );
  }

  /** The folder of workflow `id`, inside `<home>/workflows/`. */
  async folder(id: string): Promise<string> {
    if (!FOLDER_NAME.test(id)) throw new WorkflowNotFoundError(id);
    return resolveInside(join(this.home, 'workflows'), id, 'the workflow name').catch(() => {
      throw new WorkflowNotFoundError(id);
    });
  }

  /** The folder of recording `id`, inside `<home>/recordings/`. */
  async recording(id: string): Promise<string> {
    const missing = () => new RecordingNotFoundError(id);
    if (!FOLDER_NAME.test(id)) throw missing();
    const dir = await resolveInside(join(this.home, 'recordings'), id, 'the recording name').catch(() => {
      throw missing();
    });
    if (!existsSync(dir)) throw missing();
    return dir;
  }

  async open(id: string): Promise<OpenedWorkflow> {
    const read = await this.#read(id);
    const { plan } = await readOptimizedPlan(read.dir);
    return {
      id,
      files: plan?.user_filesystem_access ? workflowFileAccess(read.workflow, plan) : null,
      executors: workflowExecutors(read.workflow, plan),
      workflow: read.workflow,
      version: read.version,
      warnings: read.warnings,
      runs: await this.runs(id),
    };
  }

  /** Workflow `id`'s runs as on disk (one going on or killed has no outcome), oldest first. */
  async runs(id: string): Promise<RunListing[]> {
    const { runs } = await readWorkflowEntry(await this.folder(id), id);
    return runs.map(runListing);
  }

  /**
   * Only the runs named `runIds` of workflow `id` as on disk (their summary, else their journal), each
   * by its name; null for one whose folder is gone (or never was), the others' folders not read.
   */
  async someRuns(id: string, runIds: Iterable<string>): Promise<Map<string, RunListing | null>> {
    const read = async (run: string): Promise<[string, RunListing | null]> => {
      const dir = await this.runFolder(id, run).catch(() => null);
      if (!dir || !existsSync(dir)) return [run, null];
      return [run, runListing(await readRunEntry(dir, run))];
    };
    return new Map(await Promise.all([...runIds].map(read)));
  }

  /** Workflow `id` read and checked, with its version; its runs not read. */
  async #read(id: string) {
    const dir = await this.folder(id);
    const file = join(dir, WORKFLOW_FILE);
    // A regular file inside the folder, bounded: a FIFO or a link to /dev/zero is refused at once.
    const bytes = await readRegularFile(file, MAX_JSON_BYTES).catch((error: unknown) => {
      throw isMissingFileError(error) ? new WorkflowNotFoundError(id) : error;
    });
    const checked = checkWorkflow(
      parseJsonText(bytes.toString('utf8'), file),
      await readWorkflowContext(dir),
    );
    if (!checked.ok) throw new WorkflowInvalidError(checked.problems);
    return { dir, workflow: checked.workflow, version: versionOf(bytes), warnings: checked.warnings };
  }

  /**
   * Saves `document` over workflow `id` if it is valid and the file is still at `version`; returns the
   * new version and where the previous file was kept.
   */
  async save(id: string, document: unknown, version: string): Promise<{ version: string; previous: string }> {
    const dir = await this.folder(id);
    const checked = checkWorkflow(document, await readWorkflowContext(dir));
    if (!checked.ok) throw new WorkflowInvalidError(checked.problems);
    const file = join(dir, WORKFLOW_FILE);
    return withFolderLock(dir, { holder: 'mime studio' }, async () => {
      const bytes = await readRegularFile(file, MAX_JSON_BYTES);
      const now = versionOf(bytes);
      if (now !== version) throw new WorkflowConflictError(file, now);
      // The page edits the workflow as mime reads it; the file keeps the layout it has on disk (a file
      // from ai_mime stays in ai_mime's, with every field mime does not use).
      const onDisk = upgradeWorkflowDocument(parseJsonText(bytes.toString('utf8'), file)).from;
      const previous = await copyFileUnique(file, join(dir, `schema.${backupStamp()}.json`));
      await writeWorkflow(file, checked.workflow, checked.from === 'v2' ? onDisk : checked.from);
      return { version: versionOf(await readRegularFile(file, MAX_JSON_BYTES)), previous };
    });
  }

  /**
   * A copy of workflow `id` as saved, named `name`, in a folder of its own (the name's slug, numbered
   * when taken): its recording, screenshots and schema, not its runs, backups or lock. Returns its id.
   */
  async duplicate(id: string, name: string): Promise<string> {
    const taskName = name.trim();
    if (taskName === '') throw new StudioEditError('a copy needs a name: say how it differs');
    const { dir, workflow } = await this.#read(id);
    const workflows = join(this.home, 'workflows');
    const base = slugOf(taskName, '-', 60) || 'workflow';
    for (let n = 1; ; n += 1) {
      const copy = n === 1 ? base : `${base}-${n}`;
      const target = join(workflows, copy);
      // Making the folder claims the name: two copies at once never share one.
      const made = await mkdir(target, { mode: 0o700 }).then(
        () => true,
        (error: NodeJS.ErrnoException) => {
          if (error.code === 'EEXIST') return false;
          throw error;
        },
      );
      if (!made) continue;
      await cp(dir, target, {
        recursive: true,
        filter: (source) => source === dir || !notCopied(basename(source)),
      });
      await writeWorkflow(join(target, WORKFLOW_FILE), { ...workflow, task_name: taskName });
      return copy;
    }
  }

  /** A screenshot of workflow `id` by its path in the folder (a PNG inside it, bounded). */
  async frame(id: string, path: string): Promise<Buffer> {
    return readPngInside(await this.folder(id), path, 'the screenshot');
  }

  /** The folder of run `run` of workflow `id`, inside its `.replay/`. */
  async runFolder(id: string, run: string): Promise<string> {
    if (!FOLDER_NAME.test(run)) throw new RunNotFoundError(id, run);
    // Inside the workflow folder, not only inside `.replay`: a `.replay` that links out is not served.
    const dir = await resolveInside(await this.folder(id), `${RUNS_FOLDER}/${run}`, 'the run name').catch(
      () => {
        throw new RunNotFoundError(id, run);
      },
    );
    return dir;
  }

  /** A screenshot of a run by its path in the run folder. */
  async runFrame(id: string, run: string, path: string): Promise<Buffer> {
    return readPngInside(await this.runFolder(id, run), path, 'the run screenshot');
  }

  /** The run's report.html, or null when it has none (still running, killed). */
  async report(id: string, run: string): Promise<Buffer | null> {
    // A link named report.html that leads out of the run folder is refused like any other path.
    const file = await resolveInside(await this.runFolder(id, run), RUN_FILES.report, 'the report');
    if (!existsSync(file)) return null;
    return readRegularFile(file, MAX_REPORT_BYTES, 'the report');
  }
}
