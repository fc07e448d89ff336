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
 * for the accessibility rung (it needs a distinctive element and a second to confirm). Trace, which
 * acts only where the recording did, stops before acting: mutter's background and the window's
 * place are not the recorded screen.
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
import {
  paramNames,
  recordedTarget,
  replayWithoutModel,
} from '@mime-desktop/test-support/replay-without-model';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const skip = mutterSkipReason();
if (skip) console.warn(`skipping the GNOME (mutter) Qt replay tests: ${skip}`);

const tempDir = useTempDirs();
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
    await elementCentre(harness.env, await recordedTarget(workflow), 20_000);
    return { file, stop: started.stop };
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
