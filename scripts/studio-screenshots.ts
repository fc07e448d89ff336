/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
/**
 * `pnpm studio:screenshots`: the README's pictures of `mime studio`, taken in Chromium (light and dark)
 * on a copy of the demo workflow and a recording not reflected yet: the list and a workflow's page. Writes docs/studio-*.png.
 */
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { startStudio } from '../packages/studio/src/server.ts';

const root = join(import.meta.dirname, '..');
const home = await mkdtemp(join(tmpdir(), 'mime-studio-shots-'));
await cp(join(root, 'fixtures', 'workflows', 'play-song-recorded'), join(home, 'workflows', 'play-song'), {
  recursive: true,
});
// A recording not reflected yet, as the list offers it.
await cp(join(root, 'fixtures', 'recordings', 'mousepad-save'), join(home, 'recordings', 'mousepad-save'), {
  recursive: true,
});
const studio = await startStudio({ home });
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
try {
  for (const scheme of ['light', 'dark'] as const) {
    const page = await browser.newPage({ viewport: { width: 1280, height: 860 }, colorScheme: scheme });
    await page.goto(studio.url);
    await page.locator('.cards img').first().waitFor();
    await page.waitForFunction(() => [...document.images].every((img) => img.complete));
    await page.screenshot({ path: join(root, 'docs', `studio-list-${scheme}.png`) });
    await page.goto(`${studio.origin}/#/w/play-song`);
    await page.locator('article.step img').first().waitFor();
    await page.waitForFunction(() =>
      [...document.querySelectorAll('article.step img')]
        .slice(0, 4)
        .every((img) => (img as HTMLImageElement).complete),
    );
    await page.screenshot({ path: join(root, 'docs', `studio-workflow-${scheme}.png`) });
    await page.close();
  }
} finally {
  await browser.close();
  await studio.close();
  await rm(home, { recursive: true, force: true });
}
process.stderr.write('wrote docs/studio-{list,workflow}-{light,dark}.png\n');
