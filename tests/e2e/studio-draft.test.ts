/// <reference lib="dom" />
/**
 * `mime studio`'s draft in a real browser (playwright-core driving the system's Chromium): a value
 * naming no param goes into the draft, is listed with its fixes, fixed from the problems panel and
 * saved; leaving with unsaved edits asks first; a reload keeps the draft, and a file changed on disk
 * since drops it, saying so.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { loadWorkflow } from '@mime-desktop/schema';
import { axeViolations } from '@mime-desktop/test-support/axe';
import { copyWorkflow, tempDir } from '@mime-desktop/test-support/e2e-rig';
import { save, statusSays, useStudioBrowser } from '@mime-desktop/test-support/studio-page';
import type { Dialog, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';

const { onStudioPage } = useStudioBrowser();

async function homeWithWorkflow(): Promise<{ home: string; dir: string }> {
  const home = await tempDir('mime-studio-draft-');
  const dir = await copyWorkflow('play-song-recorded', undefined, {
    as: 'play-song',
    into: join(home, 'workflows'),
  });
  return { home, dir };
}

/** Opens the workflow from the list and waits for its page. */
async function openWorkflow(page: Page): Promise<void> {
  await page.getByRole('link', { name: /play/i }).click();
  await page.getByRole('heading', { level: 1, name: /play/i }).waitFor();
}

/** The id of the element that has the focus. */
const focused = (page: Page) => page.evaluate(() => document.activeElement?.id ?? null);

