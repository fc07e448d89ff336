import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { DesktopHarness } from '@mime-desktop/test-support/desktop-harness';
import { copyWorkflow, dataOf, readEvents, tempDir, useDesktop } from '@mime-desktop/test-support/e2e-rig';
import { startFakeModelServer } from '@mime-desktop/test-support/fake-model-server';
import { createFakeVisionModel } from '@mime-desktop/test-support/fake-vision-model';
import { junitSchemaErrors } from '@mime-desktop/test-support/junit-schema';
import { runMime, startMime } from '@mime-desktop/test-support/run-mime';
import { sleep } from '@mime-desktop/test-support/wait';
import { describe, expect, it } from 'vitest';

const workflow = () => copyWorkflow('play-song-recorded');

async function replay(
  desktop: DesktopHarness,
  mode: string,
  env: Record<string, string> = {},
  args: string[] = [],
) {
  const dir = await workflow();
  const result = await runMime(
    ['replay', dir, '--mode', mode, '--param', 'song_name=Faint', '--json', ...args],
    { env: { ...desktop.env, ...env } },
  );
  const summary = result.stdout.trim() ? JSON.parse(result.stdout) : undefined;
  return { result, summary, dir };
}

const executions = (summary: { subtasks: Array<{ steps: Array<{ executed_by: string }> }> }) =>
  summary.subtasks.flatMap((s) => s.steps.map((step) => step.executed_by));

