/**
 * The recorded step loop (trace and auto) on the in-memory desktop: a workflow recorded on a fake
 * player (its frames drawn as the fake desktop draws them) replayed through `replay()`, with what
 * reached the desktop, the run's events and its summary checked.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CHECKS_CACHE_FOLDER } from '@mime-desktop/schema';
import { useTempDirs } from '@mime-desktop/test-support/e2e-rig';
import { type FakeModelServer, startFakeModelServer } from '@mime-desktop/test-support/fake-model-server';
import { OcrEngine } from '@mime-desktop/vision';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ReplayEvent } from '../src/kernel/events.ts';
import { prepareRecordedChecks } from '../src/recorded/prepare-checks.ts';
import { type ReplayOptions, replay } from '../src/run/replay.ts';
import { at, NOTES, PLAY, playerDesktop, recordPlayer, SEARCH, SEARCH_FIELD } from './fake-player.ts';
import { act, tool } from './fake-replies.ts';

let server: FakeModelServer;
let workflowDir: string;
const ocr = new OcrEngine();
const tempDirs = useTempDirs();

beforeAll(async () => {
  server = await startFakeModelServer();
  workflowDir = await tempDirs('mime-recorded-loop-');
  await recordPlayer(workflowDir);
}, 30_000);
afterAll(async () => {
  await server.close();
  await ocr.close();
});
beforeEach(() => {
  server.reset();
});

function run(mode: 'trace' | 'auto', desktop = playerDesktop(), options: ReplayOptions = {}) {
  const events: ReplayEvent[] = [];
  const result = replay(workflowDir, {
    mode,
    pauseHotkey: null,
    params: { song_name: 'Hysteria' },
    desktop,
    modelConfig: { env: { MIME_BASE_URL: server.url, MIME_MODEL: 'fake', MIME_MODEL_MAX_RETRIES: '0' } },
    settle: { initialDelayMs: 0, intervalMs: 2, stableMs: 4, timeoutMs: 50 },
    stepTimeoutMs: 300,
    ocr,
    onEvent: (event) => events.push(event),
    ...options,
  });
  return { events, result, desktop };
}

/** The inputs that act on the app (not the pointer's moves onto a target before a click). */
const actions = (inputs: readonly string[]) => inputs.filter((input) => !input.startsWith('move '));
const executions = (summary: { subtasks: Array<{ steps: Array<{ i: number; executed_by: string }> }> }) =>
  summary.subtasks.flatMap((s) => s.steps.map((step) => [step.i, step.executed_by]));

describe('trace on the fake desktop', () => {
  it('replays the recording with a new param value, each click where recorded, and no model', async () => {
    const { result, desktop } = run('trace');
    const { summary } = await result;
    expect(summary.reason, String(summary.reason)).toBeNull();
    expect(summary).toMatchObject({ mode: 'trace', outcome: 'success', code: null });
    expect(actions(desktop.inputs)).toEqual([
      `click left ${at(SEARCH).x},${at(SEARCH).y} x1`,
      'type Hysteria',
      'key enter',
      `click left ${at(PLAY).x},${at(PLAY).y} x1`,
      `click left ${at(NOTES).x},${at(NOTES).y} x1`,
      'type The Killers',
    ]);
    expect(executions(summary)).toEqual([0, 1, 2, 3, 4, 5, 6].map((i) => [i, 'trace']));
    expect(summary.usage.calls).toBe(0);
    expect(server.requests).toHaveLength(0);
  });
});

/** The player's Play button ignores its first click: the screen does not change as recorded. */
const deafPlayer = () => playerDesktop({ ignoredPlays: 1 });
const RECORDED_START = [
  `click left ${at(SEARCH).x},${at(SEARCH).y} x1`,
  'type Hysteria',
  'key enter',
  `click left ${at(PLAY).x},${at(PLAY).y} x1`,
];