describe('mime studio drafts', () => {
  it('keeps a value naming no param in the draft, lists it with its fixes, and saves once it is fixed from the panel', {
    timeout: 60_000,
  }, async () => {
    const { home, dir } = await homeWithWorkflow();
    await onStudioPage(home, async (page) => {
      await openWorkflow(page);
      await page.getByText('Edit step 2', { exact: true }).click();
      await page.getByLabel('Value').fill('{song_name} {artist}');
      await page.getByRole('button', { name: 'Apply to step 2' }).click();
      await statusSays(page, 'step 2 changed');
      // The focus stays on the button used.
      expect(await focused(page)).toBe('step-1-apply');
      const panel = page.getByRole('region', { name: '1 problem to fix before saving' });
      await expect
        .poll(() => panel.getByRole('listitem').allTextContents())
        .toEqual([
          expect.stringMatching(/^Subtask 1 · Step 2 action_value: \{artist\} names no declared param/),
        ]);
      const saveButton = page.getByRole('button', { name: 'Save (1 problem)' });
      expect(await saveButton.isDisabled()).toBe(true);
      // The draft is not locked: another edit goes in, the problem still listed.
      const first = page.getByRole('article', { name: 'Subtask 1 · Step 1' });
      await first.getByText('Edit step 1', { exact: true }).click();
      await first.getByLabel('Intent').fill('Click the search field');
      await page.getByRole('button', { name: 'Apply to step 1' }).click();
      await statusSays(page, 'step 1 changed');
      expect(await panel.getByRole('listitem').count()).toBe(1);
      // "Change the value" opens the step's form at the field.
      await panel.getByRole('button', { name: 'Change the value of Subtask 1 · Step 2' }).click();
      expect(await focused(page)).toBe('step-1-value');
      // The fix the panel offers: the param it names.
      await panel.getByRole('button', { name: 'Add param artist' }).click();
      await statusSays(page, 'artist is a param now');
      await panel.waitFor({ state: 'detached' });
      await page.getByLabel('Example of artist').fill('Linkin Park');
      await page.getByRole('button', { name: 'Set', exact: true }).last().click();
      await statusSays(page, 'example is "Linkin Park" now');
      await save(page);
      expect(await page.getByRole('region', { name: 'Draft' }).textContent()).toBe('No unsaved edits');
    });
    const { workflow } = await loadWorkflow(dir);
    const steps = workflow.plan.subtasks.flatMap((s) => s.steps);
    expect(steps[0]?.intent).toBe('Click the search field');
    expect(steps[1]?.action_value).toBe('{song_name} {artist}');
    expect(workflow.task_params.at(-1)).toMatchObject({ name: 'artist', example: 'Linkin Park' });
  });

  it('asks before leaving unsaved edits, keeps them over a reload, and drops them, saying so, once the file changed on disk', {
    timeout: 60_000,
  }, async () => {
    const { home, dir } = await homeWithWorkflow();
    await onStudioPage(home, async (page) => {
      const asked: string[] = [];
      let answer: 'accept' | 'dismiss' = 'dismiss';
      page.on('dialog', (dialog: Dialog) => {
        asked.push(`${dialog.type()}: ${dialog.message()}`);
        void dialog[answer]();
      });
      await openWorkflow(page);
      const address = page.url();
      const bar = page.getByRole('region', { name: 'Draft' });
      await page.getByLabel('Example of song_name').fill('Faint');
      await page.getByRole('button', { name: 'Set', exact: true }).click();
      await statusSays(page, 'example is "Faint" now');
      await bar.getByText('Unsaved edits').waitFor();
      expect(await page.title()).toMatch(/^• /);
      // "← Workflows", then Back: each asks, and staying keeps the page and its address.
      await page.getByRole('link', { name: '← Workflows' }).click();
      await expect.poll(() => asked.length).toBe(1);
      expect(asked[0]).toMatch(/^confirm: "play song" has unsaved edits\. Leave anyway\?/);
      // Once the dialog is answered, the address goes back to the page.
      await expect.poll(() => page.url()).toBe(address);
      await page.goBack();
      await expect.poll(() => asked.length).toBe(2);
      await expect.poll(() => page.url()).toBe(address);
      expect(await page.getByLabel('Example of song_name').inputValue()).toBe('Faint');
      // A reload asks too (the browser's own words); the draft is back after it.
      answer = 'accept';
      await page.reload();
      await statusSays(page, 'Your unsaved edits of');
      expect(asked.at(-1)).toMatch(/^beforeunload/);
      expect(await page.getByLabel('Example of song_name').inputValue()).toBe('Faint');
      await bar.getByText('Unsaved edits').waitFor();
      // Leaving, accepted: the list says the workflow has unsaved edits here; going back finds them.
      await page.getByRole('link', { name: '← Workflows' }).click();
      await page.getByRole('heading', { name: 'Workflows' }).waitFor();
      await page.getByText('unsaved edits in this browser').waitFor();
      await openWorkflow(page);
      await statusSays(page, 'Your unsaved edits of');
      // The file changes on disk: the draft made from the old one is dropped, and the page says so.
      const file = join(dir, 'schema.json');
      await writeFile(file, (await readFile(file, 'utf8')).replace('"task_name": "', '"task_name": "new: '));
      await page.reload();
      await statusSays(page, 'schema.json changed on disk since your unsaved edits');
      await page.getByRole('heading', { level: 1, name: 'new: play song' }).waitFor();
      expect(await page.getByLabel('Example of song_name').inputValue()).not.toBe('Faint');
      expect(await bar.textContent()).toBe('No unsaved edits');
    });
  });

  it('renames and describes the workflow, duplicates a step, adds a subtask, warns of a param used nowhere, and duplicates the workflow', {
    timeout: 60_000,
  }, async () => {
    const { home, dir } = await homeWithWorkflow();
    await onStudioPage(home, async (page) => {
      await openWorkflow(page);
      await page.getByText('Rename or describe this workflow').click();
      await page.getByLabel('Name', { exact: true }).fill('play a song by name');
      await page.getByLabel('Description', { exact: true }).fill('Searches the demo player and plays it.');
      await page.getByRole('button', { name: 'Apply to the workflow' }).click();
      await statusSays(page, 'the workflow is "play a song by name" now');
      await page.getByRole('heading', { level: 1, name: 'play a song by name' }).waitFor();
      // The copy of step 3 comes right after it and takes the focus; the steps after it are numbered on.
      await page.getByRole('button', { name: 'Duplicate step 3' }).click();
      await statusSays(page, 'step 3 duplicated');
      expect(await focused(page)).toBe('step-3');
      await page.getByRole('article', { name: 'Subtask 2 · Step 6' }).waitFor();
      await page.getByText('Add a subtask after subtask 2').click();
      await page
        .getByLabel('Text of the new subtask after subtask 2')
        .fill('Say which song plays. Expected outcome: it is said.');
      await page.getByRole('button', { name: 'Add subtask' }).last().click();
      await statusSays(page, 'subtask 3 added');
      expect(await focused(page)).toBe('subtask-2');
      // A step added by hand to it, from its words: the new step's card takes the focus.
      await page.getByText('Add a step to subtask 3').click();
      await page.getByLabel('Action', { exact: true }).selectOption('KEYPRESS');
      await page.getByLabel('Why (intent)').fill('Read the song aloud');
      await page.getByLabel('On what (target, in words)').fill('the player window');
      await page.getByLabel('Text or keys').fill('ctrl+r');
      await page.getByRole('button', { name: 'Add the step to subtask 3' }).click();
      await statusSays(page, 'step 7 added to subtask 3');
      expect(await focused(page)).toBe('step-6');
      // A param used nowhere is a warning, not a problem: Save stays.
      await page.getByLabel('Add a param named').fill('artist');
      await page.getByRole('button', { name: 'Add param' }).click();
      await statusSays(page, 'artist is a param now');
      const warnings = page.getByRole('region', { name: /^2 warnings/ });
      expect(await warnings.getByRole('listitem').allTextContents()).toEqual([
        expect.stringMatching(/^artist is used nowhere: write \{artist\} where its value goes, or delete it/),
        expect.stringMatching(/^artist has no example: every run must then be given its value/),
      ]);
      await page.getByLabel('Description of song_name').fill('The title to search for');
      await page.getByRole('button', { name: 'Describe' }).first().click();
      await statusSays(page, "song_name's description changed");
      await warnings.getByRole('button', { name: 'Delete param artist' }).click();
      await statusSays(page, 'artist is deleted');
      await warnings.waitFor({ state: 'detached' });
      await save(page);
      // A copy under a new name opens; the list then shows both, by their names.
      await page.getByText('Duplicate this workflow').click();
      await page.getByLabel('Name of the copy').fill('play a song, slowly');
      await page.getByRole('button', { name: 'Duplicate workflow' }).click();
      await statusSays(page, '"play a song, slowly" is a copy of the saved "play a song by name"');
      await page.getByRole('heading', { level: 1, name: 'play a song, slowly' }).waitFor();
      expect(new URL(page.url()).hash).toBe('#/w/play-a-song-slowly');
      await page.getByRole('link', { name: '← Workflows' }).click();
      await expect
        .poll(() => page.getByRole('heading', { level: 2 }).allTextContents())
        .toEqual(expect.arrayContaining(['play a song by name', 'play a song, slowly']));
    });
    const copy = await loadWorkflow(join(home, 'workflows', 'play-a-song-slowly'));
    expect(copy.workflow.plan).toEqual((await loadWorkflow(dir)).workflow.plan);
    const { workflow } = await loadWorkflow(dir);
    expect(workflow.task_name).toBe('play a song by name');
    expect(workflow.task_description_user).toBe('Searches the demo player and plays it.');
    expect(workflow.task_params).toEqual([
      expect.objectContaining({ name: 'song_name', description: 'The title to search for' }),
    ]);
    expect(workflow.plan.subtasks.map((s) => s.steps.map((x) => [x.i, x.action_type]))).toEqual([
      [
        [0, 'CLICK'],
        [1, 'TYPE'],
        [2, 'KEYPRESS'],
        [3, 'KEYPRESS'],
      ],
      [
        [4, 'CLICK'],
        [5, 'EXTRACT'],
      ],
      [[6, 'KEYPRESS']],
    ]);
    expect(workflow.plan.subtasks[2]?.steps[0]).toMatchObject({
      intent: 'Read the song aloud',
      target: { primary: 'the player window' },
      action_value: 'ctrl+r',
      source: null,
    });
    expect(workflow.plan.subtasks[2]?.text).toBe('Say which song plays. Expected outcome: it is said.');
  });

  it('offers a recorded action no step uses, with its frame, and adds it back as the step reflect made of it', {
    timeout: 60_000,
  }, async () => {
    const { home, dir } = await homeWithWorkflow();
    // A reflect that left out the last event: its extract step is gone from the workflow.
    const file = join(dir, 'schema.json');
    const original = JSON.parse(await readFile(file, 'utf8'));
    const document = structuredClone(original);
    const extract = document.plan.subtasks[1].steps.pop();
    expect(extract).toMatchObject({ action_type: 'EXTRACT', source: { event_index: 4 } });
    await writeFile(file, JSON.stringify(document, null, 2));
    const button = 'Add recorded extract "the song now playing" after step 4';
    await onStudioPage(home, async (page) => {
      await openWorkflow(page);
      await page.getByText('Add a step after step 4', { exact: true }).click();
      await page.getByRole('button', { name: button }).waitFor();
      // Only the unused event is offered, shown by its recorded frame (served scaled, as WebP).
      expect(await page.getByRole('button', { name: /^Add recorded / }).allTextContents()).toEqual([button]);
      const frame = page.getByRole('img', { name: /^The screen before recorded action 5 \(extract/ });
      await expect
        .poll(() => frame.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth))
        .toBe(240);
      expect(await frame.getAttribute('src')).toContain(encodeURIComponent('screenshots/4.png'));
      // The list as offered passes axe, as every page of the studio does.
      expect(await axeViolations(page)).toEqual([]);
      await page.getByRole('button', { name: button }).click();
      await statusSays(page, 'step 5 added after step 4 from the recording');
      expect(await focused(page)).toBe('step-4');
      await page.getByRole('article', { name: 'Subtask 2 · Step 5' }).waitFor();
      await save(page);
    });
    // Saved, it validates, and the step replays the recorded event again.
    const { workflow } = await loadWorkflow(dir);
    const added = workflow.plan.subtasks[1]?.steps[1];
    expect(added).toMatchObject({
      i: 4,
      action_type: 'EXTRACT',
      action_value: 'the song now playing',
      variable_name: extract.variable_name,
      source: extract.source,
    });
  });
});
