/**
 * Replay on GNOME's Wayland: headless mutter with PipeWire and WirePlumber on a private session bus,
 * the demo in Chromium natively on Wayland (`--ozone-platform=wayland`, a client of mutter's socket
 * itself) and Mousepad (GTK 3) natively on Wayland, workflows recorded under X11 replayed unchanged
 * through the gnome adapter (mutter's RemoteDesktop and ScreenCast over D-Bus, frames through
 * PipeWire). Outcomes are checked outside mime: the demo's page title, the file Mousepad saved.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { AccessibleElement } from '@mime-desktop/schema';
import { accessibleAppEnv, waitForFocused } from '@mime-desktop/test-support/accessible-element';
import { copyWorkflow, tempDir } from '@mime-desktop/test-support/e2e-rig';
import { startFakeModelServer } from '@mime-desktop/test-support/fake-model-server';
import { createFakeVisionModel } from '@mime-desktop/test-support/fake-vision-model';
import {
  type MutterHarness,
  mutterSkipReason,
  startMutterHarness,
} from '@mime-desktop/test-support/mutter-harness';
import { runMime } from '@mime-desktop/test-support/run-mime';
import { waitUntil } from '@mime-desktop/test-support/wait';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

const skip = mutterSkipReason();
if (skip) console.warn(`skipping the GNOME (mutter) replay tests: ${skip}`);

/** Where the recorded click lands: Mousepad's text view, on mutter as under X11. */
const TEXT_VIEW = { x: 641, y: 427 };
const white = ([r = 0, g = 0, b = 0]: number[]) => r > 240 && g > 240 && b > 240;

const executions = (summary: { subtasks: Array<{ steps: Array<{ executed_by: string }> }> }) =>
  summary.subtasks.flatMap((s) => s.steps.map((step) => step.executed_by));

