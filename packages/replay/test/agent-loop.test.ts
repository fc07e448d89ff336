import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { RunSummary } from '@mime-desktop/schema';
import { copyWorkflow } from '@mime-desktop/test-support/e2e-rig';
import {
  type FakeModelServer,
  type FakeReply,
  startFakeModelServer,
} from '@mime-desktop/test-support/fake-model-server';
import { OcrEngine } from '@mime-desktop/vision';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ReplayEvent } from '../src/kernel/events.ts';
import { type ReplayOptions, replay } from '../src/run/replay.ts';
import { createFakeDesktop } from './fake-desktop.ts';
import { act, tool } from './fake-replies.ts';

let server: FakeModelServer;
let workflowDir: string;
/** One OCR worker for every run of the file (the claims of the model are read by it). */
const ocr = new OcrEngine();

beforeAll(async () => {
  server = await startFakeModelServer();
});
afterAll(async () => {
  await server.close();
  await ocr.close();
});
beforeEach(async () => {
  workflowDir = await copyWorkflow('play-song');
  server.reset();
});

const HAPPY: FakeReply[] = [
  act({ action: 'left_click', coordinate: [150, 150] }),
  act({ action: 'type', text: 'Faint' }),
  act({ action: 'key', keys: 'enter' }),
  tool('done'),
  act({ action: 'left_click', coordinate: [440, 243] }),
  tool('extract', { variable_name: 'now_playing', query: 'the song', value: 'Faint' }),
  tool('done'),
];

/**
 * What the fake demo app shows after the inputs: the typed song in the search field and as a
 * result; a click after the typing plays it.
 */
function demoScreen(inputs: readonly string[]): string[] {
  const at = inputs.findLastIndex((input) => input.startsWith('type '));
  const typed = inputs[at]?.slice('type '.length);
  if (!typed) return ['Now playing: nothing'];
  const played = inputs.slice(at + 1).some((input) => input.startsWith('click'));
  return [`Search: ${typed}`, `Result: ${typed}`, `Now playing: ${played ? typed : 'nothing'}`];
}

function run(desktop = createFakeDesktop({ shows: demoScreen }), options: ReplayOptions = {}) {
  const events: ReplayEvent[] = [];
  const result = replay(workflowDir, {
    mode: 'agent',
    // The in-memory desktop has no global hooks to listen for the pause hotkey on.
    pauseHotkey: null,
    params: { song_name: 'Faint' },
    desktop,
    modelConfig: { env: { MIME_BASE_URL: server.url, MIME_MODEL: 'fake', MIME_MODEL_MAX_RETRIES: '0' } },
    settle: { initialDelayMs: 0, intervalMs: 2, timeoutMs: 20 },
    ocr,
    onEvent: (event) => events.push(event),
    ...options,
  });
  return { events, result, desktop };
}

