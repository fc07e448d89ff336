/**
 * What a batch worker process is given and answers (see row-worker.ts), how it is started, and what
 * it does with its job: replay the row with the params the batch checked (none resolved again).
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import {
  type ReplayOptions,
  type RunParams,
  type RunParamsData,
  replay,
  runParamsData,
  runParamsFromData,
  secretEnvName,
} from '@mime-desktop/replay';
import { loadWorkflow, type RunSummary } from '@mime-desktop/schema';

/** The replay options a worker passes on (plain data: they cross a process boundary). */
export type WorkerReplayOptions = Pick<
  ReplayOptions,
  | 'mode'
  | 'budgets'
  | 'stepTimeoutMs'
  | 'typeDelayMs'
  | 'image'
  | 'modelConfig'
  | 'maxUnusableReplies'
  | 'agentScope'
  | 'useExamples'
>;

export interface RowJob {
  workflow: string;
  /** The row's params as the batch checked them; sensitive ones by name only (their values: {@link rowSecrets}). */
  params: RunParamsData;
  runsDir: string;
  /** The examples were used (or not) when the params were checked: nothing is resolved again. */
  options: Omit<WorkerReplayOptions, 'useExamples'>;
}

export type RowJobResult =
  | { ok: true; dir: string; summary: RunSummary }
  | { ok: false; code: string; message: string };

/** The job of a row whose params are `checked`, for workflow folder `workflow`. */
export function rowJob(
  workflow: string,
  checked: RunParams,
  runsDir: string,
  options: Omit<WorkerReplayOptions, 'useExamples'>,
): RowJob {
  return { workflow, params: runParamsData(checked), runsDir, options };
}

/** The sensitive values of a row, as the worker's environment holds them (`MIME_PARAM_<NAME>`), never in its job. */
export function rowSecrets(checked: RunParams): Record<string, string> {
  const sensitive = new Set(checked.workflow.task_params.filter((p) => p.sensitive).map((p) => p.name));
  return Object.fromEntries(
    [...checked.resolved].flatMap(([name, value]) =>
      sensitive.has(name) && value.kind === 'value' ? [[secretEnvName(name), value.value]] : [],
    ),
  );
}

/**
 * A worker's replay of its row, with the workflow's setup run (the display is its own): the workflow
 * read once, its params as the job gives them, its sensitive ones from this process's environment.
 */
export async function replayRowJob(job: RowJob): Promise<RowJobResult> {
  try {
    const loaded = await loadWorkflow(job.workflow);
    const run = await replay(loaded, {
      ...job.options,
      checkedParams: runParamsFromData(loaded.workflow, job.params),
      runsDir: job.runsDir,
      runSetup: true,
    });
    return { ok: true, dir: run.dir, summary: run.summary };
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    return {
      ok: false,
      code: typeof code === 'string' && code.startsWith('MIME_') ? code : 'MIME_INTERNAL',
      message: error instanceof Error ? error.message : String(error),
    };
  }
}

/**
 * The worker's entry: the built `.js` beside this file when built (an installed `dist/`, or the tests'
 * bundle, scripts/bundle.ts), the `.ts` source (through tsx) in a checkout.
 */
function workerCommand(): string[] {
  const fromSource = import.meta.url.endsWith('.ts');
  const entry = fileURLToPath(new URL(`./row-worker.${fromSource ? 'ts' : 'js'}`, import.meta.url));
  return fromSource ? ['--import', import.meta.resolve('tsx/esm'), entry] : [entry];
}

/** A worker process started ahead of its row: it loads its modules, then waits for its job. */
export interface RowWorker {
  /** Gives the worker its job; resolves its answer, or null when the process died without one (a crash). */
  run(job: RowJob): Promise<RowJobResult | null>;
  /** Ends a worker that was never given its job. */
  stop(): Promise<void>;
}

/**
 * Starts a worker process with `env` (its display, its row's sensitive values): it loads its modules
 * at once and replays when given its job ({@link RowWorker.run}). Aborting `signal` ends the process.
 */
export function startRowWorker(env: NodeJS.ProcessEnv, signal?: AbortSignal): RowWorker {
  const child = spawn(process.execPath, workerCommand(), { env, stdio: ['pipe', 'pipe', 'pipe'], signal });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => {
    out += String(chunk);
  });
  child.stderr.resume();
  // A worker that died before its job was given: writing to it fails, its answer says so (null).
  child.stdin.on('error', () => undefined);
  const answer = new Promise<RowJobResult | null>((resolve) => {
    child.once('error', () => resolve(null));
    child.once('close', () => {
      const line = out.split('\n').find((l) => l.startsWith('{'));
      try {
        resolve(line ? (JSON.parse(line) as RowJobResult) : null);
      } catch {
        resolve(null);
      }
    });
  });
  return {
    run: (job) => {
      child.stdin.end(JSON.stringify(job));
      return answer;
    },
    stop: async () => {
      child.kill('SIGTERM');
      await answer;
    },
  };
}
