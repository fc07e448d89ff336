/**
 * Data-driven runs: one replay per row of a rows file. Rows run one after another on this display in
 * this process, or, with workers, in parallel on private X servers that mime starts (one a row, the
 * app launched on it by the workflow's setup), each row in a process of its own; a worker that dies
 * is retried once on a fresh display. A worker row's display and process start while the row before
 * it runs, and its display stops after it has ended, while the next runs. Each row writes
 * `row-<n>/row.json` as it ends, so a killed batch loses nothing that finished, and `onlyFailed`
 * resumes it.
 */
import { availableParallelism } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import {
  acquireDisplayLock,
  type HeldDisplayLock,
  type PrivateDisplay,
  startPrivateDisplay,
} from '@mime-desktop/os-io';
import { type ReplayOptions, type RunParams, replay } from '@mime-desktop/replay';
import { writeBatchFiles } from '@mime-desktop/report';
import {
  BATCH_FILES,
  type BatchFile,
  isMimeError,
  type LoadedWorkflow,
  loadWorkflow,
  makeFolder,
  type RowRecord,
  type RunSummary,
  rowFolderName,
  type Workflow,
  writeJsonAtomic,
} from '@mime-desktop/schema';
import { collectBatch, readRowRecords } from './collect.ts';
import { BatchOptionError } from './errors.ts';
import { type RowWorker, rowJob, rowSecrets, startRowWorker, type WorkerReplayOptions } from './row-job.ts';
import { checkRows, readRows } from './rows.ts';

export interface BatchOptions {
  /** The rows file: `.csv` with a header of param names, or `.jsonl`. */
  rows: string;
  /** Parallel workers, each on private X servers of its own (the workflow needs a `setup`); 0 runs the rows on this display, one after another. Default 0. */
  workers?: number;
  /** First row to run, 1-based. Default 1. */
  fromRow?: number;
  /** Run only this row, 0-based (a Kubernetes Indexed Job's `JOB_COMPLETION_INDEX`). Default: every row. */
  rowIndex?: number;
  /** Run again the rows of `dir` that did not succeed (and those never run). Default false. */
  onlyFailed?: boolean;
  /** The batch folder. Default `<workflow>/.batch/<timestamp>`; required with `onlyFailed`. */
  dir?: string;
  /** Take sensitive params from the rows file too. Default false: only from the environment. */
  allowSecretsInRows?: boolean;
  /** Replay options for every row (params come from the rows); `fresh` resets the app before each row on this display. */
  replay?: WorkerReplayOptions & Pick<ReplayOptions, 'env' | 'runSetup' | 'fresh' | 'queue' | 'holder'>;
  /** Stops the batch: no new row starts, running ones are aborted. */
  signal?: AbortSignal;
  /** Progress: each row as it starts and ends. */
  onEvent?: (event: BatchEvent) => void;
}

export type BatchEvent =
  | { type: 'start'; dir: string; rows: number[]; workers: number }
  | { type: 'row_start'; row: number }
  | { type: 'row_end'; record: RowRecord };

export interface BatchResult {
  dir: string;
  batch: BatchFile;
  /** batch.html. */
  html: string;
}

const stamp = () =>
  new Date()
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');

/** The rows to run, 1-based, from the options. */
async function selectRows(count: number, options: BatchOptions, dir: string): Promise<number[]> {
  const all = Array.from({ length: count }, (_, i) => i + 1);
  if (options.rowIndex !== undefined) {
    if (!Number.isInteger(options.rowIndex) || options.rowIndex < 0 || options.rowIndex >= count) {
      throw new BatchOptionError(
        `row index ${options.rowIndex} is outside the ${count} rows (0 to ${count - 1})`,
      );
    }
    return [options.rowIndex + 1];
  }
  const from = options.fromRow ?? 1;
  if (!Number.isInteger(from) || from < 1 || from > count) {
    throw new BatchOptionError(`the first row must be from 1 to ${count}, got ${from}`);
  }
  if (!options.onlyFailed) return all.filter((row) => row >= from);
  const done = new Set(
    (await readRowRecords(dir)).filter((r) => r.record.outcome === 'success').map((r) => r.record.row),
  );
  return all.filter((row) => row >= from && !done.has(row));
}

