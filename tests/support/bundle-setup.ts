/**
 * vitest's global setup: builds the bundled `mime` (scripts/bundle.ts) once per run, into a folder of
 * this run's own under packages/cli/.bundle/ (removed at the end; one left by a killed run is removed
 * by the next), and points MIME_TEST_BIN at it for the test processes, which inherit this process's
 * environment. A MIME_TEST_BIN set beforehand is kept: the tests then run that `mime`.
 */
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { buildBundle } from '../../scripts/bundle.ts';
import { REPO_ROOT } from './run-mime.ts';

const BUNDLES = join(REPO_ROOT, 'packages', 'cli', '.bundle');

function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Removes the bundles of runs that are over. */
async function removeLeftBundles(): Promise<void> {
  const left = await readdir(BUNDLES).catch(() => []);
  for (const name of left) {
    const pid = Number(name);
    if (!Number.isInteger(pid) || !running(pid))
      await rm(join(BUNDLES, name), { recursive: true, force: true });
  }
}

export default async function setup(): Promise<(() => Promise<void>) | undefined> {
  if (process.env.MIME_TEST_BIN) return undefined;
  await removeLeftBundles();
  const outdir = join(BUNDLES, String(process.pid));
  process.env.MIME_TEST_BIN = await buildBundle(outdir);
  return async () => {
    await rm(outdir, { recursive: true, force: true });
  };
}
