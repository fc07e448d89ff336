/**
 * Replay on Wayland: headless sway (wlroots) started as an unprivileged user, the demo app in
 * Chromium natively on Wayland (`--ozone-platform=wayland`, an `xdg_shell` window as sway tells it;
 * sway runs no XWayland here), and the workflow recorded under X11 replayed unchanged through the
 * wlroots adapter (virtual pointer, wtype, grim, sway IPC).
 */
import { join } from 'node:path';
import { copyWorkflow, readEvents } from '@mime-desktop/test-support/e2e-rig';
import { startFakeModelServer } from '@mime-desktop/test-support/fake-model-server';
import { createFakeVisionModel } from '@mime-desktop/test-support/fake-vision-model';
import { runMime } from '@mime-desktop/test-support/run-mime';
import { type SwayHarness, startSwayHarness, swaySkipReason } from '@mime-desktop/test-support/sway-harness';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const skip = swaySkipReason();
if (skip) console.warn(`skipping the sway replay tests: ${skip}`);

async function replay(
  desktop: SwayHarness,
  mode: string,
  edit?: (schema: any) => void,
  env: Record<string, string> = {},
) {
  const dir = await copyWorkflow('play-song-recorded', edit);
  const result = await runMime(['replay', dir, '--mode', mode, '--param', 'song_name=Faint', '--json'], {
    env: { ...desktop.env, ...env },
  });
  const summary = result.stdout.trim() ? JSON.parse(result.stdout) : undefined;
  return { result, summary, dir };
}

const executions = (summary: { subtasks: Array<{ steps: Array<{ executed_by: string }> }> }) =>
  summary.subtasks.flatMap((s) => s.steps.map((step) => step.executed_by));

describe.skipIf(skip !== null)('replay on headless sway (wlroots)', () => {
  let desktop: SwayHarness | undefined;
  beforeAll(async () => {
    desktop = await startSwayHarness();
  }, 60_000);
  afterAll(async () => {
    await desktop?.stop();
  });
  const sway = () => {
    if (!desktop) throw new Error('sway is not started');
    return desktop;
  };

  it('trace replays the X11 recording with a new param and no model', { timeout: 90_000 }, async () => {
    await sway().resetApp();
    // Chromium is a native Wayland client here, not an X11 one on XWayland.
    expect((await sway().findWindow(/^chromium$/i))?.shell).toBe('xdg_shell');
    const { result, summary } = await replay(sway(), 'trace');
    expect(result.exitCode, result.stderr).toBe(0);
    expect((await sway().readAppState()).playing).toBe('Faint');
    expect(summary).toMatchObject({
      mode: 'trace',
      outcome: 'success',
      usage: { calls: 0 },
      extracts: { song_now_playing: 'Faint' },
    });
    expect(executions(summary)).toEqual(['trace', 'trace', 'trace', 'trace', 'trace']);
  });

  it('auto finds every target where it was and makes no model call', { timeout: 90_000 }, async () => {
    await sway().resetApp();
    expect((await sway().findWindow(/^chromium$/i))?.shell).toBe('xdg_shell');
    // The setup window is found through sway (open already: its command, which would fail, never runs).
    const { result, summary, dir } = await replay(sway(), 'auto', (schema) => {
      schema.setup = {
        command: 'false',
        window: { title: '^mime-demo ', class: '^chromium$' },
        timeout_ms: 5000,
      };
    });
    expect(result.exitCode, result.stderr).toBe(0);
    expect((await sway().readAppState()).playing).toBe('Faint');
    expect(summary).toMatchObject({ mode: 'auto', outcome: 'success', usage: { calls: 0 } });
    expect(executions(summary)).toEqual(['trace', 'trace', 'trace', 'trace', 'trace']);
    const events = await readEvents(join(dir, '.replay', summary.run_id));
    expect(events.find((e) => e.type === 'setup')?.data).toMatchObject({ launched: false, waited_ms: 0 });
  });

  it('refuses to record, saying what works, with a stable code and exit 2', async () => {
    const result = await runMime(['record', '--name', 'on wayland', '--launch', 'true'], { env: sway().env });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toMatch(
      /\[MIME_RECORD_UNSUPPORTED\] mime cannot record in a Wayland session \(sway, WAYLAND_DISPLAY=wayland-\d+\)/,
    );
    expect(result.stderr).toContain('record in an X11 session');
    expect(result.stderr).toContain('xvfb-run -a mime record');
  });

  it('doctor names the session, the compositor, the adapter and each capability', async () => {
    const result = await runMime(['doctor', '--offline', '--json'], { env: sway().env });
    const { checks }: { checks: Array<{ name: string; status: string; detail: string }> } = JSON.parse(
      result.stdout,
    );
    const byName = Object.fromEntries(checks.map((c) => [c.name, c]));
    expect(byName.display).toMatchObject({ status: 'ok' });
    expect(byName.display?.detail).toMatch(/^wayland session of sway at \S+wayland-\d+, adapter wlroots/);
    expect(byName.capture?.detail).toMatch(
      /^grim \(wlr-screencopy\): 1280x800 logical px, scale 1, [\d.]+ ms a frame$/,
    );
    for (const name of ['capture', 'pointer', 'keyboard', 'windows', 'hotkeys', 'accessibility']) {
      expect(byName[name]?.status, `${name}: ${byName[name]?.detail}`).toBe('ok');
    }
    expect(byName.windows?.detail).toContain('mime-demo');
    expect(byName['input hooks']).toMatchObject({ status: 'warn' });
    expect(byName['input hooks']?.detail).toContain('`mime record` is refused here');
  });
});

describe.skipIf(skip !== null)('a target gone in its recorded form, on sway', () => {
  let desktop: SwayHarness | undefined;
  beforeAll(async () => {
    desktop = await startSwayHarness({ query: 'play=Listen' });
  }, 60_000);
  afterAll(async () => {
    await desktop?.stop();
  });

  it('auto hands that subtask to the agent, which finishes it in the app', { timeout: 120_000 }, async () => {
    if (!desktop) throw new Error('sway is not started');
    await desktop.resetApp();
    const server = await startFakeModelServer();
    const model = createFakeVisionModel();
    server.setHandler(model.handler);
    try {
      const { result, summary } = await replay(desktop, 'auto', undefined, {
        MIME_BASE_URL: server.url,
        MIME_MODEL: 'fake-vision',
      });
      expect(result.exitCode, result.stderr).toBe(0);
      expect((await desktop.readAppState()).playing).toBe('Faint');
      expect(executions(summary)).toEqual(['trace', 'trace', 'trace', 'agent', 'agent']);
      expect(summary.usage.calls).toBeGreaterThan(0);
    } finally {
      await server.close();
      await model.close();
    }
  });
});