/** The params of a row as they may be shown: sensitive ones as `{name}`. */
function displayParams(workflow: Workflow, row: Record<string, string>): Record<string, string> {
  const sensitive = new Set(workflow.task_params.filter((p) => p.sensitive).map((p) => p.name));
  return Object.fromEntries(Object.entries(row).map(([k, v]) => [k, sensitive.has(k) ? `{${k}}` : v]));
}

/** A row's record from its run's summary (or what kept it from running). */
function recordOf(
  row: number,
  params: Record<string, string>,
  runs: string[],
  outcome: { summary: RunSummary } | { code: string | null; reason: string; outcome: RowRecord['outcome'] },
  attempts: number,
): RowRecord {
  if ('summary' in outcome) {
    const { summary } = outcome;
    return {
      row,
      params,
      runs,
      outcome: summary.outcome,
      code: summary.code,
      reason: summary.reason,
      duration_ms: summary.duration_ms,
      model_calls: summary.usage.calls,
      attempts,
    };
  }
  return {
    row,
    params,
    runs,
    outcome: outcome.outcome,
    code: outcome.code,
    reason: outcome.reason,
    duration_ms: 0,
    model_calls: 0,
    attempts,
  };
}

/**
 * Replays `workflowDir` once per selected row of the rows file, into a batch folder, and writes
 * batch.json and batch.html. Throws before any run for a bad rows file or options; once started,
 * resolves whatever the rows' outcomes.
 */
