/**
 * A workflow's runs as they change on disk: a run folder made, a run's summary written (it ended), by
 * this studio or by `mime replay` in another process. Only those paths are watched (not a run's frames
 * or events), and a burst of changes is told once it settles.
 */
import { relative, sep } from 'node:path';
import { RUN_FILES, RUNS_FOLDER } from '@mime-desktop/schema';
import { watch } from 'chokidar';

/** How long changes must stop before they are told: a run's start makes its folder and files at once. */
const SETTLE_MS = 150;

/** Whether `path` under the workflow folder `dir` is no run folder and no run's summary. */
function notARunChange(dir: string, path: string): boolean {
  const parts = relative(dir, path).split(sep);
  if (parts.length === 1 && parts[0] === '') return false;
  if (parts[0] !== RUNS_FOLDER) return true;
  return parts.length > 3 || (parts.length === 3 && parts[2] !== RUN_FILES.summary);
}

/**
 * Calls `onChange` after runs of the workflow in `dir` start or end (its `.replay/` may not exist yet);
 * resolves how to stop watching once the watch is set.
 */
export async function watchRuns(dir: string, onChange: () => void): Promise<() => Promise<void>> {
  let timer: NodeJS.Timeout | undefined;
  const watcher = watch(dir, {
    ignoreInitial: true,
    depth: 2,
    ignored: (path) => notARunChange(dir, path),
  });
  watcher.on('all', () => {
    clearTimeout(timer);
    timer = setTimeout(onChange, SETTLE_MS);
  });
  // A folder that cannot be watched (gone, no permission) has no runs to follow: nothing is told.
  watcher.on('error', () => undefined);
  await new Promise<void>((resolve) => watcher.once('ready', resolve));
  return () => {
    clearTimeout(timer);
    return watcher.close();
  };
}
