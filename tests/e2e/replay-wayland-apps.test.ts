/**
 * Apps of other toolkits on headless sway, each workflow recorded by input under X11 (Xvfb and
 * openbox) and replayed unchanged through the wlroots adapter with `--max-model-calls 0`: a GTK 3
 * dialog (zenity) and FeatherPad (Qt 5) natively on Wayland, their windows floated and moved away
 * from where they were recorded (fields found by their accessibility elements: window-relative
 * extents placed by the window sway shows for the app's pid); the demo in Chromium on XWayland
 * (`--ozone-platform=x11`), driven by the same virtual pointer and wtype. Outcomes are read outside
 * mime: what the dialog hands back, the file the editor saved, the demo's window title.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { accessibleAppEnv, elementCentre } from '@mime-desktop/test-support/accessible-element';
import { DIALOG_ARGS, recordDialog } from '@mime-desktop/test-support/address-dialog';
import { centerOf } from '@mime-desktop/test-support/desktop-harness';
import { copyWorkflow, useTempDirs } from '@mime-desktop/test-support/e2e-rig';
import { type MatrixApp, recordAndReflect } from '@mime-desktop/test-support/matrix';
import { featherpad } from '@mime-desktop/test-support/matrix-apps';
import {
  paramNames,
  recordedTarget,
  replayWithoutModel,
} from '@mime-desktop/test-support/replay-without-model';
import { type SwayHarness, startSwayHarness, swaySkipReason } from '@mime-desktop/test-support/sway-harness';
import { sleep } from '@mime-desktop/test-support/wait';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const skip = swaySkipReason();
const TYPIST = join(import.meta.dirname, '..', 'support', 'wayland-type-child.ts');

/** The lines a child process writes, one at a time. */
const lines = (stream: NodeJS.ReadableStream) => createInterface({ input: stream })[Symbol.asyncIterator]();
if (skip) console.warn(`skipping the sway app replay tests: ${skip}`);

const tempDir = useTempDirs();

/**
 * An editor of the matrix (it saves a line to the file on its command line with Ctrl+S), recorded
 * under X11, replayed on sway natively with `toolkitEnv`, its window moved to 300,200.
 */
function editorOnSway(
  app: MatrixApp,
  command: string,
  windowApp: RegExp,
  toolkitEnv: Record<string, string>,
) {
  describe.skipIf(skip !== null)(`${app.name} natively on sway`, () => {
    let workflow = '';
    let work = '';
    let desktop: SwayHarness | undefined;
    beforeAll(async () => {
      const home = await tempDir('mime-sway-apps-');
      work = await tempDir('mime-sway-work-');
      workflow = await recordAndReflect(app, home, work);
      desktop = await startSwayHarness({ app: false });
    }, 120_000);
    afterAll(async () => {
      await desktop?.stop();
    });

    for (const mode of ['trace', 'auto']) {
      it(`${mode} ${mode === 'trace' ? 'clicks the text where it was recorded' : 'finds the text by its accessibility element after the window moved'}; the line is saved`, {
        timeout: 90_000,
      }, async () => {
        if (!desktop) throw new Error('sway is not started');
        const file = join(work, `${command}-note.txt`);
        await writeFile(file, '');
        const home = await tempDir(`mime-sway-${command}-`);
        const env = accessibleAppEnv({
          ...desktop.env,
          HOME: home,
          XDG_CONFIG_HOME: join(home, 'config'),
          XDG_DATA_HOME: join(home, 'data'),
          XDG_CACHE_HOME: join(home, 'cache'),
          ...toolkitEnv,
        });
        const started = desktop.startApp(command, [file], env);
        try {
          // Auto: recorded under openbox, here floated and moved to another place. Trace: floated, then
          // moved so the clicked element is where the recording has it on the screen (its extents in
          // its window, as the toolkit gives them on Wayland, put at its recorded screen extents).
          const view = await desktop.placeWindow(windowApp, { x: 300, y: 200 });
          expect(view.shell).toBe('xdg_shell');
          if (mode === 'trace') {
            const element = await recordedTarget(workflow);
            const inWindow = await elementCentre(desktop.env, element, 20_000);
            const recorded = centerOf(element.extents);
            await desktop.placeWindow(windowApp, { x: recorded.x - inWindow.x, y: recorded.y - inWindow.y });
          }
          const [param] = await paramNames(workflow);
          const run = await replayWithoutModel(desktop.env, workflow, mode, [`${param}=${app.values[0]}`]);
          expect((await readFile(file, 'utf8')).trim(), run.stderr).toBe(app.values[0]);
          expect(run.exitCode, run.stderr).toBe(0);
          expect(run.summary).toMatchObject({ outcome: 'success', usage: { calls: 0 } });
          expect(run.rungs[0], run.reasons.join('\n')).toBe('accessibility');
        } finally {
          await started.stop();
        }
      });
    }
  });
}

