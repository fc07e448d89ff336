/**
 * Apps on GNOME's Wayland (headless mutter, PipeWire and WirePlumber on a private session bus), each
 * workflow recorded by input under X11 and replayed unchanged through the gnome adapter with
 * `--max-model-calls 0`. Mutter tells no program where windows are, and toolkits give extents
 * relative to their window: replay measures the window's place from a distinctive recorded element
 * (its look found once on the screen, confirmed by a second element) and finds the fields by their
 * accessibility elements; a workflow's setup window is found in the accessibility trees (mutter names no
 * windows). The demo in Chromium on mutter's Xwayland (`--ozone-platform=x11`). Outcomes
 * are read outside mime: what the dialog hands back, the demo's window title.
 */

import { cp, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { accessibleAppEnv, elementCentre } from '@mime-desktop/test-support/accessible-element';
import { DIALOG_ARGS, recordDialog } from '@mime-desktop/test-support/address-dialog';
import { copyWorkflow, dataOf, readEvents, useTempDirs } from '@mime-desktop/test-support/e2e-rig';
import {
  type MutterHarness,
  mutterSkipReason,
  startMutterHarness,
} from '@mime-desktop/test-support/mutter-harness';
import { paramNames, replayWithoutModel } from '@mime-desktop/test-support/replay-without-model';
import { runMime } from '@mime-desktop/test-support/run-mime';
import { sleep } from '@mime-desktop/test-support/wait';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const skip = mutterSkipReason();
if (skip) console.warn(`skipping the GNOME (mutter) app replay tests: ${skip}`);

const tempDir = useTempDirs();

describe.skipIf(skip !== null)('a GTK 3 dialog (zenity) natively on GNOME (mutter)', () => {
  let workflow = '';
  let desktop: MutterHarness | undefined;
  beforeAll(async () => {
    ({ workflow } = await recordDialog(await tempDir('mime-gnome-gtk-')));
    desktop = await startMutterHarness();
  }, 120_000);
  afterAll(async () => {
    await desktop?.stop();
  });

  it('auto finds each field by its accessibility element in the window mutter placed elsewhere; the dialog hands back the new values', {
    timeout: 90_000,
  }, async () => {
    if (!desktop) throw new Error('mutter is not started');
    const env = accessibleAppEnv({ ...desktop.env, GDK_BACKEND: 'wayland' });
    const dialog = execa('zenity', DIALOG_ARGS, { env, extendEnv: false, reject: false });
    try {
      // Its tree is there (its elements counted from its window: mutter says nothing of its place).
      await elementCentre(desktop.env, { role: 'push button', name: 'OK', app: 'zenity' }, 20_000);
      const [name, city] = await paramNames(workflow);
      const run = await replayWithoutModel(desktop.env, workflow, 'auto', [
        `${name}=Bob Jones`,
        `${city}=Rome`,
      ]);
      // A dialog the replay did not confirm is closed, so the test ends with its answer either way.
      if (!(await Promise.race([dialog, sleep(3000).then(() => null)]))) dialog.kill('SIGTERM');
      expect((await dialog).stdout, `${run.stderr}\n${run.reasons.join('\n')}`).toBe('Bob Jones|Rome');
      expect(run.exitCode, run.stderr).toBe(0);
      expect(run.summary).toMatchObject({ outcome: 'success', usage: { calls: 0 } });
      // The two fields (featureless to pixels once empty) by their elements. OK, after both fields were
      // typed into, may be found by pixels instead: the marks its window was measured by can all have
      // changed by then (seen at load ~13: OK drawn 1.06x its recorded size on mutter, so it is no anchor).
      const clicks = [0, 2];
      expect(
        clicks.map((k) => run.rungs[k]),
        run.reasons.join('\n'),
      ).toEqual(Array(2).fill('accessibility'));
      for (const k of clicks) {
        // Found where mutter put the window, not where openbox had it, by the measured origin.
        expect(run.reasons[k]).toMatch(/moved by \(-?\d+, -?\d+\)/);
        expect(run.reasons[k]).toMatch(/window 'Address' of zenity measured at \(-?\d+, -?\d+\)/);
      }
    } finally {
      dialog.kill('SIGTERM');
      await dialog;
    }
  });
  it("a workflow with a setup finds the dialog's window through its accessibility tree and replays in place; a setup window not open is named", {
    timeout: 90_000,
  }, async () => {
    if (!desktop) throw new Error('mutter is not started');
    const withSetup = await withSetupWindow(workflow, await tempDir('mime-gnome-setup-'));
    const env = accessibleAppEnv({ ...desktop.env, GDK_BACKEND: 'wayland' });
    const [name, city] = await paramNames(withSetup);
    const params = [`${name}=Cy Young`, `${city}=Oslo`];

    // Not open, and replay may not run the setup command: it waits, then names the window.
    const missing = await replayWithoutModel(desktop.env, withSetup, 'trace', params);
    expect(missing.exitCode, missing.stderr).not.toBe(0);
    expect(missing.stderr).toContain(
      'the app window (title /^Address$/ and class /^Zenity$/) did not appear within 2 s',
    );

    const dialog = execa('zenity', DIALOG_ARGS, { env, extendEnv: false, reject: false });
    try {
      await elementCentre(desktop.env, { role: 'push button', name: 'OK', app: 'zenity' }, 20_000);
      const run = await replayWithoutModel(desktop.env, withSetup, 'auto', params);
      if (!(await Promise.race([dialog, sleep(3000).then(() => null)]))) dialog.kill('SIGTERM');
      expect((await dialog).stdout, `${run.stderr}\n${run.reasons.join('\n')}`).toBe('Cy Young|Oslo');
      expect(run.exitCode, run.stderr).toBe(0);
      expect(run.summary).toMatchObject({ outcome: 'success', usage: { calls: 0 } });
      const events = await readEvents(join(withSetup, '.replay', run.summary?.run_id ?? ''));
      expect(dataOf(events, 'setup')).toEqual([
        expect.objectContaining({ launched: false, window: 'title /^Address$/ and class /^Zenity$/' }),
      ]);
    } finally {
      dialog.kill('SIGTERM');
      await dialog;
    }
  });

  it('--fresh ends the open dialog, owned by the process its accessibility tree names, and runs the setup command again', {
    timeout: 90_000,
  }, async () => {
    if (!desktop) throw new Error('mutter is not started');
    const withSetup = await withSetupWindow(workflow, await tempDir('mime-gnome-fresh-'), 20_000);
    const env = accessibleAppEnv({ ...desktop.env, GDK_BACKEND: 'wayland' });
    const [name, city] = await paramNames(withSetup);
    const dialog = execa('zenity', DIALOG_ARGS, { env, extendEnv: false, reject: false });
    try {
      await elementCentre(desktop.env, { role: 'push button', name: 'OK', app: 'zenity' }, 20_000);
      const run = await runMime(
        [
          ...['replay', withSetup, '--mode', 'auto', '--max-model-calls', '0', '--json', '--fresh'],
          ...['--param', `${name}=Di Nu`, '--param', `${city}=Lima`],
        ],
        { env: desktop.env },
      );
      // The dialog the test opened was ended by the restart, before the replay filled the new one.
      expect((await dialog).signal, run.stderr).toBe('SIGTERM');
      expect(run.exitCode, run.stderr).toBe(0);
      const summary = JSON.parse(run.stdout);
      expect(summary).toMatchObject({ outcome: 'success', usage: { calls: 0 } });
      const events = await readEvents(join(withSetup, '.replay', summary.run_id));
      expect(dataOf(events, 'setup')).toEqual([expect.objectContaining({ launched: true, fresh: true })]);
    } finally {
      dialog.kill('SIGTERM');
      await dialog;
    }
  });
});

/**
 * A copy of the recorded dialog workflow in `into` with a setup: the dialog's window by title and its
 * X11 class, waited for `timeoutMs` (default 2 s).
 */
async function withSetupWindow(workflow: string, into: string, timeoutMs = 2000): Promise<string> {
  const dir = join(into, 'address-with-setup');
  await cp(workflow, dir, { recursive: true });
  const file = join(dir, 'schema.json');
  const schema = JSON.parse(await readFile(file, 'utf8'));
  schema.setup = {
    command: `zenity ${DIALOG_ARGS.join(' ')}`,
    window: { title: '^Address$', class: '^Zenity$' },
    timeout_ms: timeoutMs,
  };
  await writeFile(file, `${JSON.stringify(schema, null, 2)}\n`);
  return dir;
}

describe.skipIf(skip !== null)('an X11 app on XWayland under GNOME (mutter): the demo in Chromium', () => {
  let desktop: MutterHarness | undefined;
  beforeAll(async () => {
    desktop = await startMutterHarness({ xwayland: true });
  }, 60_000);
  afterAll(async () => {
    await desktop?.stop();
  });

  for (const mode of ['trace', 'auto']) {
    it(`${mode} replays the X11 recording through mutter's remote desktop`, { timeout: 90_000 }, async () => {
      if (!desktop) throw new Error('mutter is not started');
      expect(desktop.env.DISPLAY).toMatch(/^:\d+$/);
      const demo = await desktop.startDemoApp(undefined, 'x11');
      try {
        // Chromium is an X11 client of mutter's Xwayland: its window is on that X display.
        const xWindows = await execa('xdotool', ['search', '--onlyvisible', '--class', 'chromium'], {
          env: desktop.env,
          extendEnv: false,
          reject: false,
        });
        expect(xWindows.stdout.trim()).toMatch(/^\d+/);
        const dir = await copyWorkflow('play-song-recorded');
        const run = await replayWithoutModel(desktop.env, dir, mode, ['song_name=Faint']);
        expect((await demo.readAppState()).playing, run.stderr).toBe('Faint');
        expect(run.exitCode, run.stderr).toBe(0);
        expect(run.summary).toMatchObject({ outcome: 'success', usage: { calls: 0 } });
      } finally {
        await demo.stop();
      }
    });
  }
});
