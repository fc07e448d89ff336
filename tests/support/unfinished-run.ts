/**
 * Run folders without a summary, as a replay going on or killed leaves them: a journal whose
 * `run_start` names the process running it. `liveProcess()` is this test's own process (alive);
 * `endedProcess()` a real process that has exited (its pid answers no more).
 */
import { execFileSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { processStartIdentity, type RunProcess } from '@mime-desktop/schema';

/** This process, as a run's journal names it: running. */
export const liveProcess = (): RunProcess => ({
  pid: process.pid,
  started: processStartIdentity(process.pid),
  host: hostname(),
});

/** A process of this machine that has ended, as a killed run's journal names it. */
export function endedProcess(): RunProcess {
  const pid = Number(
    execFileSync(process.execPath, ['-e', 'console.log(process.pid)'], { encoding: 'utf8' }),
  );
  return { pid, started: 'boot:1', host: hostname() };
}

/** One journal line of event `type`. */
export const journalLine = (type: string, data: object, subtask_i: number | null = null, time?: string) =>
  JSON.stringify({ time: time ?? '2026-11-26T19:00:00.000Z', type, subtask_i, iteration: null, data });

/** A `run_start` line naming `runner` (none: a run of an older mime), at `time`. */
export const runStartLine = (runner?: RunProcess, time?: string) =>
  journalLine(
    'run_start',
    {
      run_id: 'r',
      mode: 'trace',
      task_name: 'play song',
      params: {},
      budgets: {},
      dry_run: false,
      ...(runner ? { process: runner } : {}),
    },
    null,
    time,
  );

/** Writes run folder `dir` with a journal of `lines` and no summary; returns `dir`. */
export async function writeUnfinishedRun(dir: string, lines: readonly string[]): Promise<string> {
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'events.jsonl'), `${lines.join('\n')}\n`);
  return dir;
}
