/**
 * `mime replay` end to end: the real binary on a private Xvfb with the demo app in Chromium, real
 * nut-js input, the real openai SDK over HTTP. The one stand-in is the model: a fake that reads each
 * screenshot by OCR and answers with grid coordinates of what it found.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { copyWorkflow, readEvents, runsOf } from '@mime-desktop/test-support/e2e-rig';
import { useModelRig } from '@mime-desktop/test-support/model-rig';
import { REPO_ROOT, runMime, startMime } from '@mime-desktop/test-support/run-mime';
import { PNG } from 'pngjs';
import { beforeEach, describe, expect, it } from 'vitest';

const PLAY_SONG = join(REPO_ROOT, 'fixtures', 'workflows', 'play-song');

const rig = useModelRig();

beforeEach(async () => {
  await rig.desktop.resetApp();
});

const { useModel } = rig;
const modelEnv = () => rig.env();

/** The one run folder of a workflow copy, its summary and events. */
async function readRun(workflow: string) {
  const runs = await runsOf(workflow);
  expect(runs).toHaveLength(1);
  const dir = runs[0] as string;
  const summary = JSON.parse(await readFile(join(dir, 'summary.json'), 'utf8'));
  const events: any[] = await readEvents(dir);
  return { dir, summary, events, files: await readdir(dir) };
}

