/// <reference lib="dom" />
/**
 * Reading a run like a trace, and light pages, in `mime studio` in a real browser: on a wide window a
 * run's steps beside the selected step's large screen (before or after it, zoomed), `j`/`k` moving the
 * selection, a step's own address opening it selected; screenshots served at the size shown (WebP,
 * smaller than the frame) and revalidated with 304; a 200-step workflow opening with its subtasks
 * collapsed, a step of one of them reached by "go to step", an edit of it sent and answered small; of two addresses
 * that follow quickly, the last stays shown though the first loads slower. Axe finds nothing, light
 * and dark.
 */
import { copyFile, mkdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { axeViolations } from '@mime-desktop/test-support/axe';
import { copyFixture, copyWorkflow, tempDir } from '@mime-desktop/test-support/e2e-rig';
import { writeLongWorkflow } from '@mime-desktop/test-support/long-workflow';
import { holdRequests, statusSays, useStudioBrowser } from '@mime-desktop/test-support/studio-page';
import type { Page, Request } from 'playwright-core';
import { describe, expect, it } from 'vitest';

const { onStudioPage } = useStudioBrowser();

const RUN = '20261122T154259Z-e62b';

/** A home with the demo workflow and one run of it whose every capture kept its frame. */
async function homeWithRun(): Promise<{ home: string; run: string; frames: string[] }> {
  const home = await tempDir('mime-studio-trace-');
  const dir = await copyWorkflow('play-song-recorded', undefined, {
    as: 'play-song',
    into: join(home, 'workflows'),
  });
  const run = join(dir, '.replay', RUN);
  await mkdir(join(dir, '.replay'), { recursive: true });
  await copyFixture('runs/play-song-replan', run);
  // The fixture keeps two frames; each capture gets one of the recorded screens, in turn.
  const events = (await readFile(join(run, 'events.jsonl'), 'utf8'))
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  const frames: string[] = [
    ...new Set<string>(events.filter((e) => e.type === 'capture').map((e) => e.data.screenshot)),
  ];
  for (const [n, frame] of frames.entries()) {
    await copyFile(join(dir, 'screenshots', `${n % 5}.png`), join(run, frame));
  }
  return { home, run, frames };
}

/** Axe finds nothing on the page, in light and in dark. */
async function expectNoViolations(page: Page, where: string): Promise<void> {
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme });
    expect(await axeViolations(page), `${where}, ${colorScheme}`).toEqual([]);
  }
  await page.emulateMedia({ colorScheme: 'light' });
}

const selected = (page: Page) =>
  page.getByRole('navigation', { name: 'Steps of this run' }).locator('[aria-current="step"]');