describe('replay (agent mode, fake desktop)', () => {
  it('runs every subtask to done and writes the run folder', async () => {
    server.enqueue(...HAPPY);
    const { result, desktop, events } = run();
    const { summary, dir, runId } = await result;
    expect(summary.outcome).toBe('success');
    expect(summary.code).toBeNull();
    expect(RunSummary.parse(JSON.parse(await readFile(join(dir, 'summary.json'), 'utf8')))).toEqual(summary);
    expect(runId).toMatch(/^\d{8}T\d{6}Z-[0-9a-f]{4}$/);
    expect(desktop.inputs).toEqual([
      'click left 48,30 x1',
      'type Faint',
      'key enter',
      'click left 140,48 x1',
    ]);
    expect(summary.subtasks.map((s) => [s.subtask_i, s.outcome, s.iterations])).toEqual([
      [0, 'success', 4],
      [1, 'success', 3],
    ]);
    expect(summary.extracts).toEqual({ now_playing: 'Faint' });
    expect(summary.params).toEqual({ song_name: 'Faint' });
    expect(summary.usage.calls).toBe(7);
    expect(summary.budgets.model_calls).toEqual({ used: 7, limit: 60 });
    // The model's word was checked on the screen: the searched song shown, then playing and read.
    expect(events.flatMap((e) => (e.type === 'claim' ? [[e.claim, e.verdict, e.read]] : []))).toEqual([
      ['done', 'verified', 'ocr'],
      ['extract', 'verified', 'ocr'],
      ['done', 'verified', 'ocr'],
    ]);
    const files = (await readdir(dir)).sort();
    expect(files).toEqual(
      [
        'events.jsonl',
        'extracts.json',
        'final.png',
        // The workflow has no recording: the run's actions are a heal (#36).
        'heal.json',
        'replay_summary.txt',
        'report.html',
        'schema.rendered.json',
        'summary.json',
        'task_memory.json',
        ...[0, 1, 2, 3].map((n) => `subtask_0_iter_${n}.png`),
        ...[0, 1, 2].map((n) => `subtask_1_iter_${n}.png`),
      ].sort(),
    );
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
    for (const file of files) expect((await stat(join(dir, file))).mode & 0o777).toBe(0o600);
    expect(JSON.parse(await readFile(join(dir, 'extracts.json'), 'utf8'))).toEqual({ now_playing: 'Faint' });
    expect(JSON.parse(await readFile(join(dir, 'task_memory.json'), 'utf8')).task_memory).toBe('mem');
    const rendered = JSON.parse(await readFile(join(dir, 'schema.rendered.json'), 'utf8'));
    expect(rendered.plan.subtasks[0].text).toContain('Search for Faint');
    const lines = (await readFile(join(dir, 'events.jsonl'), 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.type)).toEqual(events.map((e) => e.type));
    expect(lines[0]).toMatchObject({
      type: 'run_start',
      subtask_i: null,
      data: { params: { song_name: 'Faint' } },
    });
    expect(lines.at(-1)).toMatchObject({ type: 'run_end', data: { outcome: 'success' } });
    const text = await readFile(join(dir, 'replay_summary.txt'), 'utf8');
    expect(text).toContain('SUCCESS');
    expect(text).toContain('now_playing = Faint');
    // Every request carries the screenshot and the tools; the prompt names the subtask.
    const first = server.chatRequests()[0]?.body;
    expect(first?.tool_choice).toBe('required');
    expect(first?.tools?.map((t) => t.function.name)).toEqual(['computer_use', 'extract', 'done', 'replan']);
    const parts = first?.messages?.[1]?.content as Array<{ type: string; text?: string }>;
    expect(parts.map((p) => p.type)).toEqual(['text', 'image_url']);
    expect(parts[0]?.text).toContain(
      '## Current subtask (1 of 2)\n<data source="workflow">\nSearch for Faint in the demo app.',
    );
  });

  it('hands extracted values to the subtasks that depend on them', async () => {
    const { writeFile } = await import('node:fs/promises');
    const workflow = JSON.parse(await readFile(join(workflowDir, 'schema.json'), 'utf8'));
    const [search, play] = workflow.plan.subtasks;
    search.steps.push({ ...play.steps[1], i: 3, variable_name: 'artist', action_value: 'the artist' });
    play.steps = play.steps.map((step: { i: number }) => ({ ...step, i: step.i + 1 }));
    play.dependencies = ['artist'];
    await writeFile(join(workflowDir, 'schema.json'), JSON.stringify(workflow));
    server.enqueue(
      act({ action: 'type', text: 'Faint' }),
      tool('extract', { variable_name: 'artist', query: 'the artist', value: 'Linkin Park' }),
      tool('done'),
      act({ action: 'left_click', coordinate: [440, 243] }),
      tool('extract', { variable_name: 'now_playing', query: 'q', value: 'Faint' }),
      tool('done'),
    );
    const desktop = createFakeDesktop({ shows: (inputs) => [...demoScreen(inputs), 'Artist: Linkin Park'] });
    const { summary, dir } = await run(desktop).result;
    expect(summary.outcome).toBe('success');
    expect(summary.extracts).toEqual({ artist: 'Linkin Park', now_playing: 'Faint' });
    const prompts = server.chatRequests().map((r) => JSON.stringify(r.body?.messages));
    expect(prompts[2]).not.toContain('Values from earlier subtasks');
    expect(prompts[3]).toContain(
      '## Values from earlier subtasks\\n<data source=\\"screen\\">\\n- artist = \\"Linkin Park\\"',
    );
    expect(JSON.parse(await readFile(join(dir, 'extracts.json'), 'utf8'))).toEqual(summary.extracts);
  });

  it("refuses the model's word where the screen does not bear it out, tells it, and never succeeds", async () => {
    // Subtask 0 done for real; in subtask 1 the model plays nothing, reads a song the screen does
    // not show, then one it shows only in the search field, and says done again and again.
    server.enqueue(
      act({ action: 'type', text: 'Faint' }),
      act({ action: 'key', keys: 'enter' }),
      tool('done'),
      tool('extract', { variable_name: 'now_playing', query: 'the song playing', value: 'Numb' }),
      tool('extract', { variable_name: 'now_playing', query: 'the song playing', value: 'Faint' }),
    );
    server.setHandler(() => tool('done'));
    const { result, desktop, events } = run(undefined, { budgets: { iterations: 5, replans: 0 } });
    const { summary } = await result;
    expect(summary.outcome).toBe('failed');
    expect(summary.code).toBe('MIME_BUDGET_ITERATIONS');
    expect(summary.subtasks.map((s) => s.outcome)).toEqual(['success', 'failed']);
    expect(demoScreen(desktop.inputs)).toContain('Now playing: nothing');
    const claims = events.flatMap((e) => (e.type === 'claim' ? [[e.claim, e.verdict]] : []));
    expect(claims).toEqual([
      ['done', 'verified'],
      ['extract', 'refused'],
      ['extract', 'verified'],
      ['done', 'refused'],
      ['done', 'refused'],
      ['done', 'refused'],
    ]);
    expect(events.filter((e) => e.type === 'done')).toHaveLength(1);
    // Each refusal is told to the model, in the history of its next turn.
    const prompts = server.chatRequests().map((r) => JSON.stringify(r.body?.messages));
    expect(prompts[4]).toContain('refused, not stored: the screen does not show \\"Numb\\"');
    expect(prompts[6]).toContain(
      'refused, the subtask is not done: the expected outcome names song_name = \\"Faint\\", and the screen shows it nowhere it did not already show it when this subtask started',
    );
  });

  it('sends an invalid call back for repair and counts the extra call', async () => {
    server.enqueue(act({ action: 'left_click' }), ...HAPPY);
    const { result, events } = run();
    const { summary } = await result;
    expect(summary.outcome).toBe('success');
    expect(summary.usage.calls).toBe(8);
    const repair = events.find((e) => e.type === 'repair');
    expect(repair).toMatchObject({ problems: [{ path: 'coordinate' }] });
    const second = server.chatRequests()[1]?.body?.messages ?? [];
    expect(second.at(-1)).toMatchObject({ role: 'tool' });
    expect(String(second.at(-1)?.content)).toContain('left_click needs a coordinate');
  });

  it('speaks the <tool_call> text protocol, repairs included, for models without native tools', async () => {
    const text = (reply: FakeReply): FakeReply => {
      if (reply.type !== 'tool-calls') throw new Error('not a call');
      const [first] = reply.calls;
      return { type: 'text', content: `<tool_call>${JSON.stringify(first)}</tool_call>` };
    };
    server.enqueue(text(act({ action: 'key' })), ...HAPPY.map(text));
    const { result, desktop, events } = run(undefined, {
      modelConfig: { env: { MIME_BASE_URL: server.url, MIME_MODEL: 'fake', MIME_TOOL_MODE: 'text' } },
    });
    const { summary } = await result;
    expect(summary.outcome).toBe('success');
    expect(desktop.inputs).toHaveLength(4);
    expect(events.filter((e) => e.type === 'repair')).toHaveLength(1);
    const repaired = server.chatRequests()[1]?.body?.messages ?? [];
    expect(repaired.at(-1)).toMatchObject({ role: 'user' });
    expect(String(repaired.at(-1)?.content)).toContain('key needs keys');
  });

  it('stops at the iteration budget when no replan is left, naming the budget', async () => {
    server.setHandler(() => act({ action: 'wait', wait_seconds: 0 }));
    const { result } = run(undefined, { budgets: { iterations: 3, replans: 0 } });
    const { summary } = await result;
    expect(summary.outcome).toBe('failed');
    expect(summary.code).toBe('MIME_BUDGET_ITERATIONS');
    expect(summary.reason).toContain('subtask 1 used all its iterations');
    expect(summary.subtasks.map((s) => s.outcome)).toEqual(['failed', 'not_run']);
    expect(summary.budgets.iterations).toEqual({ used: 3, limit: 3 });
  });

  it('stops at the model-call budget', async () => {
    server.setHandler(() => act({ action: 'wait', wait_seconds: 0 }));
    const { result, events } = run(undefined, { budgets: { modelCalls: 2 } });
    const { summary } = await result;
    expect(summary.code).toBe('MIME_BUDGET_MODEL_CALLS');
    expect(events.find((e) => e.type === 'budget_exhausted')).toMatchObject({
      budget: 'model_calls',
      used: 2,
      limit: 2,
    });
  });

  it('replans when the same action leaves the screen unchanged, listing what was done', async () => {
    let replanned = false;
    server.setHandler((request) => {
      if (request.body?.response_format) {
        replanned = true;
        return {
          type: 'json',
          value: {
            observation: 'the app',
            subtasks: [
              { text: 'Play it. Expected outcome: playing.', reference_steps: [3, 4], extracts: [] },
            ],
          },
        };
      }
      const text = JSON.stringify(request.body?.messages);
      if (!replanned && text.includes('Search for Faint'))
        return act({ action: 'left_click', coordinate: [500, 20] });
      if (text.includes('not extracted yet')) {
        return tool('extract', { variable_name: 'now_playing', query: 'q', value: 'Faint' });
      }
      return tool('done');
    });
    const desktop = createFakeDesktop({
      react: (input) => !input.startsWith('click'),
      shows: () => ['Now playing: Faint'],
    });
    const { result, events } = run(desktop);
    const { summary } = await result;
    expect(summary.outcome).toBe('success');
    expect(summary.subtasks.map((s) => [s.subtask_i, s.outcome, s.origin])).toEqual([
      [0, 'replanned', 'workflow'],
      [2, 'success', 'replan'],
    ]);
    expect(desktop.inputs).toEqual(['click left 160,4 x1', 'click left 160,4 x1', 'click left 160,4 x1']);
    const replan = events.find((e) => e.type === 'replan');
    expect(replan).toMatchObject({
      trigger: 'no_progress',
      subtasks: ['Play it. Expected outcome: playing.'],
    });
    const planRequest = server.chatRequests().find((r) => r.body?.response_format);
    const prompt = JSON.stringify(planRequest?.body?.messages);
    expect(prompt).toContain('DONE 1. left_click [500, 20]');
    expect(prompt).toContain('- now_playing: the title of the song shown as now playing');
    expect(summary.extracts).toEqual({ now_playing: 'Faint' });
    expect(summary.budgets.replans).toEqual({ used: 1, limit: 2 });
    // The replanned subtask names no value the app should show: done on the model's word alone.
    expect(events.filter((e) => e.type === 'claim')).toEqual([
      expect.objectContaining({ claim: 'extract', verdict: 'verified', read: 'ocr' }),
      expect.objectContaining({ claim: 'done', verdict: 'unverified', read: null }),
    ]);
  });

  it('replans when the model asks, and fails with MIME_BUDGET_REPLANS when none is left', async () => {
    server.setHandler(() => tool('replan', { reason: 'no search field here' }));
    const { result } = run(undefined, { budgets: { replans: 0 } });
    const { summary } = await result;
    expect(summary.code).toBe('MIME_BUDGET_REPLANS');
  });

  it('types sensitive values but writes and reports only {name}', async () => {
    const workflow = JSON.parse(await readFile(join(workflowDir, 'schema.json'), 'utf8'));
    workflow.task_params[0].sensitive = true;
    workflow.task_params[0].example = null;
    const { writeFile } = await import('node:fs/promises');
    await writeFile(join(workflowDir, 'schema.json'), JSON.stringify(workflow));
    server.enqueue(
      act({ action: 'left_click', coordinate: [150, 150] }),
      act({ action: 'type', text: '{song_name}' }),
      tool('done', { task_memory: 'typed Secret-Song-42 in the box' }),
      tool('extract', { variable_name: 'now_playing', query: 'q', value: 'Secret-Song-42' }),
      tool('done'),
    );
    const { result, desktop, events } = run(undefined, {
      params: {},
      env: { MIME_PARAM_SONG_NAME: 'Secret-Song-42' },
    });
    const { summary, dir } = await result;
    expect(summary.outcome).toBe('success');
    expect(desktop.inputs).toContain('type Secret-Song-42');
    expect(summary.params).toEqual({ song_name: '{song_name}' });
    expect(summary.extracts).toEqual({ now_playing: '{song_name}' });
    expect(JSON.stringify(events)).not.toContain('Secret-Song-42');
    for (const file of await readdir(dir)) {
      expect((await readFile(join(dir, file))).includes('Secret-Song-42'), file).toBe(false);
    }
    // Replay never hands the value to the model (only what the model itself wrote comes back to it).
    const beforeTheModelWroteIt = server.chatRequests().slice(0, 3);
    expect(JSON.stringify(beforeTheModelWroteIt.map((r) => r.body)).includes('Secret-Song-42')).toBe(false);
  });

  it('ends aborted when the fail-safe fires during a model call', async () => {
    const desktop = createFakeDesktop();
    server.setHandler(() => {
      setTimeout(() => desktop.failSafe(), 20);
      return { ...act({ action: 'wait', wait_seconds: 0 }), delayMs: 20_000 };
    });
    const started = Date.now();
    const { result } = run(desktop);
    const { summary } = await result;
    expect(summary.outcome).toBe('aborted');
    expect(summary.code).toBe('MIME_ABORTED');
    // Inside the call: long before the model's 20 s answer (a margin for a busy machine).
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it("ends aborted when the caller's signal aborts", async () => {
    const controller = new AbortController();
    server.setHandler(() => {
      setTimeout(() => controller.abort('interrupted'), 20);
      return { ...act({ action: 'wait', wait_seconds: 0 }), delayMs: 2000 };
    });
    const { result } = run(undefined, { signal: controller.signal });
    const { summary } = await result;
    expect(summary).toMatchObject({ outcome: 'aborted', code: 'MIME_ABORTED' });
  });

  it('stops at the wall-time budget even inside a slow model call', async () => {
    server.setHandler(() => ({ ...act({ action: 'wait', wait_seconds: 0 }), delayMs: 20_000 }));
    const { result } = run(undefined, { budgets: { wallTimeMs: 300 } });
    const { summary } = await result;
    expect(summary.code).toBe('MIME_BUDGET_WALL_TIME');
    // Inside the call: long before the model's 20 s answer (a margin for a busy machine).
    expect(summary.duration_ms).toBeLessThan(10_000);
  });

  it('executes nothing in a dry run', async () => {
    server.enqueue(...HAPPY);
    const { result, desktop, events } = run(undefined, { dryRun: true });
    const { summary } = await result;
    expect(summary.outcome).toBe('success');
    expect(summary.dry_run).toBe(true);
    expect(desktop.inputs).toEqual([]);
    expect(
      events.filter((e) => e.type === 'action').map((e) => (e.type === 'action' ? e.status : '')),
    ).toEqual(['dry_run', 'dry_run', 'dry_run', 'dry_run']);
  });

  it('asks before each action and stops when told', async () => {
    server.enqueue(...HAPPY);
    const asked: string[] = [];
    const { result, desktop } = run(undefined, {
      confirmAction: async (request) => {
        asked.push(request.description);
        return asked.length === 1 ? 'skip' : asked.length === 2 ? 'run' : 'stop';
      },
    });
    const { summary } = await result;
    expect(asked).toEqual(['left_click at (48, 30)', 'type "Faint"', 'key enter']);
    expect(desktop.inputs).toEqual(['type Faint']);
    expect(summary.outcome).toBe('aborted');
  });
});
