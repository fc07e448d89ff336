/**
 * Whether a run without a summary is going on or was interrupted, told by what can be observed: the
 * process its journal names (`run_start.process`) is alive on this machine, and is that process (a pid
 * given later to another process does not count). The one place `mime list`, the MCP server, the studio
 * and report.html tell it.
 */
import { hostname } from 'node:os';
import { processIsRunning } from './process-identity.ts';
import type { RunProcess } from './run-journal.ts';

/**
 * `ended`: its summary is written. `running`: its process lives (or it started a moment ago and its
 * journal is not written yet). `interrupted`: its process is gone and it wrote no summary (killed,
 * crashed). `unknown`: it cannot be told (a run of an older mime or of another machine, or a summary
 * that cannot be read).
 */
export type RunState = 'ended' | 'running' | 'interrupted' | 'unknown';

/** How long a run folder may have no journal yet and still count as starting. */
export const RUN_STARTING_MS = 10_000;

/**
 * The state of a run that has no summary, from its journal's `run_start` (null: none yet) and when it
 * began (its `run_start`, else its folder's time), as of `now` (ms since the epoch).
 */
export function unfinishedRunState(
  start: { process: RunProcess | null } | null,
  startedAt: string | null,
  now = Date.now(),
): Exclude<RunState, 'ended'> {
  if (start === null) {
    // No run_start yet: a run making its folder, or one that died before it began.
    const age = startedAt ? now - Date.parse(startedAt) : Number.POSITIVE_INFINITY;
    return age < RUN_STARTING_MS ? 'running' : 'interrupted';
  }
  const { process } = start;
  if (!process || process.host !== hostname()) return 'unknown';
  return processIsRunning(process.pid, process.started) ? 'running' : 'interrupted';
}

/** A run without an outcome in one word: `running`, `interrupted`, or `unfinished` when it cannot be told. */
export type UnfinishedRunStatus = 'running' | 'interrupted' | 'unfinished';

/** The word for a run in `state` that has no outcome. */
export function unfinishedStatus(state: RunState): UnfinishedRunStatus {
  return state === 'running' || state === 'interrupted' ? state : 'unfinished';
}

/** A run in one word, as lists show it: its outcome once it has one, else its {@link unfinishedStatus}. */
export function runStatus(run: { outcome: string | null; state: RunState }): string {
  return run.outcome ?? unfinishedStatus(run.state);
}
