/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
/**
 * How fast a workflow's page is ready in a real browser: a workflow of 50 steps (the demo's 5 steps,
 * ten times over, with their screenshots), from navigating to its page to all 50 step cards shown
 * with the screenshots in view decoded (the others load lazily, as the page scrolls): opened from
 * the list in an open tab, and as the first page of a fresh browser context. The HTTP cache is off.
 * Chromium headless through playwright-core, the studio on 127.0.0.1. Medians of 7 loads. Run from
 * the repository root: `pnpm bench studio`.
 */
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkWorkflow } from '@mime-desktop/schema';
import { REPO_ROOT } from '@mime-desktop/test-support/run-mime';
import { chromium, type Page } from 'playwright-core';
import { startStudio } from '../src/server.ts';

const LOADS = 7;
const COPIES = 10;
const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;

const home = await mkdtemp(join(tmpdir(), 'mime-bench-studio-'));
const dir = join(home, 'workflows', 'long');
await cp(join(REPO_ROOT, 'fixtures', 'workflows', 'play-song-recorded'), dir, { recursive: true });
const schema = JSON.parse(await readFile(join(dir, 'schema.json'), 'utf8'));
const subtasks: Array<{ steps: Array<{ variable_name: string | null }> }> = schema.plan.subtasks;
let i = 0;
// Ten copies of the demo's subtasks, steps renumbered, each copy's extract under its own name.
schema.plan.subtasks = Array.from({ length: COPIES }, (_, copy) =>
  subtasks.map((subtask, k) => ({
    ...subtask,
    subtask_i: copy * subtasks.length + k,
    steps: subtask.steps.map((step) => ({
      ...step,
      i: i++,
      variable_name: step.variable_name && `${step.variable_name}_${copy}`,
    })),
  })),
).flat();
const checked = checkWorkflow(schema);
if (!checked.ok) throw new Error(`the ${i}-step workflow is not valid: ${JSON.stringify(checked.problems)}`);
await writeFile(join(dir, 'schema.json'), JSON.stringify(schema));

const studio = await startStudio({ home });
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
try {
  /** Waits until all 50 cards are shown and the screenshots in view decoded (the others load lazily). */
  const ready = (page: Page) =>
    page.waitForFunction(
      (count) => {
        const cards = document.querySelectorAll('article.step');
        const inView = [...document.querySelectorAll('article.step img')].filter(
          (img) => img.getBoundingClientRect().top < innerHeight,
        );
        return (
          cards.length === count &&
          inView.length > 0 &&
          inView.every(
            (img) => (img as HTMLImageElement).complete && (img as HTMLImageElement).naturalWidth > 0,
          )
        );
      },
      i,
      { polling: 'raf' },
    );
  // Opening the workflow from the list in an open studio tab, the HTTP cache off (the workflow and
  // its screenshots fetched every time).
  const opened: number[] = [];
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  await (await context.newCDPSession(page)).send('Network.setCacheDisabled', { cacheDisabled: true });
  await page.goto(studio.url);
  for (let load = 0; load < LOADS; load += 1) {
    await page.goto(`${studio.origin}/#/`);
    await page.locator('.cards').waitFor();
    const started = performance.now();
    await page.goto(`${studio.origin}/#/w/long`);
    await ready(page);
    opened.push(performance.now() - started);
  }
  await context.close();
  // The first page of a fresh browser context: the studio's HTML, script and styles loaded too; and,
  // for scale, the same for the list page of an empty home (what any page costs there).
  const cold: number[] = [];
  const floor: number[] = [];
  const emptyHome = await mkdtemp(join(tmpdir(), 'mime-bench-empty-'));
  const empty = await startStudio({ home: emptyHome });
  for (let load = 0; load < LOADS; load += 1) {
    for (const [server, path, times] of [
      [studio, '/#/w/long', cold],
      [empty, '/#/', floor],
    ] as const) {
      const fresh = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      await fresh.addCookies([{ name: 'mime_studio', value: server.token, url: server.origin }]);
      const first = await fresh.newPage();
      const started = performance.now();
      await first.goto(`${server.origin}${path}`);
      if (server === studio) await ready(first);
      else await first.locator('main h1').waitFor();
      times.push(performance.now() - started);
      await fresh.close();
    }
  }
  await empty.close();
  await rm(emptyHome, { recursive: true, force: true });
  process.stdout.write(
    `studio: a ${i}-step workflow's page ready (all cards, the screenshots in view decoded): opened from the list ${median(opened).toFixed(0)} ms, in a fresh browser context ${median(cold).toFixed(0)} ms (an empty home's list page there: ${median(floor).toFixed(0)} ms) (medians of ${LOADS}, Chromium headless, no HTTP cache)\n`,
  );
} finally {
  await browser.close();
  await studio.close();
  await rm(home, { recursive: true, force: true });
}
