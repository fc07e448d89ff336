/**
 * The recorded step loop (trace and auto) on the in-memory desktop: a workflow recorded on a fake
 * player (its frames drawn as the fake desktop draws them) replayed through `replay()`, with what
 * reached the desktop, the run's events and its summary checked.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { useTempDirs } from '@mime-desktop/test-support/e2e-rig';
import { type FakeModelServer, startFakeModelServer } from '@mime-desktop/test-support/fake-model-server';
import { OcrEngine } from '@mime-desktop/vision';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ReplayEvent } from '../src/kernel/events.ts';
import { type ReplayOptions, replay } from '../src/run/replay.ts';
import { createFakeDesktop, textLine } from './fake-desktop.ts';
import { act, tool } from './fake-replies.ts';
import { recordWorkflow } from './recorded-workflow.ts';

/** The artist the fake player shows for each song. */
const ARTISTS: Record<string, string> = { Numb: 'Linkin Park', Hysteria: 'The Killers' };

interface PlayerOptions {
  /** Where the player's window stands, moved from where it was recorded. */
  offset?: { dx: number; dy: number };
  /** Clicks on Play the player ignores (it is not ready yet). Default 0. */
  ignoredPlays?: number;
  /** The artist it shows for each song. Default ARTISTS. */
  artists?: Record<string, string>;
}

/** Lines of the fake player: 0 the search field, 2 the Play button, 5 the notes field. */
const SEARCH = 0;
const PLAY = 2;
const NOTES = 5;

/** The line of the player under a point (lines are about 22 px apart, their text 9 px a character wide). */
function lineAt(x: number, y: number, offset: { dx: number; dy: number }): number | null {
  for (const k of [SEARCH, PLAY, NOTES]) {
    const { x: left, baseline } = textLine(k);
    const top = baseline + offset.dy - 17;
    if (y >= top && y < top + 22 && x >= left + offset.dx && x < left + offset.dx + 60) return k;
  }
  return null;
}

/** What the fake player holds: the field with the focus, the fields' text, the song found and the one playing. */
interface PlayerState {
  focus: number | null;
  search: string;
  notes: string;
  found: string | null;
  playing: string | null;
  ignored: number;
}

/** The player after one input: typing goes to the field clicked last, enter searches, Play plays. */
function apply(
  state: PlayerState,
  input: string,
  { offset = { dx: 0, dy: 0 }, ignoredPlays = 0 }: PlayerOptions,
) {
  const click = /^click left (\d+),(\d+)/.exec(input);
  const typed = input.startsWith('type ') ? input.slice('type '.length) : null;
  if (click) {
    const line = lineAt(Number(click[1]), Number(click[2]), offset);
    if (line !== PLAY) state.focus = line;
    else if (state.found !== null && state.ignored < ignoredPlays) state.ignored += 1;
    else if (state.found !== null) state.playing = state.found;
  } else if (typed !== null && state.focus === SEARCH) state.search += typed;
  else if (typed !== null && state.focus === NOTES) state.notes += typed;
  else if (input === 'key enter' && state.focus === SEARCH) state.found = state.search;
}

/** What the fake player shows after the inputs. */
function player(options: PlayerOptions = {}) {
  const artists = options.artists ?? ARTISTS;
  return (inputs: readonly string[]): string[] => {
    const state: PlayerState = { focus: null, search: '', notes: '', found: null, playing: null, ignored: 0 };
    for (const input of inputs) apply(state, input, options);
    const { search, found, playing, notes } = state;
    return [
      `Search: ${search}`,
      found === null ? 'No results' : `Result: ${found}`,
      found === null ? '' : '[Play]',
      `Now playing: ${playing ?? 'nothing'}`,
      playing === null ? '' : `Artist: ${artists[playing] ?? 'unknown'}`,
      `Notes: ${notes}`,
    ];
  };
}

/** A fake desktop showing the player; its screen changes only by what the player shows. */
const playerDesktop = (options: PlayerOptions = {}) =>
  createFakeDesktop({
    react: () => false,
    shows: player(options),
    ...(options.offset && { offset: options.offset }),
  });

/** Recorded points and target boxes of the player's controls, as recorded (no offset). */
const at = (k: number) => ({ x: 36, y: textLine(k).baseline - 6 });
const boxAt = (k: number) => ({ x: 6, y: textLine(k).baseline - 14, width: 50, height: 16 });

let server: FakeModelServer;
let workflowDir: string;
const ocr = new OcrEngine();
const tempDirs = useTempDirs();

beforeAll(async () => {
  server = await startFakeModelServer();
  workflowDir = await tempDirs('mime-recorded-loop-');
  await recordWorkflow(workflowDir, playerDesktop(), {
    params: [
      {
        name: 'song_name',
        type: 'string',
        description: 'The song to search for.',
        example: 'Numb',
        sensitive: false,
        optional: false,
      },
    ],
    subtasks: [
      {
        text: 'Search for {song_name}. Expected outcome: the results show {song_name}.',
        acts: [
          { intent: 'Click the search field.', click: at(SEARCH), box: boxAt(SEARCH) },
          { intent: 'Type the song.', type: 'Numb', value: '{song_name}' },
          { intent: 'Press enter to search.', key: 'enter' },
        ],
      },
      {
        text: 'Play {song_name} and read its artist. Expected outcome: {song_name} is playing.',
        acts: [
          { intent: 'Click Play.', click: at(PLAY), box: boxAt(PLAY) },
          { intent: 'Read the artist.', extract: 'the artist', variable: 'artist', values: ['Linkin Park'] },
        ],
      },
      {
        text: 'Note the artist. Expected outcome: the notes hold the artist.',
        dependencies: ['artist'],
        acts: [
          { intent: 'Click the notes field.', click: at(NOTES), box: boxAt(NOTES) },
          { intent: 'Type the artist.', type: 'Linkin Park', value: '{artist}' },
        ],
      },
    ],
  });
}, 30_000);
afterAll(async () => {
  await server.close();
  await ocr.close();
});
beforeEach(() => {
  server.setHandler(undefined);
  server.requests.length = 0;
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
