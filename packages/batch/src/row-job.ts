/** What a batch worker process is given and answers (see row-worker.ts), and how it is started. */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { ReplayOptions } from '@mime-desktop/replay';
import type { RunSummary } from '@mime-desktop/schema';

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
  params: Record<string, string>;
  runsDir: string;
  options: WorkerReplayOptions;
}

export type RowJobResult =
  | { ok: true; dir: string; summary: RunSummary }
  | { ok: false; code: string; message: string };

/** The worker's entry: the built `.js` when installed, the `.ts` source (through tsx) in a checkout. */
function workerCommand(): string[] {
  const fromSource = import.meta.url.endsWith('.ts');
  const entry = fileURLToPath(new URL(`./row-worker.${fromSource ? 'ts' : 'js'}`, import.meta.url));
  return fromSource ? ['--import', import.meta.resolve('tsx/esm'), entry] : [entry];
}

/**
 * Runs one row in a worker process with `env` (its display); resolves its answer, or null when the
 * process died without one (a crash). Aborting `signal` ends the process.
 */
export function runRowJob(
  job: RowJob,
  env: NodeJS.ProcessEnv,
  signal?: AbortSignal,
): Promise<RowJobResult | null> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, workerCommand(), { env, stdio: ['pipe', 'pipe', 'pipe'], signal });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += String(chunk);
    });
    child.stderr.resume();
    child.once('error', () => resolve(null));
    child.once('close', () => {
      const line = out.split('\n').find((l) => l.startsWith('{'));
      try {
        resolve(line ? (JSON.parse(line) as RowJobResult) : null);
      } catch {
        resolve(null);
      }
    });
    child.stdin.end(JSON.stringify(job));
  });
}
