/// <reference lib="dom" />
/**
 * The studio's pages and report.html checked by axe-core in a real browser (playwright-core driving the
 * system's Chromium), in the light and the dark scheme: the list (with a recording to reflect), a
 * workflow (as opened, and with a draft that has a problem and an open step form), a run's page of a
 * success and of a failure with their reports framed, and each report.html opened on its own. Also the
 * skip link and "go to step".
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeReport } from '@mime-desktop/report';
import { axeViolations } from '@mime-desktop/test-support/axe';
import { copyFixture, copyWorkflow, tempDir } from '@mime-desktop/test-support/e2e-rig';
import { statusSays, useStudioBrowser } from '@mime-desktop/test-support/studio-page';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';

const { onStudioPage } = useStudioBrowser();

const SUCCESS = '20261122T154259Z-e62b';
const FAILURE = '20261122T160000Z-f41d';

/** A home with the demo workflow, a recording not reflected yet, and two runs with their reports. */
async function homeWithRuns(): Promise<{ home: string; runs: string }> {
  const home = await tempDir('mime-studio-axe-');
  const dir = await copyWorkflow('play-song-recorded', undefined, {
    as: 'play-song',
    into: join(home, 'workflows'),
  });
  await copyFixture('recordings/play-song', join(home, 'recordings', 'another-take'));
  const runs = join(dir, '.replay');
  await mkdir(runs, { recursive: true });
  await copyFixture('runs/play-song-replan', join(runs, SUCCESS));
  await copyFixture('runs/play-song-replan', join(runs, FAILURE));
  const summaryFile = join(runs, FAILURE, 'summary.json');
  const summary = JSON.parse(await readFile(summaryFile, 'utf8'));
  Object.assign(summary, {
    run_id: FAILURE,
    outcome: 'failed',
    code: 'MIME_REPLAY_DIVERGENCE',
    reason: 'step 3 (key enter): the screen did not change the way the recording shows',
  });
  await writeFile(summaryFile, JSON.stringify(summary));
  for (const run of [SUCCESS, FAILURE]) await writeReport(join(runs, run));
  return { home, runs };
}

describe('mime studio accessibility', () => {
  it('has no axe-core violation on any page, in light and dark', {
    timeout: 120_000,
  }, async () => {
    const { home, runs } = await homeWithRuns();
    await onStudioPage(home, async (page) => {
      const found: Record<string, string[]> = {};
      const check = async (name: string, target: Parameters<typeof axeViolations>[0] = page) => {
        const violations = await axeViolations(target);
        if (violations.length > 0) found[name] = violations;
      };
      const origin = new URL(page.url()).origin;
      for (const colorScheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme });
        await page.goto(`${origin}/#/`);
        await page.getByRole('region', { name: 'Recordings not reflected yet' }).waitFor();
        await check(`${colorScheme}: the list`);
        await page.goto(`${origin}/#/w/play-song`);
        await page.getByRole('heading', { level: 1, name: 'play song' }).waitFor();
        await check(`${colorScheme}: a workflow`);
        await withProblem(page);
        await check(`${colorScheme}: a workflow with a problem in its draft`);
        await page.getByRole('button', { name: 'Revert' }).click();
        await statusSays(page, 'Reverted');
        for (const run of [SUCCESS, FAILURE]) {
          await page.goto(`${origin}/#/w/play-song/r/${run}`);
          const report = page.frameLocator('iframe[title="Run report"]');
          await report
            .locator('body')
            .getByText(/Replan/)
            .first()
            .waitFor();
          await check(`${colorScheme}: the page of run ${run}`);
          const frame = page.frames().find((f) => f.url().endsWith(`/runs/${run}/report`));
          if (!frame) throw new Error(`the report of ${run} is not framed`);
          await check(`${colorScheme}: the report of run ${run} in the page`, frame);
          await page.goto(`file://${join(runs, run, 'report.html')}`);
          await check(`${colorScheme}: report.html of run ${run}`);
        }
      }
      expect(found).toEqual({});
    });
  });

  it('skips to the content, goes to a step by its number, and moves the focus to what a failed save says', {
    timeout: 60_000,
  }, async () => {
    const { home } = await homeWithRuns();
    await onStudioPage(home, async (page) => {
      await page.getByRole('link', { name: /play/i }).click();
      await page.getByRole('heading', { level: 1, name: 'play song' }).waitFor();
      const focused = () =>
        page.evaluate(() => document.activeElement?.id || document.activeElement?.tagName);
      // The page is shown once its route focused its content (its heading comes before the rest loads).
      await expect.poll(focused).toBe('main');
      // The skip link comes first, before the header's link.
      await page.getByRole('link', { name: 'mime studio' }).focus();
      await page.keyboard.press('Shift+Tab');
      expect(await page.evaluate(() => document.activeElement?.textContent)).toBe(
        "Skip to the page's content",
      );
      await page.keyboard.press('Enter');
      expect(await focused()).toBe('main');
      expect(new URL(page.url()).hash).toBe('#/w/play-song');
      // "Go to step" moves past the controls of the steps before it.
      await page.getByLabel(/^Go to step/).fill('4');
      await page.getByLabel(/^Go to step/).press('Enter');
      expect(await focused()).toBe('step-3');
      expect(await page.getByRole('article', { name: 'Subtask 2 · Step 4' }).isVisible()).toBe(true);
      // A save refused (the file changed on disk) moves the focus to what it says.
      await page.getByLabel('Example of song_name').fill('Faint');
      await page.getByLabel('Example of song_name').press('Enter');
      await statusSays(page, 'example is "Faint" now');
      expect(await focused()).toBe('example-song_name');
      const file = join(home, 'workflows', 'play-song', 'schema.json');
      await writeFile(file, (await readFile(file, 'utf8')).replace('"task_name": "', '"task_name": "new: '));
      await page.getByRole('button', { name: 'Save' }).click();
      await statusSays(page, 'changed on disk since you opened it');
      expect(await focused()).toBe('draft-state');
      expect(await page.locator('#draft-state').textContent()).toMatch(/changed on disk since you opened it/);
    });
  });
});

/** A draft with a problem (a value naming no param), warnings, and its forms open. */
async function withProblem(page: Page): Promise<void> {
  await page.getByText('Edit step 2', { exact: true }).click();
  await page.getByLabel('Value').fill('{artist}');
  await page.getByRole('button', { name: 'Apply to step 2' }).click();
  await statusSays(page, 'step 2 changed');
  await page.getByRole('region', { name: '1 problem to fix before saving' }).waitFor();
  // A param used nowhere and without an example: two warnings beside the problem.
  await page.getByLabel('Add a param named').fill('album');
  await page.getByRole('button', { name: 'Add param', exact: true }).click();
  await page.getByRole('region', { name: /^2 warnings/ }).waitFor();
  // The forms that open on demand, open.
  for (const summary of [
    'Rename or describe this workflow',
    'Duplicate this workflow',
    'Add a subtask after subtask 1',
    'Add a step after step 1',
  ]) {
    await page.getByText(summary).click();
  }
}
