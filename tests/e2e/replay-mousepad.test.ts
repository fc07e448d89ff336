/**
 * Replay on a real GTK app: Mousepad under Xvfb with openbox, replaying a real `mime record --launch
 * mousepad` (write a note, Ctrl+S, type a path in the Save dialog, Enter). The workflow's `setup`
 * launches the app or waits for it; when the Save dialog never opens, replay stops with a divergence
 * instead of typing the path into the document and reporting success.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { copyWorkflow, readEvents, useDesktop, useTestDir } from '@mime-desktop/test-support/e2e-rig';
import { gtkAppEnv, waitForWindowTitle } from '@mime-desktop/test-support/gtk-apps';
import { REPO_ROOT, runMime, startMime } from '@mime-desktop/test-support/run-mime';
import { sleep } from '@mime-desktop/test-support/wait';
import { execa } from 'execa';
import { beforeEach, describe, expect, it } from 'vitest';

const _FIXTURE = join(REPO_ROOT, 'fixtures', 'workflows', 'mousepad-save');

const desktop = useDesktop({ app: false, windowManager: true }, { each: true });
let env: NodeJS.ProcessEnv;
let work: string;
const testDir = useTestDir('mime-mousepad-');

beforeEach(async () => {
  env = await gtkAppEnv(desktop());
  work = testDir();
  await copyWorkflow('mousepad-save', undefined, { as: 'workflow', into: work });
}, 60_000);

const events = readEvents;

describe('mousepad: save a note', () => {
  it('launches the app from the workflow setup with --run-setup, replays, and the file is written', async () => {
    const target = join(work, 'saved.txt');
    const result = await runMime(
      [
        'replay',
        join(work, 'workflow'),
        '--run-setup',
        '--param',
        'note=Second note from replay',
        '--param',
        `file_path=${target}`,
        '--json',
      ],
      { env },
    );
    expect(result.exitCode, result.stderr).toBe(0);
    expect((await readFile(target, 'utf8')).trim()).toBe('Second note from replay');
    const summary = JSON.parse(result.stdout);
    expect(summary).toMatchObject({ outcome: 'success', usage: { calls: 0 } });
    const log = await events(summary.dir);
    expect(log.find((e) => e.type === 'setup')?.data).toMatchObject({ command: 'mousepad', launched: true });
    const verified = log.filter((e) => e.type === 'verify').map((e) => e.data.check);
    expect(verified).toContain('after_step');
    expect(verified).toContain('subtask_outcome');
  });

  it('waits for the app window when it starts after the replay, without running the setup command', async () => {
    const target = join(work, 'later.txt');
    const replay = startMime(
      ['replay', join(work, 'workflow'), '--param', 'note=Started late', '--param', `file_path=${target}`],
      { env },
    );
    await sleep(2500);
    const app = execa('mousepad', [], { env, reject: false, detached: true, stdio: 'ignore' });
    const result = await replay.done;
    app.kill();
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/the app's window \(class \/\^Mousepad\$\/\) is open|window.*appeared/);
    expect((await readFile(target, 'utf8')).trim()).toBe('Started late');
  });

  it('stops with a divergence when the Save dialog never opens, and types nothing into the document', async () => {
    // An existing file: Ctrl+S saves it at once, no dialog opens.
    const existing = join(work, 'existing.txt');
    await writeFile(existing, '');
    const app = execa('mousepad', [existing], { env, reject: false, detached: true, stdio: 'ignore' });
    try {
      await waitForWindowTitle(desktop(), 'existing.txt');
      await sleep(1500);
      const result = await runMime(
        [
          'replay',
          join(work, 'workflow'),
          '--param',
          'note=Only this',
          '--param',
          `file_path=${join(work, 'never.txt')}`,
          '--step-timeout',
          '3',
          '--json',
        ],
        { env },
      );
      expect(result.exitCode, result.stderr).toBe(1);
      const summary = JSON.parse(result.stdout);
      expect(summary).toMatchObject({ outcome: 'failed', code: 'MIME_REPLAY_DIVERGENCE' });
      expect(summary.reason).toMatch(
        /^step 3 \(key ctrl\+s\): after step 3 .*did not change the way the recording shows/,
      );
      const divergence = (await events(summary.dir)).find((e) => e.type === 'divergence');
      expect(divergence?.data).toMatchObject({ step_i: 2, check: 'after_step' });
      expect(summary.subtasks[1].outcome).toBe('not_run');
      // Ctrl+S saved the note to the open file; the path was never typed into it.
      expect((await readFile(existing, 'utf8')).trim()).toBe('Only this');
    } finally {
      app.kill();
    }
  });
});

describe('mousepad in a dark theme (GTK_THEME=Adwaita:dark), no accessibility tree', () => {
  it('auto re-finds the click into the empty document by pixels, checks each step and saves', async () => {
    const target = join(work, 'dark.txt');
    const dark = { ...env, GTK_THEME: 'Adwaita:dark' };
    const result = await runMime(
      [
        'replay',
        join(work, 'workflow'),
        '--run-setup',
        '--mode',
        'auto',
        '--param',
        'note=Written in the dark',
        '--param',
        `file_path=${target}`,
        '--json',
      ],
      { env: dark },
    );
    expect(result.exitCode, result.stderr).toBe(0);
    expect((await readFile(target, 'utf8')).trim()).toBe('Written in the dark');
    const summary = JSON.parse(result.stdout);
    expect(summary).toMatchObject({ outcome: 'success', usage: { calls: 0 } });
    const log = await events(summary.dir);
    // The blank document is featureless: never "found where it was recorded" by its own pixels.
    const click = log.find((e) => e.type === 'step' && e.data.step_i === 0);
    expect(click?.data.rung).not.toBe('recorded-place');
    const verified = log.filter((e) => e.type === 'verify').map((e) => e.data.check);
    expect(verified).toContain('after_step');
    expect(verified).toContain('subtask_outcome');
    // Every check reported at or above its threshold.
    for (const e of log.filter((v) => v.type === 'verify')) {
      expect(e.data.similarity).toBeGreaterThanOrEqual(Number(e.data.threshold));
    }
    // Re-finding by edges and checking outcomes by OCR take longer than the unchanged screen's run.
  }, 120_000);

  it('stops with a divergence when the Save dialog never opens, its figure below its threshold', async () => {
    const dark = { ...env, GTK_THEME: 'Adwaita:dark' };
    const existing = join(work, 'existing-dark.txt');
    await writeFile(existing, '');
    const app = execa('mousepad', [existing], { env: dark, reject: false, detached: true, stdio: 'ignore' });
    try {
      await waitForWindowTitle(desktop(), 'existing-dark.txt');
      const result = await runMime(
        [
          'replay',
          join(work, 'workflow'),
          '--mode',
          'auto',
          '--param',
          'note=Only this',
          '--param',
          `file_path=${join(work, 'never.txt')}`,
          '--step-timeout',
          '3',
          '--json',
        ],
        { env: dark },
      );
      expect(result.exitCode, result.stderr).toBe(1);
      const summary = JSON.parse(result.stdout);
      expect(summary).toMatchObject({ outcome: 'failed', code: 'MIME_REPLAY_DIVERGENCE' });
      const divergence = (await events(summary.dir)).find((e) => e.type === 'divergence');
      expect(divergence?.data).toMatchObject({ step_i: 2, check: 'after_step' });
      expect(divergence?.data.similarity).toBeLessThan(Number(divergence?.data.threshold));
      expect((await readFile(existing, 'utf8')).trim()).toBe('Only this');
    } finally {
      app.kill();
    }
  });
});

describe('mime record --launch', () => {
  it('starts the app, waits for its new window and stores the launch as the recording setup', async () => {
    const home = join(work, 'home');
    const recorder = startMime(['record', '--name', 'launch check', '--home', home, '--launch', 'mousepad'], {
      env,
    });
    const sessionId = await recorder.waitForStdoutLine(30_000);
    await recorder.waitForStderr(/● Recording/, 30_000);
    await waitForWindowTitle(desktop(), 'Mousepad');
    await startMime(['record', 'stop', '--session', sessionId], { env }).done;
    const result = await recorder.done;
    expect(result.exitCode, result.stderr).toBe(0);
    const metadata = JSON.parse(await readFile(join(home, 'recordings', sessionId, 'metadata.json'), 'utf8'));
    expect(metadata.setup).toEqual({
      command: 'mousepad',
      window: { class: '^Mousepad$' },
      timeout_ms: 30_000,
    });
  });

  it('refuses --launch-window without --launch, and a pattern that is not a regular expression', async () => {
    const home = join(work, 'home');
    const alone = await runMime(['record', '--name', 'x', '--home', home, '--launch-window', 'Mousepad'], {
      env,
    });
    expect(alone.exitCode).toBe(2);
    expect(alone.stderr).toMatch(/--launch-window and --launch-class go with --launch/);
    const bad = await runMime(
      ['record', '--name', 'x', '--home', home, '--launch', 'mousepad', '--launch-class', 'Mouse(pad'],
      { env },
    );
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toMatch(/--launch-class takes a regular expression/);
  });
});