describe.skipIf(skip !== null)('replay on headless GNOME (mutter)', () => {
  let desktop: MutterHarness | undefined;
  let app: { stop: () => Promise<void> } | undefined;
  beforeAll(async () => {
    desktop = await startMutterHarness();
  }, 60_000);
  afterEach(async () => {
    await app?.stop();
    app = undefined;
  });
  afterAll(async () => {
    await desktop?.stop();
  });
  const mutter = () => {
    if (!desktop) throw new Error('mutter is not started');
    return desktop;
  };

  /** Mousepad with config folders of its own (no restored session), its window drawn. */
  async function startMousepad(): Promise<string> {
    const home = await tempDir('mime-gnome-home-');
    app = mutter().startApp('mousepad', [], {
      ...accessibleAppEnv(mutter().env),
      HOME: home,
      XDG_CONFIG_HOME: join(home, 'config'),
      XDG_DATA_HOME: join(home, 'data'),
      XDG_CACHE_HOME: join(home, 'cache'),
    });
    await mutter().waitForPixel(TEXT_VIEW, white);
    return home;
  }

  for (const mode of ['trace', 'auto']) {
    it(`${mode} replays the demo recorded under X11 with a new param and no model`, {
      timeout: 90_000,
    }, async () => {
      const demo = await mutter().startDemoApp();
      try {
        // Chromium (`--ozone-platform=wayland`) is a client of mutter's Wayland socket itself; mutter
        // runs no Xwayland here (`--no-x11`), so there is no X server it could have used instead.
        expect((await mutter().waylandClients()).map((c) => c.pid)).toContain(demo.pid);
        expect(mutter().env.DISPLAY).toBeUndefined();
        const dir = await copyWorkflow('play-song-recorded');
        const result = await runMime(
          ['replay', dir, '--mode', mode, '--param', 'song_name=Faint', '--json'],
          { env: mutter().env },
        );
        expect(result.exitCode, result.stderr).toBe(0);
        expect((await demo.readAppState()).playing).toBe('Faint');
        const summary = JSON.parse(result.stdout);
        expect(summary).toMatchObject({
          mode,
          outcome: 'success',
          usage: { calls: 0 },
          extracts: { song_now_playing: 'Faint' },
        });
        expect(executions(summary)).toEqual(['trace', 'trace', 'trace', 'trace', 'trace']);
      } finally {
        await demo.stop();
      }
    });
  }

  it('auto hands a subtask whose target is gone to the agent, which finishes it with the fake model', {
    timeout: 120_000,
  }, async () => {
    const demo = await mutter().startDemoApp('play=Listen');
    const server = await startFakeModelServer();
    const model = createFakeVisionModel();
    server.setHandler(model.handler);
    try {
      const dir = await copyWorkflow('play-song-recorded');
      const result = await runMime(
        ['replay', dir, '--mode', 'auto', '--param', 'song_name=Faint', '--json'],
        {
          env: { ...mutter().env, MIME_BASE_URL: server.url, MIME_MODEL: 'fake-vision' },
        },
      );
      expect(result.exitCode, result.stderr).toBe(0);
      expect((await demo.readAppState()).playing).toBe('Faint');
      const summary = JSON.parse(result.stdout);
      expect(executions(summary)).toEqual(['trace', 'trace', 'trace', 'agent', 'agent']);
      expect(summary.usage.calls).toBeGreaterThan(0);
    } finally {
      await server.close();
      await model.close();
      await demo.stop();
    }
  });

  it('drives a GTK 3 app natively on Wayland: a note with symbols typed into Mousepad and saved through its dialog', {
    timeout: 90_000,
  }, async () => {
    // The X11 recording of Mousepad cannot replay here: its frames show openbox's frame on a black
    // root window, mutter draws GTK's own title bar on its own background, so every recorded screen
    // differs (33% alike in trace). The adapter is driven directly; the outcome is the file.
    const work = await startMousepad();
    const target = join(work, 'note.txt');
    const note = 'Wayland on GNOME: a-b_c (1+2=3)? 100% & "more"!';
    const desktop = await mutter().openDesktop();
    try {
      // What mutter does not tell is refused, never guessed.
      await expect(desktop.focusedWindow()).rejects.toMatchObject({ code: 'MIME_UNSUPPORTED_PLATFORM' });
      await expect(desktop.startHooks(() => undefined)).rejects.toMatchObject({
        code: 'MIME_UNSUPPORTED_PLATFORM',
      });
      // Each key's effect is read from what Mousepad says (its focused element and text) before the
      // next: a key lost under load fails here, by name, not as a missing file.
      await desktop.click(TEXT_VIEW);
      await desktop.typeText(note);
      const { env } = mutter();
      await waitForFocused(env, (e) => e.role === 'text' && e.text === note, {
        what: 'the note in the text view',
      });
      await desktop.pressKey('ctrl+s');
      // The Save dialog's name field takes the focus once the dialog is up.
      const inDialog = (e: AccessibleElement) => e.role === 'text' && e.window.role === 'file chooser';
      await waitForFocused(env, inDialog, {
        what: 'the Save dialog focusing its name field',
        timeoutMs: 15_000,
      });
      await desktop.typeText(target);
      await waitForFocused(env, (e) => inDialog(e) && e.text === target, {
        what: 'the path in the name field',
      });
      await desktop.pressKey('enter');
      await waitUntil(async () => (await readFile(target, 'utf8').catch(() => '')).trim() === note, {
        what: `${target} holding the note`,
      });
    } finally {
      await desktop.close();
    }
    expect((await readFile(target, 'utf8')).trim()).toBe(note);
  });

  it('refuses to record, saying what works, with a stable code and exit 2', async () => {
    const result = await runMime(['record', '--name', 'on gnome', '--launch', 'true'], { env: mutter().env });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toMatch(
      /\[MIME_RECORD_UNSUPPORTED\] mime cannot record in a Wayland session \(GNOME, WAYLAND_DISPLAY=wayland-0\)/,
    );
    expect(result.stderr).toContain('xvfb-run -a mime record');
    // At Xvfb's default 100 DPI, Qt and Tk would be recorded bigger than they draw on Wayland.
    expect(result.stderr).toContain('-dpi 96');
  });

  it('doctor names the session, the adapter and what each capability can do', async () => {
    const result = await runMime(['doctor', '--offline', '--json'], { env: mutter().env });
    const { checks }: { checks: Array<{ name: string; status: string; detail: string; fix?: string }> } =
      JSON.parse(result.stdout);
    const byName = Object.fromEntries(checks.map((c) => [c.name, c]));
    expect(byName.display).toMatchObject({ status: 'ok' });
    expect(byName.display?.detail).toMatch(/^wayland session of GNOME at \S+wayland-0, adapter gnome/);
    expect(byName.capture?.status, byName.capture?.detail).toBe('ok');
    expect(byName.capture?.detail).toMatch(
      /PipeWire .*: 1280x800 logical px, scale 1, [\d.]+ ms to take the last frame mutter sent .*; session ready in \d+ ms$/,
    );
    expect(byName.pointer).toMatchObject({ status: 'ok' });
    expect(byName.keyboard).toMatchObject({ status: 'ok' });
    for (const name of ['windows', 'hotkeys', 'input hooks']) {
      expect(byName[name]?.status, `${name}: ${byName[name]?.detail}`).toBe('warn');
    }
    expect(byName['input hooks']?.detail).toContain('`mime record` is refused here');
    expect(byName['input hooks']?.fix).toContain('xvfb-run -a mime record');
    expect(byName['input hooks']?.fix).toContain('-dpi 96');
  });
});
