/**
 * A Qt 5 editor (FeatherPad) natively on GNOME's Wayland (headless mutter, `QT_QPA_PLATFORM=wayland`),
 * its workflow recorded by input under X11 (Xvfb at 96 DPI with openbox: click into the editor, type a
 * line, Ctrl+S) and replayed unchanged with `--max-model-calls 0`. The outcome is read outside mime:
 * the line in the file the editor saved.
 *
 * Qt draws at 96 DPI on Wayland: recorded at Xvfb's default 100 DPI its elements were 4-7% bigger and
 * auto stopped (the editor found at best 78% alike where 80% is needed); at 96 they are the recorded
 * size. Mutter places the window itself (its content 39 px higher than openbox had it, Qt drawing its
 * own title bar) and tells no program where: auto re-finds the editor by its recorded look. The
 * workflow has one element only (the empty editor, featureless), so no window origin can be measured
 * for the accessibility rung (it needs a distinctive element and a second to confirm). Trace acts only
 * where the recording did: with the window dragged by its title bar to its recorded place over a black
 * desktop (Xvfb's root window behind the recording) it replays; where mutter put the window, over
 * mutter's own background, it stops before its first click.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { accessibleAppEnv, elementCentre } from '@mime-desktop/test-support/accessible-element';
import { useTempDirs } from '@mime-desktop/test-support/e2e-rig';
import { recordAndReflect } from '@mime-desktop/test-support/matrix';
import { featherpad } from '@mime-desktop/test-support/matrix-apps';
import {
  type MutterHarness,
  mutterSkipReason,
  startMutterHarness,
} from '@mime-desktop/test-support/mutter-harness';
import { bandPlace, dragToRecordedPlace } from '@mime-desktop/test-support/mutter-window-drag';
import {
  paramNames,
  recordedTarget,
  replayWithoutModel,
} from '@mime-desktop/test-support/replay-without-model';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const skip = mutterSkipReason();
if (skip) console.warn(`skipping the GNOME (mutter) Qt replay tests: ${skip}`);

const tempDir = useTempDirs();

/** A black window over the whole screen (GTK 4, no title bar), as Xvfb's root window behind the recording. */
const BACKDROP = [
  'import gi',
  "gi.require_version('Gtk', '4.0')",
  'from gi.repository import GLib, Gtk',
  'w = Gtk.Window(decorated=False)',
  'css = Gtk.CssProvider()',
  "css.load_from_data(b'window { background: black; }')",
  'Gtk.StyleContext.add_provider_for_display(w.get_display(), css, 800)',
  'w.maximize()',
  'w.present()',
  'GLib.MainLoop().run()',
].join('\n');
const LINE = featherpad.values[0] ?? '';

