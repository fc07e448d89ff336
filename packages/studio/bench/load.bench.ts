/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
/**
 * How fast a long workflow's page is ready in a real browser: 200 steps (the demo's 5 steps, forty
 * times over, with their screenshots), from navigating to its page to every subtask shown (their steps
 * collapsed, as a long workflow opens) with the screenshots in view decoded: opened from the list in
 * an open tab, and as the first page of a fresh browser context. The HTTP cache is off. Chromium
 * headless through playwright-core, the studio on 127.0.0.1. Medians of 7 loads. Run from the
 * repository root: `pnpm bench load` (or `pnpm bench studio`, every bench of the studio).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeLongWorkflow } from '@mime-desktop/test-support/long-workflow';
import { chromium, type Page } from 'playwright-core';
import { startStudio } from '../src/server.ts';

const LOADS = 7;
const COPIES = 40;
const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;

const home = await mkdtemp(join(tmpdir(), 'mime-bench-studio-'));
const { steps: i, subtasks } = await writeLongWorkflow(join(home, 'workflows', 'long'), COPIES);

const studio = await startStudio({ home });
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
try {
  /** Waits until every subtask is shown and the screenshots in view decoded (the others load lazily). */
  const ready = (page: Page) =>
    page.waitForFunction(
      (count) => {
        const sections = document.querySelectorAll('section.subtask');
        const inView = [...document.querySelectorAll('main img')].filter((img) => {
          const box = img.getBoundingClientRect();
          return box.height > 0 && box.top < innerHeight;
        });
        return (
          sections.length === count &&
          inView.every(
            (img) => (img as HTMLImageElement).complete && (img as HTMLImageElement).naturalWidth > 0,
          )
        );
      },
      subtasks,
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
    `studio: a ${i}-step workflow's page ready (all ${subtasks} subtasks, the screenshots in view decoded): opened from the list ${median(opened).toFixed(0)} ms, in a fresh browser context ${median(cold).toFixed(0)} ms (an empty home's list page there: ${median(floor).toFixed(0)} ms) (medians of ${LOADS}, Chromium headless, no HTTP cache)\n`,
  );
} finally {
  await browser.close();
  await studio.close();
  await rm(home, { recursive: true, force: true });
}
