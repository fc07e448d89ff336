/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
/**
 * `mime studio` in a real browser (playwright-core driving the system's Chromium): a workflow reflected
 * without params is opened, its steps shown with their screenshots, the typed song made a param and
 * saved; the file validates and `mime replay --param` plays another song with it on the demo app. A
 * change made on disk after the page loaded is shown, never overwritten.
 */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { loadWorkflow } from '@mime-desktop/schema';
import { copyFixture, copyWorkflow, runsOf, tempDir, useDesktop } from '@mime-desktop/test-support/e2e-rig';
import { runMime } from '@mime-desktop/test-support/run-mime';
import { holdRequests, save, statusSays, useStudioBrowser } from '@mime-desktop/test-support/studio-page';
import type { Locator } from 'playwright-core';
import { describe, expect, it } from 'vitest';

const desktop = useDesktop();
const { onStudioPage } = useStudioBrowser();

/** A home with the demo workflow as a reflect without params makes it: the song typed literally. */
async function homeWithLiteralWorkflow(): Promise<{ home: string; dir: string }> {
  const home = await tempDir('mime-studio-e2e-');
  const dir = await copyWorkflow(
    'play-song-recorded',
    (schema) => {
      Object.assign(schema, JSON.parse(JSON.stringify(schema).replaceAll('{song_name}', 'Numb')));
      schema.task_params = [];
    },
    { as: 'play-song', into: join(home, 'workflows') },
  );
  return { home, dir };
}

/** A home with the demo workflow and a third subtask of no steps, saying `text`. */
async function homeWithThirdSubtask(
  text: string,
  dependencies: string[],
): Promise<{ home: string; dir: string }> {
  const home = await tempDir('mime-studio-subtasks-');
  const dir = await copyWorkflow(
    'play-song-recorded',
    (schema) => {
      schema.plan.subtasks.push({ subtask_i: 2, text, dependencies, steps: [] });
    },
    { as: 'play-song', into: join(home, 'workflows') },
  );
  return { home, dir };
}

