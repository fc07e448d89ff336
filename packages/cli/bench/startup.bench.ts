/**
 * Start-up of the installed CLI: `mime --version` and `mime validate <workflow>` from the packed
 * packages installed with npm outside the workspace (plain node, no tsx), median of 20 runs each.
 * Run from the repository root: `pnpm bench cli` (it builds and packs first, about 30 s).
 */
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLEAN_ENV, installInProject, packMime } from '@mime-desktop/test-support/packed-mime';
import { REPO_ROOT } from '@mime-desktop/test-support/run-mime';

const RUNS = 20;
const root = await mkdtemp(join(tmpdir(), 'mime-bench-startup-'));
const project = join(root, 'project');
await installInProject(project, await packMime(join(root, 'packs')));
const cli = join(project, 'node_modules', '@mime-desktop', 'cli', 'dist', 'main.js');
const env = { ...process.env, ...CLEAN_ENV };

function medianMs(args: string[]): number {
  const times: number[] = [];
  for (let i = 0; i < RUNS + 2; i += 1) {
    const started = performance.now();
    const run = spawnSync(process.execPath, [cli, ...args], { env, stdio: 'ignore' });
    if (run.status !== 0) throw new Error(`mime ${args.join(' ')} exited with ${run.status}`);
    if (i >= 2) times.push(performance.now() - started);
  }
  return times.sort((a, b) => a - b)[Math.floor(times.length / 2)] ?? Number.NaN;
}

const bare = (() => {
  const times: number[] = [];
  for (let i = 0; i < RUNS; i += 1) {
    const started = performance.now();
    spawnSync(process.execPath, ['-e', '0'], { stdio: 'ignore' });
    times.push(performance.now() - started);
  }
  return times.sort((a, b) => a - b)[Math.floor(times.length / 2)] ?? Number.NaN;
})();
const version = medianMs(['--version']);
const validate = medianMs(['validate', join(REPO_ROOT, 'fixtures', 'workflows', 'play-song-recorded')]);
process.stdout.write(
  [
    `cli start-up, installed from the packed tarballs (median of ${RUNS}):`,
    `  node -e 0:          ${bare.toFixed(0)} ms (the floor)`,
    `  mime --version:     ${version.toFixed(0)} ms`,
    `  mime validate <wf>: ${validate.toFixed(0)} ms`,
    '',
  ].join('\n'),
);
await rm(root, { recursive: true, force: true });
