/**
 * The recorded step loop's checks of a typed field by its content, on the in-memory desktop: the fake
 * player's accessibility tree says which field has the focus and what it holds. A field that holds
 * text where the recording's was empty stops trace and is cleared by auto; a field that does not
 * hold what was typed stops the run, read from the app.
 */
import { useTempDirs } from '@mime-desktop/test-support/e2e-rig';
import { OcrEngine } from '@mime-desktop/vision';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReplayEvent } from '../src/kernel/events.ts';
import { replay } from '../src/run/replay.ts';
import { at, type PlayerOptions, playerDesktop, recordPlayer, SEARCH } from './fake-player.ts';

let workflowDir: string;
const ocr = new OcrEngine();
const tempDirs = useTempDirs();

beforeAll(async () => {
  workflowDir = await tempDirs('mime-recorded-fields-');
  await recordPlayer(workflowDir);
}, 30_000);
afterAll(async () => {
  await ocr.close();
});

/** Replays the player's workflow without a model (none may be called). */
function run(mode: 'trace' | 'auto', options: PlayerOptions) {
  const desktop = playerDesktop({ accessible: true, ...options });
  const events: ReplayEvent[] = [];
  const result = replay(workflowDir, {
    mode,
    pauseHotkey: null,
    params: { song_name: 'Hysteria' },
    desktop,
    budgets: { modelCalls: 0 },
    settle: { initialDelayMs: 0, intervalMs: 2, stableMs: 4, timeoutMs: 50 },
    stepTimeoutMs: 300,
    ocr,
    onEvent: (event) => events.push(event),
  });
  return { events, result, desktop };
}

const actions = (inputs: readonly string[]) => inputs.filter((input) => !input.startsWith('move '));
const CLICK_SEARCH = `click left ${at(SEARCH).x},${at(SEARCH).y} x1`;

describe('a field that holds text where the recording typed into an empty one', () => {
  it('stops trace before the typing, as the app says it', async () => {
    const { result, desktop, events } = run('trace', { search: 'Numb' });
    const { summary } = await result;
    expect(summary).toMatchObject({ outcome: 'failed', code: 'MIME_REPLAY_DIVERGENCE' });
    expect(summary.reason).toContain(
      `before step 2 (type Hysteria), the focused entry "Search" holds "Numb" where the recording's field was empty`,
    );
    const divergences = events.filter((e) => e.type === 'divergence');
    expect(divergences.map((e) => [e.step_i, e.check, e.read])).toEqual([[1, 'before_step', 'app']]);
    expect(actions(desktop.inputs)).toEqual([CLICK_SEARCH]);
  });

  it('clears it in auto, then types, and checks the field holds the typed text', async () => {
    const { result, desktop, events } = run('auto', { search: 'Numb' });
    const { summary } = await result;
    expect(summary.reason, String(summary.reason)).toBeNull();
    expect(actions(desktop.inputs).slice(0, 5)).toEqual([
      CLICK_SEARCH,
      'key ctrl+a',
      'key BackSpace',
      'type Hysteria',
      'key enter',
    ]);
    const typing = events.find((e) => e.type === 'step' && e.step_i === 1);
    expect(typing).toMatchObject({ reason: expect.stringContaining(`cleared "Numb" from the field first`) });
    const checked = events.flatMap((e) => (e.type === 'verify' && e.step_i === 1 ? [[e.check, e.read]] : []));
    expect(checked).toEqual([['after_step', 'app']]);
  });
});

describe('a field that does not take all that was typed', () => {
  it('stops the run after the typing, naming what the field holds', async () => {
    const { result, desktop, events } = run('auto', { maxLength: 4 });
    const { summary } = await result;
    expect(summary).toMatchObject({ outcome: 'failed', code: 'MIME_REPLAY_DIVERGENCE' });
    expect(summary.reason).toContain(
      'after step 2 (type Hysteria), the focused entry "Search" holds "Hyst", not "Hysteria"',
    );
    const divergences = events.filter((e) => e.type === 'divergence');
    expect(divergences.map((e) => [e.step_i, e.check, e.read])).toEqual([[1, 'after_step', 'app']]);
    expect(actions(desktop.inputs)).toEqual([CLICK_SEARCH, 'type Hysteria']);
  });
});