describe('trace and auto on the unchanged app', () => {
  const desktop = useDesktop();
  it('trace replays the recording with a new param and no model', async () => {
    await desktop().resetApp();
    const { result, summary, dir } = await replay(desktop(), 'trace');
    expect(result.stderr).not.toContain('error');
    expect(result.exitCode).toBe(0);
    expect((await desktop().readAppState()).playing).toBe('Faint');
    expect(summary).toMatchObject({
      mode: 'trace',
      outcome: 'success',
      usage: { calls: 0 },
      extracts: { song_now_playing: 'Faint' },
    });
    expect(executions(summary)).toEqual(['trace', 'trace', 'trace', 'trace', 'trace']);
    const log = (await readFile(join(dir, '.replay', summary.run_id, 'mime.log'), 'utf8')).trim().split('\n');
    const entries = log.map((line) => JSON.parse(line));
    expect(entries[0]).toMatchObject({ level: 30, command: 'replay', msg: 'run_start' });
    expect(entries.at(-1)).toMatchObject({ msg: 'run_end', event: { outcome: 'success' } });
    // Both subtasks' outcomes verified by what Chromium's tree says, not by OCR: right after the
    // search, its first answer for the search field is the page's <main>, asked again a moment later.
    const verified = dataOf(await readEvents(join(dir, '.replay', summary.run_id)), 'verify');
    const outcomes = verified.filter((v) => v.check === 'subtask_outcome').map((v) => v.read);
    expect(outcomes).toEqual(['app', 'app']);

    // The report tells what happened: a turn per step (as many as summary.json counts), each
    // replayed frame beside its recorded one, the outcome checks with the frames they checked,
    // the final screen, and no turn that did not happen.
    const page = await readFile(join(dir, '.replay', summary.run_id, 'report.html'), 'utf8');
    expect(page).not.toMatch(/no usable call|not in the run folder/i);
    const sections = page.split('<section class="subtask').slice(1);
    expect(sections.map((s) => s.split('<li class="turn"').length - 1)).toEqual(
      summary.subtasks.map((s: { iterations: number }) => s.iterations),
    );
    expect(sections.map((s) => s.match(/\d+ turns?/)?.[0])).toEqual(['3 turns', '2 turns']);
    expect(page.match(/<figcaption>recorded<\/figcaption><div class="shot" /g)).toHaveLength(5 + 2);
    expect(
      page.match(/<div class="outcome-check"[^>]*><p class="verified">✓ Verified subtask outcome/g),
    ).toHaveLength(2);
    expect(page).toMatch(/<section class="final" id="final-screen">.*?<img src="data:image\/webp;base64,/s);
    expect(page).toContain('<a href="mime.log">mime.log</a>');
  });

  it('pauses before the next action on the hotkey and resumes on it', async () => {
    await desktop().resetApp();
    const dir = await workflow();
    // A generous step timeout: on two busy cores a step's screen may take long to settle, and this
    // test is about the pause, not about waiting.
    const running = startMime(
      ['replay', dir, '--mode', 'trace', '--param', 'song_name=Faint', '--step-timeout', '15'],
      {
        env: desktop().env,
      },
    );
    await running.waitForStderr(/\[1\/2\]/);
    await desktop().pressKeys('ctrl+alt+shift+p');
    await running.waitForStderr(/paused before the next action/);
    const pausedState = await desktop().readAppState();
    await sleep(1500);
    expect((await desktop().readAppState()).action).toBe(pausedState.action);
    await desktop().pressKeys('ctrl+alt+shift+p');
    const result = await running.done;
    // The app's state says what the typing after the resume did, should it fail.
    const state = JSON.stringify(await desktop().readAppState());
    expect(result.exitCode, `${result.stderr}\napp state: ${state}`).toBe(0);
    expect(result.stderr).toContain('▶ resumed');
    expect((await desktop().readAppState()).playing).toBe('Faint');
    const runId = result.stdout.trim().split('\n')[0] as string;
    const events = await readEvents(join(dir, '.replay', runId));
    const paused = events.find((e) => e.type === 'paused');
    const resumed = events.find((e) => e.type === 'resumed');
    expect(paused && resumed).toBeTruthy();
    expect(Date.parse(resumed?.time ?? '') - Date.parse(paused?.time ?? '')).toBeGreaterThanOrEqual(1400);
  });

  it('auto finds every target where it was and makes no model call', async () => {
    await desktop().resetApp();
    const { result, summary } = await replay(desktop(), 'auto');
    expect(result.exitCode).toBe(0);
    expect((await desktop().readAppState()).playing).toBe('Faint');
    expect(summary).toMatchObject({ mode: 'auto', outcome: 'success', usage: { calls: 0 } });
    expect(executions(summary)).toEqual(['trace', 'trace', 'trace', 'trace', 'trace']);
  });

  // On the same desktop (no app of its own to start): the page as loaded, then zoomed in twice.
  describe('a wrong starting screen', () => {
    it('stops trace at step 1 with a clear report', async () => {
      await desktop().resetApp();
      await desktop().xdotool('key', '--window', desktop().windowId ?? '', 'ctrl+plus', 'ctrl+plus');
      try {
        // Step 1 never looks as recorded: a short step timeout ends the wait as surely as 5 s.
        const { result, summary } = await replay(desktop(), 'trace', {}, ['--step-timeout', '2']);
        expect(result.exitCode).toBe(1);
        expect(result.stderr).toMatch(/MIME_REPLAY_DIVERGENCE/);
        expect(summary.subtasks[0].steps[0]).toMatchObject({ i: 0 });
        expect(summary.reason).toMatch(/^step 1 /);
      } finally {
        await desktop().resetApp();
      }
    });
  });
});

describe('a moved and resized layout', () => {
  const desktop = useDesktop({ query: 'dx=40&dy=24&scale=1.1' });
  it('stops trace at the first divergence with a report and both crops', async () => {
    await desktop().resetApp();
    const junit = join(await tempDir('mime-junit-'), 'run.xml');
    // Step 1 never looks as recorded on this layout: a short step timeout ends the wait as surely as 5 s.
    const { result, summary, dir } = await replay(desktop(), 'trace', { GITHUB_ACTIONS: 'true' }, [
      '--reporter',
      'junit',
      junit,
      '--step-timeout',
      '2',
    ]);
    expect(result.exitCode).toBe(1);
    expect(summary).toMatchObject({ outcome: 'failed', code: 'MIME_REPLAY_DIVERGENCE' });
    expect(summary.report).toMatch(/report\.html$/);
    // For CI: the failing subtask in JUnit XML (valid against the Jenkins schema), one annotation.
    const xml = await readFile(junit, 'utf8');
    expect(await junitSchemaErrors(xml)).toEqual([]);
    expect(xml).toMatch(/<testsuite name="play song"[^>]* tests="2" failures="1" errors="0" skipped="1"/);
    expect(xml).toContain(`type="MIME_REPLAY_DIVERGENCE"`);
    expect(
      result.stderr.match(
        /^::error title=mime replay%3A play song failed::\[MIME_REPLAY_DIVERGENCE\] step 1 /gm,
      ),
    ).toHaveLength(1);
    expect(summary.reason).toMatch(
      /^step 1 \(left_click at \(240, 120\)\): the target does not look as recorded \(\d+% where 90% is needed; .*the auto mode re-finds the target\. The screen already differed from the recording's first frame/,
    );
    const run = join(dir, '.replay', summary.run_id);
    for (const crop of ['divergence_step_0_expected.png', 'divergence_step_0_observed.png']) {
      expect((await stat(join(run, crop))).size).toBeGreaterThan(100);
    }
    const events = await readEvents(run);
    expect(events.find((e) => e.type === 'divergence')?.data).toMatchObject({
      step_i: 0,
      check: 'before_step',
      threshold: 0.9,
    });
    expect(await readFile(join(run, 'replay_summary.txt'), 'utf8')).toContain('MIME_REPLAY_DIVERGENCE');
    expect((await desktop().readAppState()).action).toBe('none');

    // The report shows the whole recorded frame beside the live one, and the reason once.
    const page = await readFile(join(run, 'report.html'), 'utf8');
    expect(page).toMatch(/<figcaption>recorded frame<\/figcaption><div class="shot" /);
    expect(page).toMatch(/<figcaption>live frame<\/figcaption><div class="shot" /);
    expect(page.split(summary.reason.slice(0, 50)).length - 1).toBe(1);
    expect(page).toContain('The run stopped here');
  });

  it('re-finds the targets in auto mode without the model', async () => {
    await desktop().resetApp();
    const { result, summary } = await replay(desktop(), 'auto');
    expect(result.exitCode).toBe(0);
    expect((await desktop().readAppState()).playing).toBe('Faint');
    expect(summary.usage.calls).toBe(0);
    expect(executions(summary)).toEqual(['regrounded', 'trace', 'trace', 'regrounded', 'trace']);
    expect(summary.subtasks[1].steps[0].reason).toMatch(/^target re-found .*\(\d+% alike\), moved by/);
    expect(summary.extracts).toEqual({ song_now_playing: 'Faint' });
  });
});

describe('a target that is gone in its recorded form', () => {
  const desktop = useDesktop({ query: 'play=Listen' });
  it('auto without a model stops there, says so once, and never claims a hand-over', async () => {
    await desktop().resetApp();
    const { result, summary } = await replay(desktop(), 'auto');
    expect(result.exitCode).toBe(1);
    expect(summary).toMatchObject({ outcome: 'failed', code: 'MIME_REPLAY_DIVERGENCE' });
    expect(result.stderr).not.toMatch(/to agent|handed to the agent|--mode auto/);
    expect(result.stderr).toMatch(/Step 4 skipped .*\(stopped here: the recorded target was not found/);
    expect(result.stderr.match(/no model is configured/g)).toHaveLength(1);
    expect(result.stderr).toContain('--base-url and --model give auto a model for such steps');
    // The app started as recorded: nothing about a starting state.
    expect(result.stderr).not.toContain("differed from the recording's first frame");
  });

  it('hands that subtask to the agent, then finishes', async () => {
    await desktop().resetApp();
    const server = await startFakeModelServer();
    const model = createFakeVisionModel();
    server.setHandler(model.handler);
    try {
      const { result, summary } = await replay(desktop(), 'auto', {
        MIME_BASE_URL: server.url,
        MIME_MODEL: 'fake-vision',
      });
      expect(result.exitCode).toBe(0);
      expect((await desktop().readAppState()).playing).toBe('Faint');
      expect(executions(summary)).toEqual(['trace', 'trace', 'trace', 'agent', 'agent']);
      expect(summary.subtasks[1].steps[0].reason).toMatch(
        /^handed to the agent: the recorded target was not found with confidence/,
      );
      expect(summary.usage.calls).toBeGreaterThan(0);
      expect(model.turns.every((turn) => turn.subtask.startsWith('Play'))).toBe(true);
    } finally {
      await server.close();
      await model.close();
    }
    // The model's turns, and the OCR that checks its extract and its done, take longer than a step.
  }, 90_000);
});
