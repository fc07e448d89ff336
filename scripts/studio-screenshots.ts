/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
/**
 * `pnpm studio:screenshots`: the README's pictures of `mime studio`, taken in Chromium (light and dark)
 * on a copy of the demo workflow and a recording not reflected yet: the list, a workflow's page, and
 * a run's page with the heal it learned, and the run read like a trace. The run is real: an auto replay on a private display of the
 * demo app restyled (moved 40x24 px, its Play buttons reading "Listen"), with the test suite's fake
 * model server standing in for the model. Writes docs/studio-*.png.
 */
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDesktopHarness } from '@mime-desktop/test-support/desktop-harness';
import { startFakeModelServer } from '@mime-desktop/test-support/fake-model-server';
import { createFakeVisionModel } from '@mime-desktop/test-support/fake-vision-model';
import { runMime } from '@mime-desktop/test-support/run-mime';
import { chromium } from 'playwright-core';
import { startStudio } from '../packages/studio/src/server.ts';

const root = join(import.meta.dirname, '..');
const home = await mkdtemp(join(tmpdir(), 'mime-studio-shots-'));
const workflow = join(home, 'workflows', 'play-song');
await cp(join(root, 'fixtures', 'workflows', 'play-song-recorded'), workflow, { recursive: true });
// A recording not reflected yet, as the list offers it.
await cp(join(root, 'fixtures', 'recordings', 'mousepad-save'), join(home, 'recordings', 'mousepad-save'), {
  recursive: true,
});

// A run that learns a heal: auto on the restyled app.
const desktop = await startDesktopHarness({ query: 'dx=40&dy=24&play=Listen' });
const server = await startFakeModelServer();
const model = createFakeVisionModel();
server.setHandler(model.handler);
let runId: string;
try {
  const replayed = await runMime(['replay', workflow, '--param', 'song_name=Faint', '--json'], {
    env: { ...desktop.env, MIME_BASE_URL: server.url, MIME_MODEL: 'fake-vision' },
  });
  if (replayed.exitCode !== 0) throw new Error(`the auto run failed:\n${replayed.stderr}`);
  runId = JSON.parse(replayed.stdout).run_id;
} finally {
  await model.close();
  await server.close();
  await desktop.stop();
}

const studio = await startStudio({ home });
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
const allLoaded = () => [...document.images].every((img) => img.complete);
try {
  for (const scheme of ['light', 'dark'] as const) {
    const page = await browser.newPage({ viewport: { width: 1280, height: 860 }, colorScheme: scheme });
    await page.goto(studio.url);
    await page.locator('.cards img').first().waitFor();
    await page.waitForFunction(allLoaded);
    await page.screenshot({ path: join(root, 'docs', `studio-list-${scheme}.png`) });
    await page.goto(`${studio.origin}/#/w/play-song`);
    await page.locator('article.step img').first().waitFor();
    await page.waitForFunction(() =>
      [...document.querySelectorAll('article.step img')]
        .slice(0, 4)
        .every((img) => (img as HTMLImageElement).complete),
    );
    await page.screenshot({ path: join(root, 'docs', `studio-workflow-${scheme}.png`) });
    await page.goto(`${studio.origin}/#/w/play-song/r/${runId}`);
    await page.locator('section.heal img').first().waitFor();
    await page.waitForFunction(allLoaded);
    await page
      .frameLocator('iframe.report')
      .getByText('The workflow is out of date on this screen')
      .first()
      .waitFor();
    await page.setViewportSize({ width: 1280, height: 1500 });
    await page.screenshot({ path: join(root, 'docs', `studio-run-${scheme}.png`) });
    // The run read like a trace on a wide window: its second step selected, after it.
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.goto('about:blank');
    await page.goto(`${studio.origin}/#/w/play-song/r/${runId}/s/2`);
    await page.locator('section.trace [aria-current="step"]').waitFor();
    await page.getByRole('button', { name: 'After' }).click();
    await page.waitForFunction(() => {
      const img = document.querySelector<HTMLImageElement>('.trace-image');
      return Boolean(img?.complete && img.naturalWidth > 0);
    });
    await page.screenshot({ path: join(root, 'docs', `studio-trace-${scheme}.png`) });
    await page.close();
  }
} finally {
  await browser.close();
  await studio.close();
  await rm(home, { recursive: true, force: true });
}
process.stderr.write('wrote docs/studio-{list,workflow,run,trace}-{light,dark}.png\n');
