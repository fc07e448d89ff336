/**
 * `pnpm demo`, the first thing the README has a user run: the real script on its own private X
 * server replays the bundled workflow with a new song, and the demo app plays it. Its data root is a
 * temp folder (MIME_HOME): the Node 22 and 24 runs of this file go at the same time as the Node 20 one.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '@mime-desktop/test-support/e2e-rig';
import { seedFixtureOcr } from '@mime-desktop/test-support/fixture-ocr';
import { REPO_ROOT } from '@mime-desktop/test-support/run-mime';
import { execa } from 'execa';
import { expect, it } from 'vitest';

it('replays the bundled workflow with a new song and points at its report', async () => {
  const home = await tempDir('mime-demo-');
  const workflow = join(home, 'workflows', 'play-song');
  // What the checkout's own .demo keeps from one demo to the next: the recorded frames' OCR.
  await seedFixtureOcr('play-song-recorded', workflow);
  const demo = await execa('pnpm', ['--silent', 'demo', 'In the End'], {
    cwd: REPO_ROOT,
    // The sources through tsx, as the README has a user run it, not the tests' bundle.
    env: {
      MIME_HOME: home,
      MIME_BASE_URL: undefined,
      MIME_MODEL: undefined,
      MIME_API_KEY: undefined,
      MIME_TEST_BIN: undefined,
    },
    reject: false,
    timeout: 90_000,
  });
  expect(demo.exitCode, demo.stderr).toBe(0);
  expect(demo.stderr).toContain(`workflow: ${workflow} `);
  expect(demo.stderr).toContain('extract song_now_playing = "In the End"');
  expect(demo.stderr).toMatch(/the demo app now shows: Now playing: In the End$/m);
  const report = /^ {2}report: (.+report\.html)$/m.exec(demo.stderr)?.[1];
  expect(report && existsSync(report)).toBe(true);
  expect(report?.startsWith(`${workflow}/`)).toBe(true);
}, 120_000);