describe('a run read like a trace', () => {
  it('lists the steps beside the large screen, moves with j and k, toggles and zooms, and links to a step', {
    timeout: 90_000,
  }, async () => {
    const { home, frames } = await homeWithRun();
    await onStudioPage(home, async (page) => {
      await page.setViewportSize({ width: 1400, height: 900 });
      const origin = new URL(page.url()).origin;
      // The frames held: each picture has the run's 1280x800 shape before its pixels come (the run
      // predates run_start's screen: it is read from a frame), and the list does not move as they load.
      const release = await holdRequests(page, '**/file?**');
      await page.goto(`${origin}/#/w/play-song/r/${RUN}`, { waitUntil: 'commit' });
      const list = page.getByRole('navigation', { name: 'Steps of this run' });
      await list.waitFor();
      expect(await list.getByRole('link').count()).toBe(frames.length);
      const shapes = await page
        .locator('.trace-item img, .trace-image')
        .evaluateAll((images) => images.map((i) => ({ width: i.clientWidth, height: i.clientHeight })));
      expect(shapes).toHaveLength(frames.length + 1);
      for (const { width, height } of shapes) {
        expect(width).toBeGreaterThan(0);
        expect(Math.abs(height - (width * 800) / 1280)).toBeLessThan(1);
      }
      const last = list.getByRole('link').last();
      await last.scrollIntoViewIfNeeded();
      const placed = await last.boundingBox();
      release();
      await page.waitForFunction(() =>
        [...document.querySelectorAll<HTMLImageElement>('.trace-item img')]
          .filter((i) => i.getBoundingClientRect().bottom > 0 && i.getBoundingClientRect().top < innerHeight)
          .every((i) => i.complete && i.naturalWidth > 0),
      );
      expect(await last.boundingBox()).toEqual(placed);
      expect(await selected(page).textContent()).toMatch(/^1\. Subtask 1 · Turn 1/);
      // Wide: the list beside the screen, not above it.
      const listBox = await list.boundingBox();
      const viewBox = await page.locator('figure.trace-view').boundingBox();
      expect(listBox && viewBox && listBox.x + listBox.width <= viewBox.x).toBe(true);
      const image = page.getByRole('region', { name: 'Screen of the selected step' }).locator('img');
      const shown = () =>
        image.evaluate((img: HTMLImageElement) => new URL(img.src).searchParams.get('path'));
      expect(await shown()).toBe(frames[0]);

      // j and k move the selection, the address follows it.
      await page.keyboard.press('j');
      await page.keyboard.press('j');
      expect(await selected(page).textContent()).toMatch(/^3\. /);
      expect(new URL(page.url()).hash).toBe(`#/w/play-song/r/${RUN}/s/3`);
      expect(await page.locator('#trace-caption').textContent()).toMatch(
        new RegExp(`^Step 3 of ${frames.length}`),
      );
      expect(await shown()).toBe(frames[2]);
      await page.keyboard.press('k');
      expect(await selected(page).textContent()).toMatch(/^2\. /);
      expect(await shown()).toBe(frames[1]);

      // After: the next step's screen; zoom: the frame at its own size.
      await page.getByRole('button', { name: 'After' }).click();
      expect(await page.getByRole('button', { name: 'After' }).getAttribute('aria-pressed')).toBe('true');
      expect(await shown()).toBe(frames[2]);
      await page.getByRole('button', { name: 'Zoom' }).click();
      await page.waitForFunction(() => {
        const img = document.querySelector<HTMLImageElement>('.trace-image');
        return img?.complete && img.naturalWidth === 1280 && img.getBoundingClientRect().width === 1280;
      });
      await expectNoViolations(page, 'a run read like a trace, zoomed');

      // A step's address opens it selected, in a page loaded afresh.
      await page.goto('about:blank');
      await page.goto(`${origin}/#/w/play-song/r/${RUN}/s/5`);
      await selected(page).waitFor();
      expect(await selected(page).textContent()).toMatch(/^5\. /);
      expect(await shown()).toBe(frames[4]);
      await page.getByRole('link', { name: /^7\. / }).click();
      expect(await selected(page).textContent()).toMatch(/^7\. /);
      expect(new URL(page.url()).hash).toBe(`#/w/play-song/r/${RUN}/s/7`);
      await expectNoViolations(page, 'a run read like a trace');
    });
  });

  it('shows the page asked for last when two addresses follow quickly, the first one slower to load', {
    timeout: 60_000,
  }, async () => {
    const { home } = await homeWithRun();
    await onStudioPage(home, async (page) => {
      await page.getByRole('heading', { level: 1, name: 'Workflows' }).waitFor();
      // The run's page answers only when the test lets it: a slow first page.
      let release: (() => void) | undefined;
      const released = new Promise<void>((resolve) => {
        release = resolve;
      });
      const runApi = (url: URL) => url.pathname === `/api/workflows/play-song/runs/${RUN}`;
      const held = new Promise<void>((resolve) => {
        void page.route(runApi, async (route) => {
          resolve();
          await released;
          // Given up by the page, the request has nothing left to answer.
          await route.continue().catch(() => undefined);
        });
      });
      // The run's call ends answered, or given up by the page.
      const ended = new Promise<void>((resolve) => {
        const end = (request: Request) => runApi(new URL(request.url())) && resolve();
        page.on('requestfinished', end);
        page.on('requestfailed', end);
      });
      await page.evaluate((run) => {
        location.hash = `#/w/play-song/r/${run}`;
      }, RUN);
      await held;
      // The workflow's page, asked for next, loads first.
      await page.evaluate(() => {
        location.hash = '#/w/play-song';
      });
      const runs = page.getByRole('list', { name: 'Runs, newest first' });
      await runs.waitFor();
      release?.();
      await ended;
      // Anything the run's late answer would do is done by the time the page's own next call is answered.
      await page.evaluate(async () => {
        await (await fetch('/api/workflows')).json();
        await new Promise((resolve) => requestAnimationFrame(resolve));
      });
      expect(await page.getByRole('heading', { level: 1 }).textContent()).not.toMatch(/^Run /);
      expect(await runs.isVisible()).toBe(true);
      expect(await page.locator('iframe[title="Run report"]').count()).toBe(0);
      expect(new URL(page.url()).hash).toBe('#/w/play-song');
    });
  });

  it('serves screenshots at the size shown, revalidated with 304, and opens a 200-step workflow collapsed', {
    timeout: 90_000,
  }, async () => {
    const { home, run, frames } = await homeWithRun();
    const { steps, subtasks } = await writeLongWorkflow(join(home, 'workflows', 'long'), 40);
    expect(steps).toBe(200);
    await onStudioPage(home, async (page) => {
      const origin = new URL(page.url()).origin;
      // A thumbnail: WebP at the width asked, smaller than the frame; asked again with its ETag, 304.
      const url = `${origin}/api/workflows/play-song/runs/${RUN}/file?path=${encodeURIComponent(frames[0] ?? '')}`;
      const thumb = await page.request.get(`${url}&w=160`);
      expect(thumb.status()).toBe(200);
      expect(thumb.headers()['content-type']).toBe('image/webp');
      expect(thumb.headers()['cache-control']).toBe('private, no-cache');
      const body = await thumb.body();
      expect(body.length).toBeLessThan((await stat(join(run, frames[0] ?? ''))).size / 4);
      const etag = thumb.headers().etag ?? '';
      expect(etag).toMatch(/^"[\w-]+-w160"$/);
      const again = await page.request.get(`${url}&w=160`, { headers: { 'if-none-match': etag } });
      expect(again.status()).toBe(304);
      expect((await page.request.get(`${url}&w=5`)).status()).toBe(400);

      // The long workflow: every subtask shown, its steps collapsed; the cards' screens are scaled ones.
      await page.goto(`${origin}/#/w/long`);
      await page.locator('section.subtask').first().waitFor();
      const collapsed = page.locator('details.subtask-steps:not([open])');
      expect(await page.locator('section.subtask').count()).toBe(subtasks);
      expect(await collapsed.count()).toBe(subtasks);
      await expectNoViolations(page, 'a 200-step workflow');
      await page.getByLabel(/^Go to step/).fill('150');
      await page.getByLabel(/^Go to step/).press('Enter');
      const card = page.getByRole('article', { name: /· Step 150$/ });
      await card.waitFor();
      expect(await card.isVisible()).toBe(true);
      expect(await page.evaluate(() => document.activeElement?.id)).toBe('step-149');
      expect(await collapsed.count()).toBe(subtasks - 1);
      const before = card.getByRole('img', { name: /^Before/ });
      await before.evaluate((img: HTMLImageElement) => img.decode());
      const src = await before.evaluate((img: HTMLImageElement) => img.currentSrc);
      expect(src).toMatch(/&w=(360|720)$/);
      await expectNoViolations(page, 'a 200-step workflow with a subtask open');

      // An edit is sent as the edit and the key of the draft, not the 200-step workflow whole.
      const sent: number[] = [];
      const answered: Promise<number>[] = [];
      page.on('request', (request) => {
        if (request.url().endsWith('/api/workflows/long/edit')) sent.push(request.postData()?.length ?? 0);
      });
      page.on('response', (response) => {
        if (response.url().endsWith('/api/workflows/long/edit'))
          answered.push(response.body().then((body) => body.length));
      });
      for (const name of ['long play', 'longer play']) {
        // The form stays open after an edit made with it.
        const field = page.getByLabel('Name', { exact: true });
        if (!(await field.isVisible())) await page.getByText('Rename or describe this workflow').click();
        await field.fill(name);
        await page.getByRole('button', { name: 'Apply to the workflow' }).click();
        await statusSays(page, `the workflow is "${name}" now`);
        await page.getByRole('heading', { level: 1, name }).waitFor();
      }
      expect(sent).toHaveLength(2);
      for (const length of sent) expect(length).toBeLessThan(1000);
      // Its answer names what changed (the name), not the draft whole.
      expect(answered).toHaveLength(2);
      for (const length of await Promise.all(answered)) expect(length).toBeLessThan(1000);
    });
  });
});