describe('a screen that does not react as recorded', () => {
  it('stops trace at the step whose screen diverged, and runs nothing after it', async () => {
    const { result, desktop, events } = run('trace', deafPlayer());
    const { summary } = await result;
    expect(summary).toMatchObject({ outcome: 'failed', code: 'MIME_REPLAY_DIVERGENCE' });
    expect(summary.reason).toMatch(
      /^step 5 \(extract artist\): before step 5 \(extract the artist\), the screen does not show the change/,
    );
    const divergences = events.filter((e) => e.type === 'divergence');
    expect(divergences.map((e) => [e.subtask_i, e.step_i, e.check])).toEqual([[1, 4, 'before_step']]);
    expect(actions(desktop.inputs)).toEqual(RECORDED_START);
    expect(summary.extracts).toEqual({});
    expect(summary.usage.calls).toBe(0);
  });

  it('hands the subtask to the model in auto, which finishes it; the next subtask replays as recorded', async () => {
    server.enqueue(
      act({
        action: 'left_click',
        coordinate: [Math.round((at(PLAY).x / 320) * 1000), (at(PLAY).y / 200) * 1000],
      }),
      tool('extract', { variable_name: 'artist', query: 'the artist', value: 'The Killers' }),
      tool('done'),
    );
    const { result, desktop, events } = run('auto', deafPlayer());
    const { summary } = await result;
    expect(summary.reason, String(summary.reason)).toBeNull();
    expect(summary).toMatchObject({ mode: 'auto', outcome: 'success', extracts: { artist: 'The Killers' } });
    const handovers = events.filter((e) => e.type === 'handover');
    expect(handovers.map((e) => [e.subtask_i, e.completed_steps])).toEqual([[1, [3]]]);
    expect(handovers[0]?.reason).toMatch(
      /^before step 5 \(extract the artist\), the screen does not show the change/,
    );
    expect(actions(desktop.inputs)).toEqual([
      ...RECORDED_START,
      `click left ${at(PLAY).x},${at(PLAY).y} x1`,
      `click left ${at(NOTES).x},${at(NOTES).y} x1`,
      'type The Killers',
    ]);
    expect(summary.usage.calls).toBe(3);
    // The model's word is checked where the recording shows the value and the outcome.
    expect(events.flatMap((e) => (e.type === 'claim' ? [[e.claim, e.verdict]] : []))).toEqual([
      ['extract', 'verified'],
      ['done', 'verified'],
    ]);
    expect(executions(summary)).toEqual([
      [0, 'trace'],
      [1, 'trace'],
      [2, 'trace'],
      [3, 'trace'],
      [4, 'agent'],
      [5, 'trace'],
      [6, 'trace'],
    ]);
  });

  it('stops auto without model calls at the divergence, named first', async () => {
    const { result, desktop } = run('auto', deafPlayer(), { budgets: { modelCalls: 0 } });
    const { summary } = await result;
    expect(summary).toMatchObject({ outcome: 'failed', code: 'MIME_REPLAY_DIVERGENCE' });
    expect(summary.reason).toMatch(
      /^step 5 \(extract artist\): before step 5 .*Auto mode stops here: this run may not call a model/s,
    );
    expect(actions(desktop.inputs)).toEqual(RECORDED_START);
    expect(server.requests).toHaveLength(0);
  });
});

describe('auto on a moved window', () => {
  it('re-finds each target by its recorded pixels nearby and clicks where it is now', async () => {
    const offset = { dx: 30, dy: 20 };
    const { result, desktop, events } = run('auto', playerDesktop({ offset }));
    const { summary } = await result;
    expect(summary.reason, String(summary.reason)).toBeNull();
    expect(summary).toMatchObject({ outcome: 'success', extracts: { artist: 'The Killers' } });
    const moved = (k: number) => `click left ${at(k).x + offset.dx},${at(k).y + offset.dy} x1`;
    expect(actions(desktop.inputs)).toEqual([
      moved(SEARCH),
      'type Hysteria',
      'key enter',
      moved(PLAY),
      moved(NOTES),
      'type The Killers',
    ]);
    const clicks = events.filter((e) => e.type === 'step' && e.action?.action === 'left_click');
    expect(
      clicks.map((e) => [
        e.type === 'step' && e.step_i,
        e.type === 'step' && e.executed_by,
        e.type === 'step' && e.rung,
      ]),
    ).toEqual([
      [0, 'regrounded', 'template-near'],
      // A subtask's first target is searched for anywhere when it is not near its recorded place.
      [3, 'regrounded', 'template-anywhere'],
      [5, 'regrounded', 'template-anywhere'],
    ]);
    expect(summary.usage.calls).toBe(0);
  });
});

describe('the element of a target re-found by its pixels', () => {
  it('is the one the tree names at its point once it names no container; else none (no element beats a wrong one)', async () => {
    const landmark = {
      ...SEARCH_FIELD,
      role: 'landmark',
      name: '',
      path: [{ role: 'landmark', name: '', index: 0 }],
    };
    // The first step's first ask names the page's landmark (a browser still building its tree), the
    // second the field; every later ask a landmark.
    const elementAt = (asked: number) => (asked === 1 ? SEARCH_FIELD : landmark);
    const { result, events } = run(
      'auto',
      playerDesktop({ offset: { dx: 30, dy: 20 }, accessible: true, elementAt }),
    );
    expect((await result).summary.outcome).toBe('success');
    const clicks = events.flatMap((e) => (e.type === 'step' && e.action?.action === 'left_click' ? [e] : []));
    expect(clicks.map((e) => [e.step_i, e.executed_by, e.element?.role ?? null])).toEqual([
      [0, 'regrounded', 'entry'],
      [3, 'regrounded', null],
      [5, 'regrounded', null],
    ]);
  });
});

