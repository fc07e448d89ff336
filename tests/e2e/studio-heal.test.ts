/// <reference lib="dom" />
/**
 * A heal accepted in `mime studio` (a real Chromium through playwright-core): the demo workflow replayed
 * in auto mode on a restyled app (moved 40x24 px, its Play buttons now read "Listen") learns a heal;
 * the workflow's page lists the run, whose page embeds its report and shows each change of the heal
 * side by side (the recorded steps and the run's, a change a subtask). The first subtask's change (a
 * step found at a new place) is rejected, the agent's subtask accepted: the file on disk keeps the
 * first subtask as recorded and takes the agent's steps, and the next auto replay on that app re-finds
 * the moved step by itself and needs no model.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { loadWorkflow } from '@mime-desktop/schema';
import { axeViolations } from '@mime-desktop/test-support/axe';
import { copyWorkflow, tempDir } from '@mime-desktop/test-support/e2e-rig';
import { useModelRig } from '@mime-desktop/test-support/model-rig';
import { runMime } from '@mime-desktop/test-support/run-mime';
import {
  expectPlaceKept,
  holdRequests,
  statusSays,
  useStudioBrowser,
} from '@mime-desktop/test-support/studio-page';
import { describe, expect, it } from 'vitest';

const rig = useModelRig({ query: 'dx=40&dy=24&play=Listen' });
const { onStudioPage } = useStudioBrowser();

async function autoReplay(workflow: string, song: string) {
  await rig.desktop.resetApp();
  const result = await runMime(['replay', workflow, '--param', `song_name=${song}`, '--json'], {
    env: rig.env(),
  });
  expect(result.exitCode, result.stderr).toBe(0);
  return JSON.parse(result.stdout) as { run_id: string; usage: { calls: number } };
}

describe('mime studio heal', () => {
  it('shows a run with its report and heal, and applies the heal change by change', {
    timeout: 180_000,
  }, async () => {
    const model = rig.useModel();
    const home = await tempDir('mime-studio-heal-');
    const dir = await copyWorkflow('play-song-recorded', undefined, {
      as: 'play-song',
      into: join(home, 'workflows'),
    });
    const recorded = (await loadWorkflow(dir)).workflow;
    const first = await autoReplay(dir, 'Faint');
    expect(first.usage.calls).toBeGreaterThan(0);

    await onStudioPage(home, async (page) => {
      const failedRequests: string[] = [];
      page.on('response', (r) => r.status() >= 400 && failedRequests.push(`${r.status()} ${r.url()}`));
      await page.getByRole('link', { name: /play/i }).click();
      const runs = page.getByRole('region', { name: 'Runs' });
      await runs.getByText('success').waitFor();
      // The screenshots held: each whole-screen picture (the recorded extract) keeps its place before
      // it loads, and the choices below it stay put.
      const release = await holdRequests(page, '**/file?**');
      await runs.getByRole('link').first().click();
      await page.getByRole('heading', { name: `Run ${first.run_id}` }).waitFor();
      const apply = page.getByRole('button', { name: 'Apply heal' });
      await apply.waitFor();
      expect(await expectPlaceKept(page.locator('.heal-step img.whole'), apply, release)).toBeGreaterThan(0);

      // The run's report, in a frame of the page.
      const report = page.frameLocator('iframe[title="Run report"]');
      await report.getByText('The workflow is out of date on this screen').first().waitFor();

      // Each change side by side: the recorded step's crop and the run's.
      const moved = page.getByRole('group', { name: /^Step 1 .* is found at its new place$/ });
      const agent = page.getByRole('group', { name: /^Subtask 2: \d+ action\(s\) the agent took replace 2/ });
      await moved.waitFor();
      for (const change of [moved, agent]) {
        for (const img of await change.getByRole('img').all()) {
          await page.waitForFunction((i) => (i as HTMLImageElement).complete, await img.elementHandle());
          expect(await img.evaluate((i) => (i as HTMLImageElement).naturalWidth)).toBeGreaterThan(0);
        }
      }
      expect(await moved.getByRole('img', { name: /^Recorded: / }).count()).toBe(1);
      expect(await moved.getByRole('img', { name: /^From this run: / }).count()).toBe(1);
      expect(await agent.getByRole('img', { name: /^Recorded: / }).count()).toBe(2);
      // The heal review has no axe-core violation, light or dark (the report is checked in studio-accessibility).
      for (const colorScheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme });
        expect(await axeViolations(page), colorScheme).toEqual([]);
      }

      await moved.getByLabel('Reject (keep as recorded)').check();
      await page.getByRole('button', { name: 'Apply heal' }).click();
      await statusSays(page, 'Healed: 1 change(s) written, 1 rejected');
      await page.getByRole('heading', { level: 1, name: recorded.task_name }).waitFor();
      expect(failedRequests).toEqual([]);
    });

    // On disk: the rejected step as recorded, the agent's subtask written, the previous file kept.
    const healed = (await loadWorkflow(dir)).workflow;
    const [step0] = healed.plan.subtasks[0]?.steps ?? [];
    expect(step0?.source?.point).toEqual(recorded.plan.subtasks[0]?.steps[0]?.source?.point);
    expect(step0?.source?.screenshot).toBe(recorded.plan.subtasks[0]?.steps[0]?.source?.screenshot);
    expect(healed.plan.subtasks[1]?.steps.map((s) => s.intent).join('\n')).toContain(
      `as the agent did it in run ${first.run_id}`,
    );
    expect((await readdir(dir)).filter((f) => /^schema\.\d{8}T\d{9}Z\.json$/.test(f))).toHaveLength(1);
    expect((await runMime(['validate', dir])).exitCode).toBe(0);
    expect(await readFile(join(dir, 'manifest.jsonl'), 'utf8')).toContain(
      `screenshots/heal-${first.run_id}/`,
    );

    // The next auto run on the restyled app re-finds the kept step by itself and needs no model.
    const turns = model.turns.length;
    const second = await autoReplay(dir, 'Numb');
    expect(second.usage.calls).toBe(0);
    expect(model.turns.length).toBe(turns);
    expect((await rig.desktop.readAppState()).playing).toBe('Numb');
  });
});
