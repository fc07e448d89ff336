/**
 * Re-makes fixtures/recordings/play-song: a real `mime record` of the demo app under Xvfb (search for
 * Numb, play it, extract what is playing). Run with `pnpm fixtures:record` after changing the demo
 * app or the recording format.
 */
import { cp, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { centerOf, DEMO_LAYOUT, startDesktopHarness } from '@mime-desktop/test-support/desktop-harness';
import { REPO_ROOT, startMime } from '@mime-desktop/test-support/run-mime';
import { sleep } from '@mime-desktop/test-support/wait';

const desktop = await startDesktopHarness({ keepDisplayUntilExit: false });
const home = await mkdtemp(join(tmpdir(), 'mime-fixture-'));
try {
  const recorder = startMime(
    [
      'record',
      '--name',
      'play song',
      '--description',
      'Search the demo player for a song and play it.',
      '--home',
      home,
    ],
    {
      env: desktop.env,
    },
  );
  const sessionId = await recorder.waitForStdoutLine();
  await recorder.waitForStderr(/● Recording/);
  const control = (...args: string[]) =>
    startMime(['record', 'annotate', '--session', sessionId, ...args], { env: desktop.env }).done;
  const search = centerOf(DEMO_LAYOUT.search);
  await desktop.click(search.x, search.y);
  await sleep(300);
  await desktop.typeText('Numb');
  await sleep(300);
  await desktop.pressKeys('Return');
  await desktop.waitForAppState((s) => s.action === 'search:Numb');
  await sleep(400);
  await control('details', '--text', 'the Play button of the first result');
  const play = centerOf(DEMO_LAYOUT.playButton(0));
  await desktop.click(play.x, play.y);
  await desktop.waitForAppState((s) => s.playing === 'Numb');
  await sleep(400);
  await control('extract', '--query', 'the song now playing', '--value', 'Numb');
  await sleep(300);
  await startMime(['record', 'stop', '--session', sessionId], { env: desktop.env }).done;
  const result = await recorder.done;
  if (result.exitCode !== 0) throw new Error(result.stderr);
  const target = join(REPO_ROOT, 'fixtures', 'recordings', 'play-song');
  await rm(target, { recursive: true, force: true });
  await cp(join(home, 'recordings', sessionId), target, { recursive: true });
  process.stderr.write(
    `wrote ${target}: ${(await readdir(join(target, 'screenshots'))).length} screenshots\n`,
  );
} finally {
  await desktop.stop();
  await rm(home, { recursive: true, force: true });
}