describe('an extract step', () => {
  it("reads the value after its recorded label and types it where a later step's value names it", async () => {
    const artists = { Hysteria: 'The Strokes' };
    const { result, desktop, events } = run('trace', playerDesktop({ artists }));
    const { summary, dir } = await result;
    expect(summary.reason, String(summary.reason)).toBeNull();
    expect(summary.extracts).toEqual({ artist: 'The Strokes' });
    expect(JSON.parse(await readFile(join(dir, 'extracts.json'), 'utf8'))).toEqual({ artist: 'The Strokes' });
    const extract = events.find((e) => e.type === 'step' && e.step_i === 4);
    expect(extract).toMatchObject({
      executed_by: 'trace',
      reason: 'read by OCR after the label the recorded example value stood by',
    });
    expect(actions(desktop.inputs).at(-1)).toBe('type The Strokes');
  });
});

describe("an extract's value typed later", () => {
  const outcomes = (events: readonly ReplayEvent[]) =>
    events.flatMap((e) =>
      (e.type === 'verify' || e.type === 'divergence') && e.check === 'subtask_outcome' && e.subtask_i === 2
        ? [[e.type, e.read ?? null]]
        : [],
    );

  it('is checked by content where the recording shows its example, whatever its length', async () => {
    // "Muse" is typed where the recording typed "Linkin Park": by layout, a change a third as wide.
    const { result, events } = run('trace', playerDesktop({ artists: { Hysteria: 'Muse' } }));
    const { summary } = await result;
    expect(summary.reason, String(summary.reason)).toBeNull();
    expect(summary).toMatchObject({ outcome: 'success', extracts: { artist: 'Muse' } });
    expect(outcomes(events)).toEqual([['verify', 'ocr']]);
  });

  it('is a divergence naming the value where the app shows another', async () => {
    const reversed = (typed: string) => [...typed].reverse().join('');
    const { result, events } = run(
      'trace',
      playerDesktop({ artists: { Hysteria: 'Muse' }, alterNotes: reversed }),
    );
    const { summary } = await result;
    expect(summary).toMatchObject({ outcome: 'failed', code: 'MIME_REPLAY_DIVERGENCE' });
    expect(summary.reason).toContain(
      'the app does not show artist = "Muse" where the recording shows "Linkin Park"',
    );
    expect(outcomes(events)).toEqual([['divergence', 'ocr']]);
  });
});

describe('the recorded frames read once a workflow', () => {
  const cacheOf = (dir: string) =>
    readdir(join(dir, CHECKS_CACHE_FOLDER, 'ocr')).then((names) => names.sort());

  it('a later run, or a first one after reflect prepared them, reads only the live screen', async () => {
    const shared = workflowDir;
    const reads = vi.spyOn(ocr, 'readWords');
    try {
      workflowDir = await tempDirs('mime-recorded-loop-cache-');
      await recordPlayer(workflowDir);
      const first = await run('trace').result;
      expect(first.summary.outcome).toBe('success');
      const firstReads = reads.mock.calls.length;
      const cached = await cacheOf(workflowDir);
      // The crops of the recorded frames (the outcome's examples, the extract's) were read once and
      // kept; the second run read the same live crops (a check that passes reads once), none recorded.
      expect(cached.length).toBeGreaterThan(0);
      reads.mockClear();
      const second = await run('trace').result;
      expect(second.summary.outcome).toBe('success');
      expect(reads.mock.calls.length).toBe(firstReads - cached.length);
      expect(await cacheOf(workflowDir)).toEqual(cached);

      // The same recording, its checks prepared as `mime reflect` does: the same crops, and a first
      // run that reads none of them.
      workflowDir = await tempDirs('mime-recorded-loop-cache-');
      await recordPlayer(workflowDir);
      expect((await prepareRecordedChecks(workflowDir, ocr)).prepared).toBeGreaterThan(0);
      expect(await cacheOf(workflowDir)).toEqual(cached);
      reads.mockClear();
      const prepared = await run('trace').result;
      expect(prepared.summary.outcome).toBe('success');
      expect(reads.mock.calls.length).toBe(firstReads - cached.length);
    } finally {
      reads.mockRestore();
      workflowDir = shared;
    }
  });
});
