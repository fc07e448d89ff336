/// <reference lib="dom" />
/**
 * Runs in `mime studio` as a person makes them, in a real browser, on the demo app of the harness
 * display: a run with its "step n of N" progress and the Runs list updated as it goes and as it ends;
 * a second run on the text the first left in the app fails and says so cause first (one line, its
 * crops in view, in the studio and in its report.html); re-run from a fresh app (restarted from the
 * workflow's setup) it succeeds; Pause from the studio and by the hotkey, each said as such; Re-run
 * with the same values, followed through a reload; a run started by `mime replay` in another process
 * listed as it starts and as it ends; an app whose window vanished said first, in the studio and in
 * report.html. Axe finds nothing on the pages with a run shown.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { RUN_EVENT_DATA, type RunEvent } from '@mime-desktop/schema';
import { axeViolations } from '@mime-desktop/test-support/axe';
import { demoAppSetup } from '@mime-desktop/test-support/desktop-harness';
import { copyWorkflow, readEvents, runsOf, tempDir, useDesktop } from '@mime-desktop/test-support/e2e-rig';
import { runMime, startMime } from '@mime-desktop/test-support/run-mime';
import {
  expectPlaceKept,
  holdRequests,
  statusSays,
  useStudioBrowser,
} from '@mime-desktop/test-support/studio-page';
import { waitUntil } from '@mime-desktop/test-support/wait';
import type { Frame, Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';

const desktop = useDesktop();
const { onStudioPage } = useStudioBrowser();

const HOTKEY = 'ctrl+alt+shift+p';

const outcomeLine = (page: Page) =>
  page.getByRole('list', { name: 'Run progress' }).locator('li[class^="outcome-"]');

/** The run's outcome line, once it is there. */
async function outcomeOf(page: Page): Promise<string> {
  await outcomeLine(page).waitFor({ timeout: 60_000 });
  return (await outcomeLine(page).textContent()) ?? '';
}

/** Starts a run with `button`; resolves once the page follows it (the last run's outcome is gone). */
async function startRun(page: Page, button: Locator): Promise<void> {
  const previous = await outcomeLine(page).count();
  await button.click();
  if (previous > 0) await outcomeLine(page).waitFor({ state: 'detached' });
}

/** The Runs list's items, newest first. */
const runItems = (page: Page) => page.getByRole('list', { name: 'Runs, newest first' }).getByRole('listitem');

/** The Runs list's runs that ended with success, as read from disk (a date, then the outcome). */
const endedRuns = (page: Page) => runItems(page).filter({ hasText: /success · trace · [\d.]+ s$/ });

/** The run's journal as written so far (a line being written is not read yet). */
async function journalOf(run: string): Promise<RunEvent[]> {
  return readEvents(run).catch(() => []);
}

/** Axe finds nothing on `target` (the page or its report's frame), in light and in dark. */
async function expectNoViolations(page: Page, target: Page | Frame): Promise<void> {
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme });
    expect(await axeViolations(target), colorScheme).toEqual([]);
  }
  await page.emulateMedia({ colorScheme: 'light' });
}

/** A home with the demo workflow and its setup (how to start the demo app), for fresh starts. */
async function homeWithSetup(): Promise<{ home: string; dir: string }> {
  const home = await tempDir('mime-studio-runs-');
  const dir = await copyWorkflow(
    'play-song-recorded',
    (schema) => {
      schema.setup = demoAppSetup();
    },
    { as: 'play-song', into: join(home, 'workflows') },
  );
  return { home, dir };
}

/**
 * Opens the workflow's page with no run yet, once the studio answered its runs stream: the page
 * follows the workflow's runs from then on.
 */
async function openFollowedRuns(page: Page): Promise<void> {
  const following = page.waitForResponse((r) => r.url().endsWith('/api/workflows/play-song/runs/live'));
  await page.getByRole('link', { name: /play/i }).click();
  await page.getByText('No runs yet.').waitFor();
  expect((await following).status()).toBe(200);
}

