/**
 * Whether a run without a summary is going on or was interrupted, told by what can be observed: the
 * process its journal names (`run_start.process`) is alive on this machine, and is that process (a pid
 * given later to another process does not count).
 */
import { hostname } from 'node:os';
import { processIsRunning } from '@mime-desktop/os-io/process-identity';
import { RUN_WITHOUT_SUMMARY, type RunEntry } from '@mime-desktop/schema';

/**
 * `ended`: its summary is written. `running`: its process lives (or it started a moment ago and its
 * journal is not written yet). `interrupted`: its process is gone and it wrote no summary (killed,
 * crashed). `unknown`: it cannot be told (a run of an older mime, or of another machine).
 */
export type RunState = 'ended' | 'running' | 'interrupted' | 'unknown';

/** How long a run folder may have no journal yet and still count as starting. */
const STARTING_MS = 10_000;

/** The state of run `entry`, as of `now` (ms since the epoch). */
export function runStateOf(entry: RunEntry, now = Date.now()): RunState {
  if (entry.outcome !== null) return 'ended';
  if (entry.mode === null) {
    // No run_start yet: a run making its folder, or one that died before it began.
    if (entry.problem !== RUN_WITHOUT_SUMMARY) return 'unknown';
    const age = entry.started_at ? now - Date.parse(entry.started_at) : Number.POSITIVE_INFINITY;
    return age < STARTING_MS ? 'running' : 'interrupted';
  }
  const { process } = entry;
  if (!process || process.host !== hostname()) return 'unknown';
  return processIsRunning(process.pid, process.started) ? 'running' : 'interrupted';
}