export async function runBatch(workflowDir: string, options: BatchOptions): Promise<BatchResult> {
  const loaded = await loadWorkflow(workflowDir);
  const folder = dirname(resolve(loaded.file));
  const workers = options.workers ?? 0;
  if (!Number.isInteger(workers) || workers < 0 || workers > 64) {
    throw new BatchOptionError(`workers must be a whole number from 0 to 64, got ${workers}`);
  }
  if (workers > 0 && !loaded.workflow.setup) {
    throw new BatchOptionError(
      `workers replay on private X servers, where the workflow's app has to be started: give the workflow a setup (mime record --launch, or "setup" in schema.json)`,
    );
  }
  if (options.onlyFailed && !options.dir)
    throw new BatchOptionError('resuming the failed rows needs the batch folder');
  const rows = await readRows(options.rows);
  const checked = checkRows(loaded.workflow, rows, {
    allowSecrets: options.allowSecretsInRows ?? false,
    useExamples: options.replay?.useExamples,
  });
  const dir = resolve(options.dir ?? join(folder, '.batch', stamp()));
  if (options.onlyFailed && (await readRowRecords(dir).catch(() => [])).length === 0) {
    throw new BatchOptionError(
      `${dir} is not a batch folder (no row-<n>/row.json in it): --only-failed takes the folder of an earlier batch, as \`mime replay --rows\` printed it`,
    );
  }
  // The folder the user named may be a link; nothing inside it may be.
  await makeFolder(dir, { inside: dir });
  const selected = await selectRows(rows.rows.length, options, dir);
  const previous = new Map((await readRowRecords(dir)).map((r) => [r.record.row, r.record]));
  const startedAt = new Date().toISOString();
  const parallel =
    workers === 0 ? 1 : Math.min(workers, availableParallelism(), Math.max(1, selected.length));
  options.onEvent?.({ type: 'start', dir, rows: selected, workers: workers === 0 ? 0 : parallel });

  // Rows on this display hold it from the first to the last: no other replay slips in between two.
  const displayLock =
    workers === 0 && selected.length > 0
      ? await acquireDisplayLock({
          command: options.replay?.holder ?? 'a mime batch',
          workflow: loaded.workflow.task_name,
          queue: options.replay?.queue,
          signal: options.signal,
        })
      : undefined;
  // Worker rows: a display and a worker process ready for the next rows (at most one a lane), started
  // while rows run; the displays of ended rows, stopping while the next rows run.
  let next = 0;
  const ready: ReadyRow[] = [];
  const stopping: Promise<void>[] = [];
  const readyRow = (row: number): ReadyRow => {
    if (workers === 0) return { row, slot: null };
    const slot = startSlot(rowEnv(checked[row - 1] as RunParams, options), options.signal);
    // Awaited when the row runs, or when the batch ends without it.
    slot.catch(() => undefined);
    return { row, slot };
  };
  const take = (): ReadyRow | undefined =>
    ready.shift() ?? (next < selected.length ? readyRow(selected[next++] as number) : undefined);
  const runRow = async ({ row, slot }: ReadyRow): Promise<void> => {
    const values = rows.rows[row - 1] as Record<string, string>;
    const params = displayParams(loaded.workflow, values);
    const rowDir = join(dir, rowFolderName(row));
    await makeFolder(rowDir, { inside: dir });
    const runs = [...(previous.get(row)?.runs ?? [])];
    options.onEvent?.({ type: 'row_start', row });
    const rowParams = checked[row - 1] as RunParams;
    const record =
      workers === 0
        ? await runHere(loaded, rowParams, rowDir, { ...options, displayLock }, params, runs, row)
        : await runInWorker(folder, rowParams, rowDir, { ...options, slot, stopping }, params, runs, row);
    await writeJsonAtomic(join(rowDir, BATCH_FILES.row), record, { inside: dir });
    options.onEvent?.({ type: 'row_end', record });
  };

  const lane = async () => {
    while (!options.signal?.aborted) {
      const current = take();
      if (!current) return;
      if (workers > 0 && ready.length < parallel && next < selected.length)
        ready.push(readyRow(selected[next++] as number));
      await runRow(current);
    }
  };
  // A lane that fails (a bug) lets the others end their rows: no lane readies a row after the clean-up.
  const lanes = await Promise.allSettled(Array.from({ length: parallel }, lane));
  await displayLock?.release();
  // Rows readied but never run (the batch stopped) end unrun; every display stops before the batch ends.
  await Promise.allSettled(ready.splice(0).map(({ slot }) => slot?.then(stopSlot)));
  await Promise.all(stopping);
  for (const lane of lanes) if (lane.status === 'rejected') throw lane.reason;

  const batch = await collectBatch(dir, {
    workflow: folder,
    task_name: loaded.workflow.task_name,
    rows_file: options.rows,
    workers: workers === 0 ? 0 : parallel,
    started_at: startedAt,
    ended_at: new Date().toISOString(),
  });
  // Rows never run in this folder still show, as not run.
  const shown = new Set(batch.rows.map((r) => r.row));
  for (const row of selected.filter((r) => !shown.has(r))) {
    batch.rows.push({
      ...recordOf(
        row,
        displayParams(loaded.workflow, rows.rows[row - 1] ?? {}),
        [],
        { outcome: 'not_run', code: null, reason: 'the batch stopped before this row' },
        0,
      ),
      run: null,
    });
  }
  batch.rows.sort((a, b) => a.row - b.row);
  batch.counts.not_run = batch.rows.filter((r) => r.outcome === 'not_run').length;
  const html = await writeBatchFiles(dir, batch);
  return { dir, batch, html };
}

/**
 * A row on this display, in this process, under the batch's lock of the display: the workflow read
 * once for the batch, the row's params as checkRows resolved them (none resolved again).
 */
async function runHere(
  loaded: LoadedWorkflow,
  checkedParams: RunParams,
  rowDir: string,
  options: BatchOptions & { displayLock: HeldDisplayLock | undefined },
  params: Record<string, string>,
  runs: string[],
  row: number,
): Promise<RowRecord> {
  // The examples are in the checked params already.
  const { useExamples: _useExamples, ...replayOptions } = options.replay ?? {};
  try {
    const run = await replay(loaded, {
      ...replayOptions,
      checkedParams,
      runsDir: rowDir,
      signal: options.signal,
      displayLock: options.displayLock,
    });
    return recordOf(row, params, [...runs, relative(rowDir, run.dir)], { summary: run.summary }, 1);
  } catch (error) {
    if (!isMimeError(error)) throw error;
    return recordOf(row, params, runs, { outcome: 'failed', code: error.code, reason: error.message }, 1);
  }
}