describe('runs in the studio', () => {
  it('shows step n of N and the Runs list live, says a failure cause first, re-runs it from a fresh app, pauses saying who, and re-runs', {
    timeout: 240_000,
  }, async () => {
    const { home, dir } = await homeWithSetup();
    await onStudioPage(
      home,
      async (page) => {
        await page.getByRole('link', { name: /play/i }).click();
        await page.getByRole('heading', { level: 1 }).waitFor();
        await page.getByText('No runs yet.').waitFor();
        // A first run, not fresh: it leaves "Faint" in the app's search box.
        await page.getByLabel('song_name', { exact: true }).fill('Faint');
        await page.getByLabel('Mode').selectOption('trace');
        expect(await page.getByLabel('Start from a fresh app').isChecked()).toBe(false);
        await startRun(page, page.getByRole('button', { name: 'Run', exact: true }));
        // Where the run is, as it goes: a step of the five, and the Runs list has it before it ends.
        await page
          .locator('#run-progress')
          .getByText(/^Step [1-5] of 5 · Subtask \d · Step \d: /)
          .waitFor();
        await runItems(page)
          .filter({ hasText: /^Running now · trace · / })
          .waitFor();
        expect(await outcomeOf(page)).toBe('✓ success');
        // The run ended: the list is as on disk, without a reload, and Re-run is offered.
        await expect.poll(() => endedRuns(page).count(), { timeout: 30_000 }).toBe(1);
        expect(await runItems(page).count()).toBe(1);
        expect(await axeViolations(page)).toEqual([]);

        // Run with other values: the form takes the last run's; another song, on the app as the first left it.
        await page.getByRole('button', { name: 'Run with other values' }).click();
        const song = page.getByLabel('song_name', { exact: true });
        expect(await song.inputValue()).toBe('Faint');
        expect(await page.evaluate(() => document.activeElement?.id)).toBe('run-song_name');
        await song.fill('Numb');
        // The cause's crops held: their place is kept before they load (the buttons below them stay put).
        const release = await holdRequests(page, '**/api/runs/*/file?**');
        await startRun(page, page.getByRole('button', { name: 'Run', exact: true }));
        expect(await outcomeOf(page)).toMatch(/^✗ failed \[MIME_REPLAY_DIVERGENCE\] /);
        const fresh = page.getByRole('button', { name: 'Re-run from a fresh app' });
        await fresh.waitFor();
        expect(await expectPlaceKept(page.locator('.cause-crops img'), fresh, release)).toBe(2);
        // The cause first: one line naming the step and what differed, the likely cause, the two crops
        // in the same screenful, and what to do.
        const headline = page.locator('#cause-headline');
        await headline.waitFor();
        const said = (await headline.textContent()) ?? '';
        // The place is a step, or the end of a subtask whose outcome did not show the value.
        expect(said).toMatch(/^(Step \d \(.+\)|End of subtask \d): .+ \(\d+% alike, \d+% needed\)$/);
        expect(said).not.toContain('\n');
        // The page's status line says it so too, one line (the whole message is the run's log).
        await statusSays(page, `✗ failed: ${said}`);
        expect(await page.locator('.run-cause').textContent()).toMatch(
          /Likely cause: The (screen was not at the recorded start|field held another value)/,
        );
        const crops = page.locator('.cause-crops img');
        expect(await crops.count()).toBe(2);
        await headline.scrollIntoViewIfNeeded();
        for (const crop of await crops.all()) {
          await page.waitForFunction(
            (img) => (img as HTMLImageElement).naturalWidth > 0,
            await crop.elementHandle(),
          );
          const box = await crop.boundingBox();
          const top = (await headline.boundingBox())?.y ?? 0;
          expect(box && box.y + box.height - top).toBeLessThan(900);
        }
        await page.getByRole('button', { name: /^Open the (step|subtask)$/ }).waitFor();
        await expectNoViolations(page, page);
        await startRun(page, page.getByRole('button', { name: 'Re-run from a fresh app' }));
        // Paused from the studio as it starts (a fresh app, the same song); then the hotkey resumes and pauses it, and the studio resumes it.
        await page.getByRole('button', { name: 'Pause' }).click();
        const log = page.getByRole('list', { name: 'Run progress' });
        await page
          .locator('#run-paused')
          .getByText('Paused from the studio: the run waits before its next action')
          .waitFor({ timeout: 30_000 });
        await desktop().pressKeys(HOTKEY);
        await log.getByText(`Resumed by the hotkey ${HOTKEY}`, { exact: true }).waitFor();
        await desktop().pressKeys(HOTKEY);
        await page
          .locator('#run-paused')
          .getByText(`Paused by the hotkey ${HOTKEY}: the run waits before its next action`)
          .waitFor();
        await page.getByRole('button', { name: 'Resume' }).click();
        await log.getByText('Resumed from the studio', { exact: true }).waitFor();
        expect(await page.locator('#run-paused').isHidden()).toBe(true);
        expect(await outcomeOf(page), (await log.textContent()) ?? '').toBe('✓ success');
        await log.getByText('Started from a fresh app (restarted from its setup)').waitFor();
        expect(await page.locator('.run-cause').count()).toBe(0);
        await expect.poll(() => endedRuns(page).count(), { timeout: 30_000 }).toBe(2);

        // Re-run: the same values, mode and fresh start, nothing typed again.
        await startRun(page, page.getByRole('button', { name: 'Re-run', exact: true }));
        // Paused, a page reloaded during the run finds it again: its progress, its pause, the Runs list.
        await page.getByRole('button', { name: 'Pause' }).click();
        await page.locator('#run-paused').getByText('Paused from the studio').waitFor({ timeout: 30_000 });
        await page.reload();
        await page.locator('#run-paused').getByText('Paused from the studio').waitFor();
        await runItems(page)
          .filter({ hasText: /^Running now · trace · / })
          .waitFor();
        await page.getByRole('button', { name: 'Resume' }).click();
        expect(await outcomeOf(page), (await log.textContent()) ?? '').toBe('✓ success');
        // Once it ended (its report written), Run is back and the list is as on disk.
        await page.locator('#run-start:enabled').waitFor();
        await expect.poll(() => endedRuns(page).count(), { timeout: 30_000 }).toBe(3);
        expect(await runItems(page).count()).toBe(4);

        // The failed run's report says it cause first too, its crops in the frame's first screenful.
        await runItems(page).filter({ hasText: 'failed' }).getByRole('link').click();
        const report = page.frameLocator('iframe[title="Run report"]');
        const reportHeadline = report.locator('#cause-headline');
        await reportHeadline.waitFor();
        expect(await reportHeadline.textContent()).toBe(said);
        for (const crop of await report.locator('.cause img').all()) {
          expect(await crop.evaluate((img) => img.getBoundingClientRect().bottom <= window.innerHeight)).toBe(
            true,
          );
        }
        const frame = page.frames().find((f) => f.url().endsWith('/report'));
        if (!frame) throw new Error('the run page has no report frame');
        await expectNoViolations(page, frame);
      },
      desktop().env,
    );
    const runs = await runsOf(dir);
    expect(runs).toHaveLength(4);
    const summaries = await Promise.all(
      runs.map(async (run) => JSON.parse(await readFile(join(run, 'summary.json'), 'utf8'))),
    );
    expect(summaries.map((s) => [s.outcome, s.params.song_name, s.extracts.song_now_playing])).toEqual([
      ['success', 'Faint', 'Faint'],
      ['failed', 'Numb', undefined],
      ['success', 'Numb', 'Numb'],
      ['success', 'Numb', 'Numb'],
    ]);
    const setups = await Promise.all(
      runs.map(async (run) => (await readEvents(run)).find((e) => e.type === 'setup')),
    );
    expect(setups.map((e) => e?.data.fresh ?? false)).toEqual([false, false, true, true]);
  });

  it('lists a run started from the command line as it starts, then its outcome, without a reload', {
    timeout: 120_000,
  }, async () => {
    const { home, dir } = await homeWithSetup();
    await onStudioPage(
      home,
      async (page) => {
        await openFollowedRuns(page);
        const replay = runMime(['replay', dir, '--mode', 'trace', '--fresh', '--param', 'song_name=Faint'], {
          env: desktop().env,
        });
        // The run's folder is made as it starts: the list gains it as going on, with its mode.
        const started = await Promise.race([
          runItems(page)
            .filter({ hasText: /^Running now · trace · / })
            .waitFor({ timeout: 60_000 })
            .then(() => true),
          replay.then(() => false),
        ]);
        expect(started, 'the run was listed before it ended').toBe(true);
        const result = await replay;
        expect(result.exitCode, result.stderr).toBe(0);
        // Its summary is written as it ends: the list shows its outcome, still without a reload.
        await endedRuns(page).waitFor({ timeout: 30_000 });
        expect(await runItems(page).count()).toBe(1);
        expect(await page.getByText('No runs yet.').count()).toBe(0);
      },
      desktop().env,
    );
  });

  it('lists a command-line run going on with its mode and step, and the same run killed with SIGKILL as interrupted, without a reload', {
    timeout: 120_000,
  }, async () => {
    const { home, dir } = await homeWithSetup();
    await onStudioPage(
      home,
      async (page) => {
        await openFollowedRuns(page);
        const replay = startMime(
          ['replay', dir, '--mode', 'trace', '--fresh', '--param', 'song_name=Faint'],
          {
            env: desktop().env,
          },
        );
        // Held once its journal has a step: stopped (SIGSTOP), it cannot end before the studio lists
        // it, as a pause by the hotkey could on a busy machine (the key landing after its last
        // action). The hotkey's pause is tested in replay-modes.test and above.
        const run = await waitUntil(async () => (await runsOf(dir).catch(() => []))[0], {
          timeoutMs: 60_000,
          what: 'the run folder',
        });
        await waitUntil(async () => (await journalOf(run)).some((e) => e.type === 'step'), {
          timeoutMs: 60_000,
          intervalMs: 25,
          what: "the run's first step",
        });
        const start = (await journalOf(run)).find((e) => e.type === 'run_start');
        const pid = start && RUN_EVENT_DATA.run_start.parse(start.data).process?.pid;
        if (!pid) throw new Error('the run_start event names no process');
        process.kill(pid, 'SIGSTOP');
        const going = runItems(page).filter({
          hasText: /^Running now · trace · Step [1-5] of 5 · Subtask \d · Step \d: \S/,
        });
        await going.waitFor();
        process.kill(pid, 'SIGKILL');
        const result = await replay.done;
        expect(result.exitCode).not.toBe(0);
        // Nothing is written when a process is killed: the studio tells that it is gone.
        await runItems(page)
          .filter({ hasText: /interrupted · trace$/ })
          .waitFor({ timeout: 10_000 });
        expect(await going.count()).toBe(0);
        expect(await runItems(page).count()).toBe(1);
        expect(existsSync(join(run, 'summary.json'))).toBe(false);
      },
      desktop().env,
    );
  });

  it('says an app whose window vanished during the run as such, first, in a tab that follows the run too and in its report.html', {
    timeout: 120_000,
  }, async () => {
    const { home, dir } = await homeWithSetup();
    await onStudioPage(
      home,
      async (page) => {
        await page.getByRole('link', { name: /play/i }).click();
        // Another tab on the same workflow, open before the run starts.
        const browser = page.context().browser();
        if (!browser) throw new Error('the page has no browser');
        const tab = await browser.newContext({ viewport: { width: 1280, height: 900 } });
        await tab.addCookies(await page.context().cookies());
        const other = await tab.newPage();
        await other.goto(page.url());
        await other.getByText('No runs yet.').waitFor();
        await page.getByLabel('song_name', { exact: true }).fill('Faint');
        await page.getByLabel('Mode').selectOption('trace');
        await page.getByLabel('Start from a fresh app').check();
        await startRun(page, page.getByRole('button', { name: 'Run', exact: true }));
        // Paused before its first action, the app's window is closed; then the run goes on.
        await page.getByRole('button', { name: 'Pause' }).click();
        await page.locator('#run-paused').getByText('Paused from the studio').waitFor({ timeout: 30_000 });
        // The other tab follows it as it starts, without a reload: the Runs list, the pause.
        await runItems(other)
          .filter({ hasText: /^Running now · trace · / })
          .waitFor();
        await other.locator('#run-paused').getByText('Paused from the studio').waitFor();
        await page
          .getByRole('list', { name: 'Run progress' })
          .getByText('Started from a fresh app (restarted from its setup)')
          .waitFor({ timeout: 30_000 });
        const windows = (await desktop().xdotool('search', '--onlyvisible', '--name', '^mime-demo ')).split(
          '\n',
        );
        for (const id of windows.filter(Boolean)) await desktop().xdotool('windowkill', id);
        await page.getByRole('button', { name: 'Resume' }).click();
        expect(await outcomeOf(page)).toMatch(/^✗ failed /);
        const headline = page.locator('#cause-headline');
        await headline.waitFor();
        const windowGone =
          /^(Step \d|The run) could not go on: the app's window is gone \(no window with title \/\^mime-demo \/ is open\)$/;
        expect(await headline.textContent()).toMatch(windowGone);
        expect(await page.locator('.run-cause').textContent()).toContain(
          'Likely cause: The app was closed, or ended, during the run',
        );
        await page.getByRole('button', { name: 'Re-run from a fresh app' }).waitFor();
        // The other tab got the run's end too, its cause and its place in the list.
        await other
          .locator('#cause-headline')
          .getByText("could not go on: the app's window is gone")
          .waitFor();
        await runItems(other).filter({ hasText: 'failed' }).waitFor();
        await tab.close();
        // Its report.html says it first too, from the run's journal: the cause's headline, then the likely cause.
        await page.locator('#run-start:enabled').waitFor();
        await runItems(page).filter({ hasText: 'failed' }).getByRole('link').click();
        const report = page.frameLocator('iframe[title="Run report"]');
        expect(await report.locator('#cause-headline').textContent()).toMatch(windowGone);
        expect(await report.locator('.cause-likely').textContent()).toContain(
          'Likely cause: The app was closed, or ended, during the run',
        );
      },
      desktop().env,
    );
    const [run] = await runsOf(dir);
    if (!run) throw new Error('the run left no folder');
    const gone = (await readEvents(run)).filter((e) => e.type === 'app_window_gone');
    expect(gone.map((e) => e.data)).toEqual([{ window: 'title /^mime-demo /' }]);
  });
});
