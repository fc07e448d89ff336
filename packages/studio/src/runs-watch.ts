/**
 * A workflow's runs as they come and go on disk: a run folder made or removed under its `.replay/`, by
 * this studio or by `mime replay` in another process. Only the workflow's folder and `.replay/` are
 * watched (two inotify watches, however many runs there are): not a run's own files, so a run's end
 * is seen by reading the runs going on again (see the runs routes). A burst of changes is told once
 * it settles.
 */
import { relative, sep } from 'node:path';
import { RUNS_FOLDER } from '@mime-desktop/schema';
import { watch } from 'chokidar';

/** How long changes must stop before they are told: a run's start makes its folder and files at once. */
const SETTLE_MS = 150;

/** Whether `path` under the workflow folder `dir` is neither `.replay/` nor a run folder in it. */
function notARunFolder(dir: string, path: string): boolean {
  const parts = relative(dir, path).split(sep);
  if (parts.length === 1 && parts[0] === '') return false;
  return parts[0] !== RUNS_FOLDER || parts.length > 2;
}

/**
 * Calls `onChange` after run folders of the workflow in `dir` are made or removed, with their names,
 * or with null when `.replay/` itself came or went (its runs are then all new); resolves how to stop
 * watching once the watch is set.
 */
export async function watchRuns(
  dir: string,
  onChange: (runIds: ReadonlySet<string> | null) => void,
): Promise<() => Promise<void>> {
  let timer: NodeJS.Timeout | undefined;
  let changed: Set<string> | null = new Set();
  const watcher = watch(dir, {
    ignoreInitial: true,
    depth: 1,
    ignored: (path) => notARunFolder(dir, path),
  });
  watcher.on('all', (_event, path) => {
    const run = relative(dir, path).split(sep)[1];
    if (run === undefined) changed = null;
    else changed?.add(run);
    clearTimeout(timer);
    timer = setTimeout(() => {
      const told = changed;
      changed = new Set();
      onChange(told);
    }, SETTLE_MS);
  });
  // A folder that cannot be watched (gone, no permission) has no runs to follow: nothing is told.
  watcher.on('error', () => undefined);
  await new Promise<void>((resolve) => watcher.once('ready', resolve));
  return () => {
    clearTimeout(timer);
    return watcher.close();
  };
}
