/**
 * `pnpm demo [song]`: mime replaying a bundled workflow on the demo app, on any machine: no display
 * and no API key needed. A private X server (Xvfb) runs the demo music player in Chromium; the
 * workflow reflected from a real recording ("search for a song and play it") is replayed in auto
 * mode with a new song, re-finding each recorded target on the screen; the run's report.html is
 * printed at the end. Your own screen is never touched.
 */
import { cp, mkdir, readdir, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { CHECKS_CACHE_FOLDER } from '@mime-desktop/schema';
import { startDesktopHarness } from '@mime-desktop/test-support/desktop-harness';
import { MIME_BIN, REPO_ROOT } from '@mime-desktop/test-support/run-mime';
import { execa } from 'execa';

const song = process.argv[2] ?? 'Faint';

const missing: string[] = [];
for (const [tool, pkg] of [
  ['Xvfb', 'xvfb'],
  ['xdotool', 'xdotool'],
  ['chromium', 'chromium'],
] as const) {
  const found = await execa('sh', ['-c', `command -v ${tool}`], { reject: false });
  if (found.exitCode !== 0) missing.push(pkg);
}
if (missing.length > 0) {
  process.stderr.write(
    `mime demo needs ${missing.join(', ')}: install them with\n  sudo apt-get install ${missing.join(' ')} xauth fonts-dejavu-core\n(or run ./setup.sh, which installs everything)\n`,
  );
  process.exit(2);
}
const say = (line: string) => process.stderr.write(`${line}\n`);
// The data root: MIME_HOME when set (as for every mime command), else the checkout's .demo folder.
const home = process.env.MIME_HOME ? resolve(process.env.MIME_HOME) : join(REPO_ROOT, '.demo');
const workflow = join(home, 'workflows', 'play-song');

say('mime demo: starting a private X server with the demo music player...');
const desktop = await startDesktopHarness({ keepDisplayUntilExit: false });
try {
  // A fresh copy of the workflow, but for its checks' cache (named by the frames' content, so never
  // stale): a second demo does not read the recorded frames again.
  for (const entry of await readdir(workflow).catch(() => [])) {
    if (entry !== CHECKS_CACHE_FOLDER) await rm(join(workflow, entry), { recursive: true, force: true });
  }
  await mkdir(join(home, 'workflows'), { recursive: true });
  await cp(join(REPO_ROOT, 'fixtures', 'workflows', 'play-song-recorded'), workflow, { recursive: true });
  say(`workflow: ${workflow} (recorded once, searching for "Numb")`);
  say(`$ mime replay ${workflow} --param song_name=${song}\n`);
  const run = await execa(process.execPath, [MIME_BIN, 'replay', workflow, '--param', `song_name=${song}`], {
    env: { DISPLAY: desktop.display, MIME_BASE_URL: undefined, MIME_MODEL: undefined },
    extendEnv: true,
    stdout: 'ignore',
    stderr: 'inherit',
    reject: false,
  });
  const state = await desktop.readAppState();
  say(`\nthe demo app now shows: Now playing: ${state.playing || 'nothing'}`);
  process.exitCode = run.exitCode ?? 1;
} finally {
  await desktop.stop();
}
