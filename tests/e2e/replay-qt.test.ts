/**
 * Accessibility-first replay on a real Qt 5 app: FeatherPad under Xvfb with openbox, recorded with
 * `mime record --launch` (click into the editor, type a line, Ctrl+S), reflected without a model,
 * then replayed in auto mode with new values: with the window moved, and (the app started by the
 * recording's setup) in FeatherPad's dark colour scheme, scaled 1.25x (QT_SCALE_FACTOR) and on a
 * 1920x1080 screen. Each time the editor is found by its element (the accessibility rung), the file
 * holds the new line, no model call.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { accessibleAppEnv } from '@mime-desktop/test-support/accessible-element';
import type { DesktopHarness } from '@mime-desktop/test-support/desktop-harness';
import {
  dataOf,
  readEvents,
  runsOf,
  tempDir,
  useDesktop,
  withDesktop,
} from '@mime-desktop/test-support/e2e-rig';
import { gtkAppEnv, waitForWindowTitle, windowGeometry } from '@mime-desktop/test-support/gtk-apps';
import { runMime, startMime } from '@mime-desktop/test-support/run-mime';
import { sleep } from '@mime-desktop/test-support/wait';
import { execa } from 'execa';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';

const desktop = useDesktop({ app: false, windowManager: true });
describe('a Qt 5 editor (FeatherPad)', () => {
  it('is recorded with its elements, and replayed moved, dark, scaled 1.25x and on a bigger screen by the accessibility rung', {
    timeout: 180_000,
  }, async () => {
    const env = await gtkAppEnv(desktop());
    const home = await tempDir('mime-qt-');
    const file = join(home, 'note.txt');
    await writeFile(file, '');
    const recorder = startMime(
      ['record', '--name', 'qt note', '--home', home, '--launch', `featherpad ${file}`],
      { env },
    );
    const sessionId = await recorder.waitForStdoutLine(30_000);
    await recorder.waitForStderr(/● Recording/, 30_000);
    const window = await waitForWindowTitle(desktop(), 'note.txt');
    await sleep(1500); // a person looks first: the window placed, the editor's tree exported
    const box = await windowGeometry(desktop(), window);
    await desktop().click(box.x + Math.round(box.width / 2), box.y + Math.round(box.height / 2));
    await recorder.waitForStderr(/^ {2}#\d+ click /m); // the click recorded, the editor focused
    await desktop().typeText('Hello from Qt');
    await desktop().pressKeys('ctrl+s');
    await expect.poll(() => readFile(file, 'utf8'), { timeout: 5000 }).toMatch(/^Hello from Qt/);
    await recorder.waitForStderr(/^ {2}#\d+ key ctrl\+s$/m);
    await startMime(['record', 'stop', '--session', sessionId], { env }).done;
    expect((await recorder.done).exitCode).toBe(0);
    // The click and the typing were recorded on the editor's element.
    const manifest = (await readFile(join(home, 'recordings', sessionId, 'manifest.jsonl'), 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    const click = manifest.find((e) => e.action_type === 'click');
    expect(click?.element).toMatchObject({ role: 'text', app: 'FeatherPad' });

    const reflected = await runMime(
      ['reflect', '--session', sessionId, '--home', home, '--no-model', '--json'],
      {
        env,
      },
    );
    expect(reflected.exitCode, reflected.stderr).toBe(0);
    const workflow = join(home, 'workflows', sessionId);
    const schema = JSON.parse(await readFile(join(workflow, 'schema.json'), 'utf8'));
    const [param] = schema.task_params;
    expect(param?.example).toBe('Hello from Qt');

    /** Checks a replay's outcome: success, no model, the new line saved, the click found by its element. */
    const expectReplayed = async (
      replayed: Awaited<ReturnType<typeof runMime>>,
      line: string,
      colours: 'light' | 'dark' = 'light',
    ) => {
      expect(replayed.exitCode, replayed.stderr).toBe(0);
      expect(JSON.parse(replayed.stdout).usage.calls).toBe(0);
      await expect.poll(() => readFile(file, 'utf8'), { timeout: 5000 }).toMatch(new RegExp(`^${line}`));
      const run = (await runsOf(workflow)).at(-1) as string;
      const steps = dataOf(await readEvents(run), 'step');
      const click = steps.find((s) => s.action?.action === 'left_click');
      expect(click?.rung).toBe('accessibility');
      // The editor's colours where it clicked, in the frame the run saved before the click.
      const { point } = click.action;
      const { data } = await sharp(join(run, click.screenshot))
        .extract({ left: Math.round(point.x), top: Math.round(point.y), width: 1, height: 1 })
        .greyscale()
        .raw()
        .toBuffer({ resolveWithObject: true });
      expect((data[0] ?? 0) < 96 ? 'dark' : 'light').toBe(colours);
    };
    const replay = (line: string, runEnv: NodeJS.ProcessEnv, extra: string[] = []) =>
      runMime(
        ['replay', workflow, '--mode', 'auto', '--param', `${param.name}=${line}`, '--json', ...extra],
        {
          env: runEnv,
        },
      );
    /** Quits FeatherPad (the file is saved) and empties the file for the next replay. */
    const quit = async (harness: DesktopHarness) => {
      await harness.pressKeys('ctrl+q');
      await expect
        .poll(async () => (await harness.xdotool('search', '--name', 'note.txt').catch(() => '')).trim(), {
          timeout: 5000,
        })
        .toBe('');
      await writeFile(file, '');
    };
    await quit(desktop());

    // The window 150 px further right and down.
    const editor = execa('featherpad', [file], { env: accessibleAppEnv(env), reject: false });
    const moved = await waitForWindowTitle(desktop(), 'note.txt');
    await sleep(1000); // the window manager places a new window first: a move before would be undone
    await desktop().xdotool('windowmove', moved, String(box.x + 150), String(box.y + 150));
    await expect
      .poll(async () => (await windowGeometry(desktop(), moved)).x, { timeout: 5000 })
      .toBeGreaterThanOrEqual(box.x + 140);
    await expectReplayed(await replay('Moved window', env), 'Moved window');
    await quit(desktop());
    await editor;

    // FeatherPad's dark colour scheme, the app started by the replay (the recording's setup).
    const config = join(env.XDG_CONFIG_HOME as string, 'featherpad', 'fp.conf');
    await mkdir(dirname(config), { recursive: true });
    await writeFile(config, '[text]\ndarkColorScheme=true\n');
    await expectReplayed(await replay('Dark colours', env, ['--run-setup']), 'Dark colours', 'dark');
    await quit(desktop());

    // Qt scaled 1.25x (light colours again).
    await writeFile(config, '[text]\ndarkColorScheme=false\n');
    await expectReplayed(
      await replay('Scaled up', { ...env, QT_SCALE_FACTOR: '1.25' }, ['--run-setup']),
      'Scaled up',
    );
    await quit(desktop());

    // A 1920x1080 screen instead of the recorded 1280x800.
    await withDesktop({ app: false, windowManager: true, width: 1920, height: 1080 }, async (big) => {
      const bigEnv = await gtkAppEnv(big);
      await expectReplayed(await replay('Bigger screen', bigEnv, ['--run-setup']), 'Bigger screen');
      await quit(big);
    });
  });
});