describe('mime replay (agent mode, demo app)', () => {
  it('plays a new song from a screenshot-reading model and extracts what is playing', async () => {
    const fake = useModel();
    const workflow = await copyWorkflow('play-song');
    const result = await runMime(['replay', workflow, '--mode', 'agent', '--param', 'song_name=Faint'], {
      env: modelEnv(),
    });
    expect(result.exitCode, `${result.stderr}\n${JSON.stringify(fake.turns, null, 1)}`).toBe(0);
    const state = await rig.desktop.readAppState();
    expect(state.playing).toBe('Faint');
    expect(state.search).toBe('Faint');

    const { dir, summary, events, files } = await readRun(workflow);
    expect(result.stdout.trim()).toBe(summary.run_id);
    expect(summary).toMatchObject({
      outcome: 'success',
      code: null,
      mode: 'agent',
      params: { song_name: 'Faint' },
      extracts: { now_playing: 'Faint' },
    });
    expect(summary.subtasks.map((s: any) => s.outcome)).toEqual(['success', 'success']);
    expect(JSON.parse(await readFile(join(dir, 'extracts.json'), 'utf8'))).toEqual({ now_playing: 'Faint' });
    expect(files).toEqual(
      expect.arrayContaining(['schema.rendered.json', 'task_memory.json', 'replay_summary.txt']),
    );
    // Full frames stay in the run folder; the model got the screen at 1280x800 as PNG.
    const shot = PNG.sync.read(await readFile(join(dir, 'subtask_0_iter_0.png')));
    expect([shot.width, shot.height]).toEqual([1280, 800]);
    expect(fake.turns.every((t) => t.image?.width === 1280 && t.image.height === 800)).toBe(true);
    const clicks = events.filter((e) => e.type === 'action' && e.data.action.action === 'left_click');
    expect(clicks.length).toBe(2);
    expect(result.stderr).toContain('✓ success');
    expect(result.stderr).toContain('now_playing = Faint');
  });

  it('survives malformed calls, off-grid coordinates, unknown actions, 429 and 500', async () => {
    const fake = useModel({ faults: { malformed: 1, unknownAction: 1, outOfRange: 1 } });
    rig.server.enqueue(
      { type: 'error', status: 429, message: 'slow down', headers: { 'retry-after': '0' } },
      { type: 'error', status: 500, message: 'boom', headers: { 'retry-after': '0' } },
    );
    const workflow = await copyWorkflow('play-song');
    const result = await runMime(['replay', workflow, '--mode', 'agent', '--param', 'song_name=Crawling'], {
      env: modelEnv(),
    });
    expect(result.exitCode, `${result.stderr}\n${JSON.stringify(fake.turns, null, 1)}`).toBe(0);
    expect((await rig.desktop.readAppState()).playing).toBe('Crawling');
    const { summary, events } = await readRun(workflow);
    expect(summary.extracts).toEqual({ now_playing: 'Crawling' });
    // 2 HTTP retries + 2 repairs by the model client (arguments not JSON, an unknown action): more
    // requests than calls. The point off the screenshot is the agent's repair, a call of its own.
    expect(summary.usage.requests).toBeGreaterThanOrEqual(summary.usage.calls + 4);
    const repairs = events.filter((e) => e.type === 'repair').flatMap((e) => e.data.problems);
    expect(repairs).toContainEqual({
      path: 'coordinate',
      message: expect.stringMatching(
        /^\[1200, 2000\] is outside the screenshot: write \[x, y\] on a 0\.\.1000 grid/,
      ),
    });
  });

  it('replans a subtask that makes no progress and then succeeds', async () => {
    const fake = useModel({ faults: { stubbornUntilReplan: true } });
    const workflow = await copyWorkflow('play-song');
    const result = await runMime(['replay', workflow, '--mode', 'agent', '--param', 'song_name=Faint'], {
      env: modelEnv(),
    });
    expect(result.exitCode, `${result.stderr}\n${JSON.stringify(fake.turns, null, 1)}`).toBe(0);
    expect((await rig.desktop.readAppState()).playing).toBe('Faint');
    const { summary, events } = await readRun(workflow);
    expect(summary.subtasks.map((s: any) => [s.outcome, s.origin])).toEqual([
      ['replanned', 'workflow'],
      ['success', 'replan'],
      ['success', 'replan'],
    ]);
    expect(summary.budgets.replans.used).toBe(1);
    expect(events.find((e) => e.type === 'replan')?.data.trigger).toBe('no_progress');
    expect(result.stderr).toContain('replanning (no_progress)');
  });

  it('stops with exit 1 and names the budget when the model never says done', async () => {
    useModel({ faults: { neverDone: true } });
    const workflow = await copyWorkflow('play-song');
    const result = await runMime(
      [
        'replay',
        workflow,
        '--mode',
        'agent',
        '--param',
        'song_name=Faint',
        '--max-iterations',
        '4',
        '--max-replans',
        '0',
        '--json',
      ],
      { env: modelEnv() },
    );
    expect(result.exitCode).toBe(1);
    const printed = JSON.parse(result.stdout);
    expect(printed).toMatchObject({ outcome: 'failed', code: 'MIME_BUDGET_ITERATIONS' });
    expect(printed.budgets.iterations).toEqual({ used: 4, limit: 4 });
    expect(result.stderr).toContain('[MIME_BUDGET_ITERATIONS]');
    const { summary } = await readRun(workflow);
    expect(summary.subtasks.map((s: any) => s.outcome)).toEqual(['failed', 'not_run']);
  });

  it('aborts with exit 130 when the pointer is slammed into a corner mid-run', async () => {
    useModel({ delayMs: 700 });
    const workflow = await copyWorkflow('play-song');
    const running = startMime(['replay', workflow, '--mode', 'agent', '--param', 'song_name=Faint'], {
      env: modelEnv(),
    });
    await running.waitForStderr(/#1 left_click/, 30_000);
    await rig.desktop.moveMouse(0, 0);
    const result = await running.done;
    expect(result.exitCode, result.stderr).toBe(130);
    expect(result.stderr).toContain('aborted');
    const { summary } = await readRun(workflow);
    expect(summary).toMatchObject({ outcome: 'aborted', code: 'MIME_ABORTED' });
    expect((await rig.desktop.readAppState()).playing).toBe('');
  });

  it('types a sensitive param without writing or printing its value anywhere', async () => {
    const fake = useModel();
    const workflow = await copyWorkflow('play-song', (schema) => {
      schema.task_params[0].sensitive = true;
      schema.task_params[0].example = null;
    });
    const result = await runMime(['replay', workflow, '--mode', 'agent'], {
      env: { ...modelEnv(), MIME_PARAM_SONG_NAME: 'Faint' },
    });
    expect(result.exitCode, `${result.stderr}\n${JSON.stringify(fake.turns, null, 1)}`).toBe(0);
    expect((await rig.desktop.readAppState()).playing).toBe('Faint');
    const { dir, summary, files } = await readRun(workflow);
    expect(summary.params).toEqual({ song_name: '{song_name}' });
    expect(summary.extracts).toEqual({ now_playing: '{song_name}' });
    for (const file of files) {
      expect((await readFile(join(dir, file))).includes('Faint'), file).toBe(false);
    }
    expect(`${result.stdout}${result.stderr}`).not.toContain('Faint');
    // The model typed the placeholder; replay typed the value.
    expect(fake.turns.some((t) => t.reply.includes('"text":"{song_name}"'))).toBe(true);
    // 19 s alone: the value the model read is checked on the screen by OCR (its worker starts then).
  }, 60_000);
});

describe('mime replay input errors (exit 2)', () => {
  it('lists missing required params (a recorded example fills in only with --use-examples) and unknown --param names', async () => {
    const workflow = await copyWorkflow('play-song');
    const result = await runMime([
      'replay',
      workflow,
      '--param',
      'artist=Linkin Park',
      '--param',
      'tempo=fast',
    ]);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('missing: song_name');
    expect(result.stderr).toContain('unknown: artist, tempo');
    expect(result.stderr).toContain("this workflow's params: song_name");
  });

  it('refuses trace without recorded steps, --confirm without a terminal, and secrets on the command line', async () => {
    const trace = await runMime(['replay', PLAY_SONG, '--mode', 'trace', '--param', 'song_name=Faint']);
    expect(trace.exitCode).toBe(2);
    expect(trace.stderr).toContain('[MIME_TRACE_UNAVAILABLE] step 1 has no recorded source');
    const confirm = await runMime(['replay', PLAY_SONG, '--mode', 'agent', '--confirm']);
    expect(confirm.exitCode).toBe(2);
    expect(confirm.stderr).toContain('stdin is not a TTY');
    const secret = await copyWorkflow('play-song', (schema) => {
      schema.task_params[0].sensitive = true;
      schema.task_params[0].example = null;
    });
    const leaked = await runMime(['replay', secret, '--mode', 'agent', '--param', 'song_name=Faint']);
    expect(leaked.exitCode).toBe(2);
    expect(leaked.stderr).toContain('MIME_PARAM_SONG_NAME');
  });
});