/** A control without a name, as a line of an aria snapshot shows it (`- textbox`, `- button [disabled]`). */
const UNNAMED_CONTROL = /^\s*- (button|textbox|checkbox|combobox|link|radio|spinbutton)(?=\s*(\[|:|$))/;

describe('mime studio', () => {
  it('turns a typed value into a param, saves a valid workflow, and replay uses the param', {
    timeout: 120_000,
  }, async () => {
    const { home, dir } = await homeWithLiteralWorkflow();
    await onStudioPage(home, async (page) => {
      // The token moved into a cookie: the address bar no longer shows it.
      expect(page.url()).not.toContain('token');
      await page.getByRole('link', { name: /play/i }).click();
      await page.getByRole('heading', { level: 1 }).waitFor();
      // Every step's screenshots load (lazily, as each card scrolls into view).
      const shots = page.locator('article.step img');
      await shots.first().waitFor();
      expect(await shots.count()).toBeGreaterThanOrEqual(8);
      for (const shot of await shots.all()) {
        await shot.scrollIntoViewIfNeeded();
        await page.waitForFunction((img) => (img as HTMLImageElement).complete, await shot.elementHandle());
        expect(await shot.evaluate((img) => (img as HTMLImageElement).naturalWidth)).toBeGreaterThan(0);
      }
      // The typing step's card says what it does, on which element, and why.
      const typing = page.getByRole('article', { name: 'Step 2' });
      await typing.getByText('TYPE Numb', { exact: true }).waitFor();
      expect(await typing.locator('dd').allTextContents()).toContain('TYPE Numb');
      await page.getByLabel('Make "Numb" a param named').fill('song');
      await page.getByRole('button', { name: 'Make this a param' }).click();
      await statusSays(page, 'song is a param now');
      await typing.getByText('TYPE {song}', { exact: true }).waitFor();
      await save(page);
    });
    const { workflow } = await loadWorkflow(dir);
    expect(workflow.task_params).toEqual([expect.objectContaining({ name: 'song', example: 'Numb' })]);
    const typed = workflow.plan.subtasks.flatMap((s) => s.steps).find((s) => s.action_type === 'TYPE');
    expect(typed?.action_value).toBe('{song}');
    const replayed = await runMime(['replay', dir, '--mode', 'trace', '--param', 'song=Faint', '--json'], {
      env: desktop().env,
    });
    expect(replayed.exitCode, replayed.stderr).toBe(0);
    const summary = JSON.parse(replayed.stdout);
    expect(summary.outcome).toBe('success');
    expect(summary.params).toMatchObject({ song: 'Faint' });
    expect(Object.values(summary.extracts)).toContain('Faint');
  });

  it('runs the demo with a new song, pauses and resumes it, and streams its steps in to success', {
    timeout: 90_000,
  }, async () => {
    // The app as the recording starts: an earlier test played another song.
    await desktop().resetApp();
    const home = await tempDir('mime-studio-run-');
    const dir = await copyWorkflow('play-song-recorded', undefined, {
      as: 'play-song',
      into: join(home, 'workflows'),
    });
    await onStudioPage(
      home,
      async (page) => {
        const failedRequests: string[] = [];
        page.on('response', (r) => r.status() >= 400 && failedRequests.push(`${r.status()} ${r.url()}`));
        await page.getByRole('link', { name: /play/i }).click();
        // No silent default: the field starts empty and required, the recorded value only a hint.
        const song = page.getByLabel('song_name', { exact: true });
        expect(await song.inputValue()).toBe('');
        expect(await song.getAttribute('required')).toBe('');
        expect(await song.getAttribute('placeholder')).toBe('recorded: Numb');
        await song.fill('Faint');
        await page.getByLabel('Mode').selectOption('trace');
        await page.getByRole('button', { name: 'Run', exact: true }).click();
        const log = page.getByRole('list', { name: 'Run progress' });
        // Paused as it starts, it acts no more until resumed: the app stays as it was when the
        // pause took (an action under way then ends first; how far the run got depends on the
        // machine), the song is not played and the run does not end (a step may still look for its
        // target, before its action).
        await page.getByRole('button', { name: 'Pause' }).click();
        await log
          .getByText('Paused from the studio: the run waits before its next action')
          .waitFor({ timeout: 30_000 });
        await page.waitForTimeout(1000);
        const pausedAt = await desktop().readAppState();
        expect(pausedAt).toMatchObject({ playing: '' });
        await page.waitForTimeout(3000);
        expect(await desktop().readAppState()).toEqual(pausedAt);
        expect(await log.locator('li[class^="outcome-"]').count()).toBe(0);
        await page.getByRole('button', { name: 'Resume' }).click();
        await log.getByText('Resumed from the studio', { exact: true }).waitFor();
        // The run's outcome line as it ends, then a link to its report once written.
        await log.locator('li[class^="outcome-"]').waitFor({ timeout: 60_000 });
        await log.getByRole('link', { name: 'Open the report of this run' }).waitFor();
        const lines = await log.getByRole('listitem').allTextContents();
        expect(lines.at(-2), `${lines.join('\n')}\n${await page.getByRole('status').textContent()}`).toBe(
          '✓ success',
        );
        expect(lines.at(-1)).toBe('Open the report of this run');
        expect(lines.filter((l) => /^Subtask \d+ · Step \d+:/.test(l))).toHaveLength(5);
        // Each step's screen was shown, none failed to load; no line came twice (no replay of the stream).
        expect(failedRequests.filter((r) => !r.endsWith('/favicon.ico'))).toEqual([]);
        expect(new Set(lines).size).toBe(lines.length);
        expect(lines).toContain('song_now_playing = Faint');
        expect(
          await page
            .getByRole('img', { name: 'The screen at the latest step' })
            .evaluate((img) => (img as HTMLImageElement).naturalWidth),
        ).toBeGreaterThan(0);
        // The run's page embeds its report.
        await log.getByRole('link', { name: 'Open the report of this run' }).click();
        await page
          .frameLocator('iframe[title="Run report"]')
          .getByText(/success/)
          .first()
          .waitFor();
      },
      desktop().env,
    );
    const [run] = await runsOf(dir);
    const summary = JSON.parse(await readFile(join(run as string, 'summary.json'), 'utf8'));
    expect(summary).toMatchObject({ outcome: 'success', mode: 'trace', params: { song_name: 'Faint' } });
  });

  it("adds a dependency on what an earlier subtask extracts, renames a param with its templates, sets its example and a subtask's text", {
    timeout: 60_000,
  }, async () => {
    const { home, dir } = await homeWithThirdSubtask('Say which song is playing.', []);
    await onStudioPage(home, async (page) => {
      await page.getByRole('link', { name: /play/i }).click();
      await page.getByRole('heading', { level: 1 }).waitFor();
      // Only a later subtask is offered what subtask 2 extracts.
      expect(await page.getByLabel('Use a value from an earlier subtask in subtask 2').count()).toBe(0);
      await page
        .getByLabel('Use a value from an earlier subtask in subtask 3')
        .selectOption('song_now_playing');
      await page.getByRole('button', { name: 'Add dependency' }).click();
      await statusSays(page, 'subtask 3 uses song_now_playing now');
      await page.getByLabel('Rename song_name to').fill('title');
      await page.getByRole('button', { name: 'Rename', exact: true }).click();
      await statusSays(page, 'song_name is title now');
      await page.getByLabel('Example of title').fill('Faint');
      await page.getByRole('button', { name: 'Set', exact: true }).click();
      await statusSays(page, 'example is "Faint" now');
      await page
        .getByLabel('Text of subtask 3')
        .fill('Say which song plays now. Expected outcome: it is said.');
      await page.getByRole('button', { name: 'Apply' }).last().click();
      await statusSays(page, "subtask 3's text changed");
      await save(page);
    });
    const { workflow } = await loadWorkflow(dir);
    expect(workflow.plan.subtasks[2]?.dependencies).toEqual(['song_now_playing']);
    expect(workflow.task_params).toEqual([expect.objectContaining({ name: 'title', example: 'Faint' })]);
    expect(workflow.plan.subtasks[2]?.text).toBe('Say which song plays now. Expected outcome: it is said.');
    expect(JSON.stringify(workflow)).not.toContain('{song_name}');
    expect(JSON.stringify(workflow)).toContain('{title}');
  });

  it('says so when the studio does not answer an edit, and the draft stays as it was', async () => {
    const { home } = await homeWithThirdSubtask('Say which song is playing.', []);
    await onStudioPage(home, async (page) => {
      await page.getByRole('link', { name: /play/i }).click();
      await page.getByRole('heading', { level: 1 }).waitFor();
      await page.route('**/edit', (route) => route.abort('connectionreset'));
      await page
        .getByLabel('Use a value from an earlier subtask in subtask 3')
        .selectOption('song_now_playing');
      await page.getByRole('button', { name: 'Add dependency' }).click();
      await statusSays(page, 'the studio did not answer');
      expect(await page.locator('#draft-state').textContent()).toBe('No unsaved edits');
    });
  });

  it('is in use once shown: a late answer about a run going on neither says over an edit nor takes the focus', {
    timeout: 60_000,
  }, async () => {
    const { home } = await homeWithThirdSubtask('Say which song is playing.', []);
    await onStudioPage(home, async (page) => {
      // The studio's answer to "is a run of this workflow going on?" is held until an edit is made.
      const answer = await holdRequests(page, '**/live');
      await page.getByRole('link', { name: /play/i }).click();
      await page.getByRole('heading', { level: 1 }).waitFor();
      // Shown, the page has the focus at once (a person's Tab starts there), not when the answer comes.
      await page.waitForFunction(() => document.activeElement?.id === 'main');
      await page
        .getByLabel('Use a value from an earlier subtask in subtask 3')
        .selectOption('song_now_playing');
      await page.getByRole('button', { name: 'Add dependency' }).click();
      await statusSays(page, 'subtask 3 uses song_now_playing now');
      const focused = await page.evaluate(() => document.activeElement?.id);
      const answered = page.waitForResponse('**/live');
      answer();
      await answered;
      await page.evaluate(
        () => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))),
      );
      expect(await page.getByRole('status').textContent()).toContain('subtask 3 uses song_now_playing now');
      expect(await page.evaluate(() => document.activeElement?.id)).toBe(focused);
    });
  });

  it("keeps each control where it is while the steps' screens load: a frame's place is kept before its pixels come", async () => {
    const { home } = await homeWithThirdSubtask('Say which song is playing.', []);
    await onStudioPage(home, async (page) => {
      // The steps' frames are held until the button below them has been found on the screen, where a
      // click aimed at it landed on its section as frames loaded and cards came into view (CI 11a).
      const release = await holdRequests(page, '**/file?**');
      await page.getByRole('link', { name: /play/i }).click();
      const button = page.getByRole('button', { name: 'Add dependency' });
      await button.waitFor();
      // Each frame of the recorded 1280x800 screen takes its height at once, lazy ones too.
      const shots = page.locator('article.step .shot img');
      const inside = await shots.evaluateAll((images) =>
        images.map((i) => ({ width: i.clientWidth, height: i.clientHeight })),
      );
      expect(inside.length).toBeGreaterThanOrEqual(8);
      for (const { width, height } of inside) expect(Math.abs(height - (width * 800) / 1280)).toBeLessThan(1);
      // Nor does a card take another height once it comes into view (as one skipped off screen does).
      const pageHeight = () => page.evaluate(() => document.documentElement.scrollHeight);
      const height = await pageHeight();
      await button.scrollIntoViewIfNeeded();
      const before = await button.boundingBox();
      release();
      // Every frame near the screen (where Chromium loads lazy images: 1,250 px) has loaded.
      await page.waitForFunction(() =>
        [...document.querySelectorAll<HTMLImageElement>('article.step .shot img')]
          .filter((i) => Math.abs(i.getBoundingClientRect().top - innerHeight / 2) < 1000)
          .every((i) => i.complete && i.naturalWidth > 0),
      );
      expect(await button.boundingBox()).toEqual(before);
      expect(await pageHeight()).toBe(height);
    });
  });

  it("edits a step's words, moves a step, and adds a param written into a step's value", {
    timeout: 60_000,
  }, async () => {
    const { home, dir } = await homeWithThirdSubtask('Say {song_now_playing} aloud.', ['song_now_playing']);
    const before = (await loadWorkflow(dir)).workflow;
    await onStudioPage(home, async (page) => {
      await page.getByRole('link', { name: /play/i }).click();
      await page.getByRole('heading', { level: 1 }).waitFor();
      await page.getByText('Edit step 1', { exact: true }).click();
      await page.getByLabel('Intent').first().fill('Click the search field at the top');
      await page.getByLabel('Expected after it (a line each)').first().fill('The field has the focus.');
      await page.getByRole('button', { name: 'Apply to step 1' }).click();
      await statusSays(page, 'step 1 changed');
      await page.getByRole('button', { name: 'Move step 2 down' }).click();
      await statusSays(page, 'step 2 moved down');
      // The moved step keeps the focus: on its button that still moves it (it is last now).
      await expect
        .poll(() => page.evaluate(() => document.activeElement?.getAttribute('aria-label')))
        .toBe('Move step 3 up');
      // A new param, then its template where its value goes.
      await page.getByLabel('Add a param named').fill('artist');
      await page.getByLabel('Its example').fill('Linkin Park');
      await page.getByRole('button', { name: 'Add param' }).click();
      await statusSays(page, 'artist is a param now: write {artist} where its value goes');
      await page.getByText('Edit step 3', { exact: true }).click();
      await page.getByLabel('Value').fill('{song_name} {artist}');
      await page.getByRole('button', { name: 'Apply to step 3' }).click();
      await statusSays(page, 'step 3 changed');
      // The first step cannot move up.
      expect(await page.getByRole('button', { name: 'Move step 1 up' }).isDisabled()).toBe(true);
      await page.getByRole('button', { name: 'Delete step 5' }).waitFor();
      await save(page);
    });
    const { workflow } = await loadWorkflow(dir);
    const [first, second] = workflow.plan.subtasks;
    expect(first?.steps[0]).toMatchObject({
      intent: 'Click the search field at the top',
      post_action: ['The field has the focus.'],
    });
    expect(first?.steps.map((s) => [s.i, s.action_type])).toEqual([
      [0, 'CLICK'],
      [1, 'KEYPRESS'],
      [2, 'TYPE'],
    ]);
    expect(first?.steps[2]?.source).toEqual(before.plan.subtasks[0]?.steps[1]?.source);
    expect(first?.steps[2]?.action_value).toBe('{song_name} {artist}');
    expect(workflow.task_params.at(-1)).toMatchObject({ name: 'artist', example: 'Linkin Park' });
    expect(second?.steps).toEqual(before.plan.subtasks[1]?.steps);
    expect(workflow.plan.subtasks).toHaveLength(3);
  });

  it('reflects a recording from the list, showing its progress, into a workflow ready to review', {
    timeout: 60_000,
  }, async () => {
    const home = await tempDir('mime-studio-reflect-');
    await copyFixture('recordings/play-song', join(home, 'recordings', 'play-song'));
    await onStudioPage(home, async (page) => {
      const recordings = page.getByRole('region', { name: 'Recordings not reflected yet' });
      await recordings.getByRole('button', { name: /^Reflect / }).click();
      const log = page.getByRole('list', { name: 'Reflect progress' });
      await log.getByText('✓ reflected').waitFor({ timeout: 45_000 });
      const lines = await log.getByRole('listitem').allTextContents();
      // No model is configured here: the studio says so, and the workflow is made from the recording.
      expect(lines[0]).toMatch(/^No model is configured/);
      expect(lines).toContain('Made from the recording alone (no model)');
      expect(lines.some((l) => /^\d+ subtask\(s\), params: /.test(l))).toBe(true);
      await log.getByRole('link', { name: 'Open the workflow' }).click();
      await page.getByRole('article', { name: 'Step 1' }).waitFor();
    });
    const { workflow } = await loadWorkflow(join(home, 'workflows', 'play-song'));
    expect(workflow.plan.subtasks.flatMap((s) => s.steps).length).toBeGreaterThan(3);
    expect((await runMime(['validate', join(home, 'workflows', 'play-song')])).exitCode).toBe(0);
  });

  it('is used with the keyboard alone, every control named and its focus shown', {
    timeout: 60_000,
  }, async () => {
    const { home, dir } = await homeWithLiteralWorkflow();
    await onStudioPage(home, async (page) => {
      /** Presses Tab (Shift+Tab with `back`) until `target` has the focus, which must show. */
      const tabTo = async (target: Locator, back = false) => {
        for (let presses = 0; presses < 300; presses += 1) {
          await page.keyboard.press(back ? 'Shift+Tab' : 'Tab');
          if (await target.evaluate((el) => el === document.activeElement)) {
            expect(await target.evaluate((el) => getComputedStyle(el).outlineStyle)).not.toBe('none');
            return;
          }
        }
        throw new Error(`Tab never reaches ${target}`);
      };
      /** Every control in the page's accessibility tree (as Chromium computes it) has a name. */
      const allNamed = async () => {
        const tree = await page.locator('body').ariaSnapshot();
        expect(tree).toMatch(/- (button|link) "/);
        expect(tree.split('\n').filter((line) => UNNAMED_CONTROL.test(line))).toEqual([]);
      };
      for (const unnamed of ['- textbox', '  - button [disabled]', '- link:']) {
        expect(unnamed).toMatch(UNNAMED_CONTROL);
      }
      expect('- button "Up" [disabled]').not.toMatch(UNNAMED_CONTROL);
      await page.getByRole('heading', { name: 'Workflows' }).waitFor();
      await allNamed();
      await tabTo(page.getByRole('link', { name: /play/i }));
      await page.keyboard.press('Enter');
      await page.getByRole('heading', { level: 1 }).waitFor();
      await allNamed();
      await tabTo(page.getByLabel('Make "Numb" a param named'));
      await page.keyboard.type('song');
      await page.keyboard.press('Enter');
      await statusSays(page, 'song is a param now');
      await tabTo(page.getByRole('button', { name: 'Save' }));
      await page.keyboard.press('Enter');
      await statusSays(page, 'Saved.');
      await page.getByText('Edit step 1', { exact: true }).click();
      await allNamed();
    });
    const { workflow } = await loadWorkflow(dir);
    expect(workflow.task_params.map((p) => p.name)).toEqual(['song']);
  });

  it('runs with a sensitive param typed into a password field: the app gets it, no file of the run holds it', {
    timeout: 90_000,
  }, async () => {
    await desktop().resetApp();
    const home = await tempDir('mime-studio-secret-');
    const dir = await copyWorkflow('play-song-recorded', undefined, {
      as: 'play-song',
      into: join(home, 'workflows'),
    });
    await onStudioPage(
      home,
      async (page) => {
        await page.getByRole('link', { name: /play/i }).click();
        await page.getByLabel('song_name is sensitive').check();
        await statusSays(page, 'song_name is sensitive now');
        await save(page);
        const field = page.getByLabel('song_name', { exact: true });
        expect(await field.getAttribute('type')).toBe('password');
        await field.fill('Faint');
        await page.getByLabel('Mode').selectOption('trace');
        await page.getByRole('button', { name: 'Run', exact: true }).click();
        const log = page.getByRole('list', { name: 'Run progress' });
        await log.locator('li[class^="outcome-"]').waitFor({ timeout: 60_000 });
        expect(await log.locator('li[class^="outcome-"]').textContent()).toBe('✓ success');
        // The page no longer holds it either.
        expect(await field.inputValue()).toBe('');
        expect(await log.textContent()).not.toContain('Faint');
      },
      desktop().env,
    );
    expect((await desktop().readAppState()).playing).toBe('Faint');
    const { workflow } = await loadWorkflow(dir);
    expect(workflow.task_params[0]).toMatchObject({ name: 'song_name', sensitive: true, example: null });
    const [run] = await runsOf(dir);
    const summary = JSON.parse(await readFile(join(run as string, 'summary.json'), 'utf8'));
    expect(summary.params).toEqual({ song_name: '{song_name}' });
    for (const name of await readdir(run as string, { recursive: true })) {
      if (!/\.(json|jsonl|txt|html|log)$/.test(name)) continue;
      expect(await readFile(join(run as string, name), 'utf8'), name).not.toContain('Faint');
    }
  });

  it('shows a change made on disk after the page loaded, and never overwrites it', {
    timeout: 60_000,
  }, async () => {
    const { home, dir } = await homeWithLiteralWorkflow();
    const file = join(dir, 'schema.json');
    await onStudioPage(home, async (page) => {
      await page.getByRole('link', { name: /play/i }).click();
      await page.getByLabel('Make "Numb" a param named').fill('song');
      await page.getByRole('button', { name: 'Make this a param' }).click();
      await statusSays(page, 'song is a param now');
      const theirs = (await readFile(file, 'utf8')).replace(
        '"task_name": "',
        '"task_name": "edited elsewhere: ',
      );
      await writeFile(file, theirs);
      await page.getByRole('button', { name: 'Save' }).click();
      await statusSays(page, 'changed on disk since you opened it');
      expect(await readFile(file, 'utf8')).toBe(theirs);
    });
  });
});