/** A row to run next; for a worker, its display and worker process, started ahead. */
interface ReadyRow {
  row: number;
  slot: Promise<WorkerSlot> | null;
}

/** A private display and the worker process started on it for one row. */
interface WorkerSlot {
  display: PrivateDisplay;
  worker: RowWorker;
}

/** The environment of a row's worker besides its display: the replay's, and the row's sensitive values. */
function rowEnv(checked: RunParams, options: BatchOptions): NodeJS.ProcessEnv {
  return { ...options.replay?.env, ...rowSecrets(checked) };
}

/** Starts a private display and a worker process on it with `env`. */
async function startSlot(env: NodeJS.ProcessEnv, signal: AbortSignal | undefined): Promise<WorkerSlot> {
  const display = await startPrivateDisplay();
  // The worker's display with its own session bus: the app it starts exports its tree there.
  const worker = startRowWorker({ ...display.env, ...env, ...displayOwn(display.env) }, signal);
  return { display, worker };
}

/** Ends a slot's worker (if it still runs) and its display. */
async function stopSlot({ display, worker }: WorkerSlot): Promise<void> {
  await worker.stop();
  await display.stop();
}

/**
 * A row in a worker process on a private display of its own (`slot`, started ahead); retried once on
 * a fresh one if the worker dies. The worker is given the row's params as checkRows resolved them
 * (it resolves none again); their sensitive values travel in its environment, never in its job nor
 * as arguments others can see in `ps`.
 */
async function runInWorker(
  folder: string,
  checked: RunParams,
  rowDir: string,
  options: BatchOptions & { slot: Promise<WorkerSlot> | null; stopping: Promise<void>[] },
  params: Record<string, string>,
  runs: string[],
  row: number,
): Promise<RowRecord> {
  // A worker's display is new, its app started from the setup: runSetup and fresh are its own; the
  // examples were used (or not) when the rows were checked.
  const {
    env: _env,
    runSetup: _runSetup,
    fresh: _fresh,
    useExamples: _useExamples,
    ...replayOptions
  } = options.replay ?? {};
  const job = rowJob(folder, checked, rowDir, replayOptions);
  for (let attempt = 1; attempt <= 2; attempt += 1) {
    const slot = await ((attempt === 1 ? options.slot : null) ??
      startSlot(rowEnv(checked, options), options.signal));
    try {
      const result = await slot.worker.run(job);
      if (result?.ok)
        return recordOf(
          row,
          params,
          [...runs, relative(rowDir, result.dir)],
          { summary: result.summary },
          attempt,
        );
      if (result)
        return recordOf(
          row,
          params,
          runs,
          { outcome: 'failed', code: result.code, reason: result.message },
          attempt,
        );
    } finally {
      // The row's outcome does not wait for its display to stop; the batch's end does. A display
      // that could not be stopped (its bus folder left behind) fails no row.
      options.stopping.push(slot.display.stop().catch(() => undefined));
    }
    if (options.signal?.aborted) break;
  }
  return recordOf(
    row,
    params,
    runs,
    {
      outcome: 'crashed',
      code: 'MIME_WORKER_CRASHED',
      reason: 'the worker process died twice without an answer',
    },
    2,
  );
}

/** What belongs to a private display alone, and wins over any caller's environment. */
function displayOwn(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const own = ['DISPLAY', 'DBUS_SESSION_BUS_ADDRESS', 'XDG_RUNTIME_DIR'];
  return Object.fromEntries(own.flatMap((name) => (env[name] === undefined ? [] : [[name, env[name]]])));
}