describe.skipIf(skip !== null)('FeatherPad (Qt 5) natively on GNOME (mutter)', () => {
  let workflow = '';
  let work = '';
  let desktop: MutterHarness | undefined;
  beforeAll(async () => {
    const home = await tempDir('mime-gnome-qt-');
    work = await tempDir('mime-gnome-qt-work-');
    workflow = await recordAndReflect(featherpad, home, work);
    desktop = await startMutterHarness();
  }, 120_000);
  afterAll(async () => {
    await desktop?.stop();
  });

  /** Starts FeatherPad natively on Wayland on the file the recording saved to, emptied; waits for its editor's tree. */
  const startEditor = async (harness: MutterHarness) => {
    const file = join(work, 'featherpad-note.txt');
    await writeFile(file, '');
    const home = await tempDir('mime-gnome-qt-app-');
    const env = accessibleAppEnv({
      ...harness.env,
      HOME: home,
      XDG_CONFIG_HOME: join(home, 'config'),
      XDG_DATA_HOME: join(home, 'data'),
      XDG_CACHE_HOME: join(home, 'cache'),
      QT_QPA_PLATFORM: 'wayland',
    });
    const started = harness.startApp('featherpad', [file], env);
    // The element the workflow clicks is in the tree (extents counted from its window on Wayland).
    const inWindow = await elementCentre(harness.env, await recordedTarget(workflow), 20_000);
    return { file, inWindow, stop: started.stop };
  };

  it('auto re-finds the editor where mutter placed the window, by its recorded look; the line is saved', {
    timeout: 60_000,
  }, async () => {
    if (!desktop) throw new Error('mutter is not started');
    const editor = await startEditor(desktop);
    try {
      const [param] = await paramNames(workflow);
      const run = await replayWithoutModel(desktop.env, workflow, 'auto', [`${param}=${LINE}`]);
      expect((await readFile(editor.file, 'utf8')).trim(), run.stderr).toBe(LINE);
      expect(run.exitCode, run.stderr).toBe(0);
      expect(run.summary).toMatchObject({ outcome: 'success', usage: { calls: 0 } });
      expect(run.rungs[0], run.reasons.join('\n')).toBe('template-anywhere');
      expect(run.reasons[0]).toMatch(/target re-found unique on the screen \(\d+% alike\), moved by/);
    } finally {
      await editor.stop();
    }
  });

  it("trace, the window dragged to where the recording had it over a black desktop as Xvfb's, clicks, types and saves the line", {
    timeout: 60_000,
  }, async () => {
    if (!desktop) throw new Error('mutter is not started');
    const backdrop = desktop.startApp('/usr/bin/python3', ['-c', BACKDROP], {
      ...desktop.env,
      GSK_RENDERER: 'cairo',
    });
    try {
      await desktop.waitForPixel({ x: 5, y: 5 }, ([r, g, b]) => r === 0 && g === 0 && b === 0, 20_000);
      const editor = await startEditor(desktop);
      try {
        // The band of the window above the editor (menus, toolbar, tabs), as recorded: the editor's
        // recorded screen extents less its extents in its window.
        const element = await recordedTarget(workflow);
        const top = element.extents.y - (editor.inWindow.y - Math.round(element.extents.height / 2));
        const band = {
          x: element.extents.x,
          y: top,
          width: element.extents.width,
          height: element.extents.y - top,
        };
        const frame = join(workflow, 'screenshots', '0.png');
        await dragToRecordedPlace(desktop, frame, band);
        const [param] = await paramNames(workflow);
        const run = await replayWithoutModel(desktop.env, workflow, 'trace', [`${param}=${LINE}`]);
        // Where the window stands after a failed run tells a moved window from a changed one.
        const said =
          run.exitCode === 0 ? run.stderr : `${run.stderr}\n${await bandPlace(desktop, frame, band)}`;
        expect((await readFile(editor.file, 'utf8')).trim(), said).toBe(LINE);
        expect(run.exitCode, said).toBe(0);
        expect(run.summary).toMatchObject({ outcome: 'success', usage: { calls: 0 } });
        expect(run.rungs, run.reasons.join('\n')).toEqual(['recorded-place', 'trace', 'trace']);
      } finally {
        await editor.stop();
      }
    } finally {
      await backdrop.stop();
    }
  });

  it('trace stops before its first click: the window is not where it was recorded (mutter placed it), nothing is typed', {
    timeout: 60_000,
  }, async () => {
    if (!desktop) throw new Error('mutter is not started');
    const editor = await startEditor(desktop);
    try {
      const [param] = await paramNames(workflow);
      const run = await replayWithoutModel(desktop.env, workflow, 'trace', [`${param}=${LINE}`]);
      expect(run.exitCode, run.stderr).not.toBe(0);
      expect(run.summary).toMatchObject({ outcome: 'failed', usage: { calls: 0 } });
      expect(run.rungs).toEqual(['skipped']);
      expect(run.stderr).toContain('the screen is not the one recorded');
      expect(await readFile(editor.file, 'utf8')).toBe('');
    } finally {
      await editor.stop();
    }
  });
});