describe.skipIf(skip !== null)('a GTK 3 dialog (zenity) natively on sway', () => {
  let workflow = '';
  let recordedAt = { x: 0, y: 0 };
  let desktop: SwayHarness | undefined;
  beforeAll(async () => {
    ({ workflow, at: recordedAt } = await recordDialog(await tempDir('mime-sway-gtk-')));
    desktop = await startSwayHarness({ app: false });
  }, 120_000);
  afterAll(async () => {
    await desktop?.stop();
  });

  for (const mode of ['trace', 'auto']) {
    it(`${mode} finds each field by its accessibility element${mode === 'auto' ? ' after the window moved' : ''}; the dialog hands back the new values`, {
      timeout: 90_000,
    }, async () => {
      if (!desktop) throw new Error('sway is not started');
      const dialog = execa('zenity', DIALOG_ARGS, {
        env: accessibleAppEnv({ ...desktop.env, GDK_BACKEND: 'wayland' }),
        extendEnv: false,
        reject: false,
      });
      try {
        // Trace checks the screen where the recording shows each change: the dialog where it was
        // recorded (its content; sway draws no title bar for it). Auto: moved to another place.
        const at = mode === 'trace' ? recordedAt : { x: recordedAt.x + 150, y: recordedAt.y + 90 };
        const view = await desktop.placeWindow(/zenity/i, at);
        expect(view.shell).toBe('xdg_shell');
        const [name, city] = await paramNames(workflow);
        const run = await replayWithoutModel(desktop.env, workflow, mode, [
          `${name}=Bob Jones`,
          `${city}=Rome`,
        ]);
        // A dialog the replay did not confirm is closed, so the test ends with its answer either way.
        if (!(await Promise.race([dialog, sleep(3000).then(() => null)]))) dialog.kill('SIGTERM');
        expect((await dialog).stdout, run.stderr).toBe('Bob Jones|Rome');
        expect(run.exitCode, run.stderr).toBe(0);
        expect(run.summary).toMatchObject({ outcome: 'success', usage: { calls: 0 } });
        // Every step by what the app says: the clicks' targets found by their elements, and before
        // each typing the recorded field has the focus (GTK 3 keeps one only while the seat has a
        // keyboard: mime keeps one on the headless seat for the run).
        expect(run.rungs, run.reasons.join(' | ')).toEqual(Array(5).fill('accessibility'));
      } finally {
        dialog.kill('SIGTERM');
        await dialog;
      }
    });
  }
});

editorOnSway(featherpad, 'featherpad', /featherpad/i, { QT_QPA_PLATFORM: 'wayland' });

describe.skipIf(skip !== null)('an X11 app on XWayland under sway: the demo in Chromium', () => {
  let desktop: SwayHarness | undefined;
  beforeAll(async () => {
    desktop = await startSwayHarness({ xwayland: true, chromium: 'x11' });
  }, 60_000);
  afterAll(async () => {
    await desktop?.stop();
  });

  for (const mode of ['trace', 'auto']) {
    it(`${mode} replays the X11 recording through the virtual pointer and wtype`, {
      timeout: 90_000,
    }, async () => {
      if (!desktop) throw new Error('sway is not started');
      await desktop.resetApp();
      expect((await desktop.findWindow(/^chromium$/i))?.shell).toBe('xwayland');
      const dir = await copyWorkflow('play-song-recorded');
      const run = await replayWithoutModel(desktop.env, dir, mode, ['song_name=Faint']);
      expect((await desktop.readAppState()).playing, run.stderr).toBe('Faint');
      expect(run.exitCode, run.stderr).toBe(0);
      expect(run.summary).toMatchObject({ outcome: 'success', usage: { calls: 0 } });
    });
  }

  it('types a whole word into the X11 app while XWayland is held up through the whole typing', {
    timeout: 60_000,
  }, async () => {
    if (!desktop) throw new Error('sway is not started');
    await desktop.resetApp();
    const xwayland = await desktop.xwaylandPid();
    if (!xwayland) throw new Error('no XWayland process serves the sway session');
    // The demo's search field, as play-song-recorded clicks it.
    const typist = execa(process.execPath, ['--import', 'tsx', TYPIST, '240,120', 'Faint'], {
      env: desktop.env,
      extendEnv: false,
      stdin: 'pipe',
    });
    try {
      const said = lines(typist.stdout);
      expect(await said.next()).toEqual({ done: false, value: 'ready' });
      // XWayland stopped: the keyboard that comes with the typing, its keys and its going all wait in
      // its socket. Typed whole only if it holds a keyboard from before (a headless seat has none but
      // mime's): one it must bind once it runs again gets none of the keys.
      process.kill(xwayland, 'SIGSTOP');
      try {
        typist.stdin.write('go\n');
        expect(await said.next()).toEqual({ done: false, value: 'typed' });
      } finally {
        process.kill(xwayland, 'SIGCONT');
      }
      expect((await desktop.waitForAppState((s) => s.search !== '', 10_000)).search).toBe('Faint');
    } finally {
      typist.stdin.end();
      await typist;
    }
  });
});
