import type { RunEvent } from '@mime-desktop/schema';
import { describe, expect, it } from 'vitest';
import { buildTimeline } from '../src/build-timeline.ts';
import { agentTurn, type EventSpec, summaryOf } from './run-folder.ts';

const START = Date.parse('2026-11-22T10:15:00.000Z');

function events(specs: EventSpec[]): RunEvent[] {
  return specs.map((e, n) => ({
    time: new Date(START + n * 100).toISOString(),
    type: e.type,
    subtask_i: e.subtask_i ?? null,
    iteration: e.iteration ?? null,
    data: e.data ?? {},
  }));
}

const runStart: EventSpec = {
  type: 'run_start',
  data: { run_id: 'r', mode: 'agent', task_name: 't', params: {}, budgets: {}, dry_run: false },
};
const click = (x: number, y: number) => ({ action: 'left_click', point: { x, y } });

describe('buildTimeline', () => {
  it('groups events into subtasks and turns, and puts a replan between them with what was done', () => {
    const blocks = buildTimeline(
      events([
        runStart,
        {
          type: 'subtask_start',
          subtask_i: 0,
          data: { text: 'Open the menu.', origin: 'workflow', position: 1, count: 1 },
        },
        ...agentTurn(0, 0, click(10, 20), 'A menu button.'),
        ...agentTurn(0, 1, click(10, 20), 'Still the menu button.'),
        {
          type: 'subtask_end',
          subtask_i: 0,
          data: { outcome: 'replanned', iterations: 2, duration_ms: 200 },
        },
        {
          type: 'model_call',
          subtask_i: 0,
          iteration: 2,
          data: {
            purpose: 'replan',
            usage: { requests: 1, inputTokens: 9, outputTokens: 3, durationMs: 5 },
            error_code: null,
          },
        },
        {
          type: 'replan',
          subtask_i: 0,
          iteration: 2,
          data: { trigger: 'no_progress', reason: 'stuck', subtasks: ['Open it.'] },
        },
        {
          type: 'subtask_start',
          subtask_i: 1,
          data: { text: 'Open it.', origin: 'replan', position: 1, count: 1 },
        },
        {
          type: 'capture',
          subtask_i: 1,
          iteration: 0,
          data: {
            screenshot: 'subtask_1_iter_0.png',
            settled: true,
            settle_ms: 100,
            screen_changed: null,
            image: { width: 1280, height: 800 },
            image_bytes: 1000,
          },
        },
        {
          type: 'tool_call',
          subtask_i: 1,
          iteration: 0,
          data: { name: 'done', args: { observation: 'Open.', task_memory: 'm' } },
        },
        { type: 'done', subtask_i: 1, iteration: 0, data: { observation: 'Open.' } },
        { type: 'subtask_end', subtask_i: 1, data: { outcome: 'success', iterations: 1, duration_ms: 100 } },
        { type: 'run_end', data: { outcome: 'success', code: null, reason: null, duration_ms: 1500 } },
      ]),
      null,
    );
    expect(blocks.map((b) => b.kind)).toEqual(['subtask', 'replan', 'subtask']);
    const [first, replan, second] = blocks;
    if (first?.kind !== 'subtask' || replan?.kind !== 'replan' || second?.kind !== 'subtask')
      throw new Error('kinds');
    expect(first.subtask.outcome).toBe('replanned');
    expect(
      first.subtask.turns.map((t) => [t.iteration, t.call?.args.observation, t.modelCalls.length]),
    ).toEqual([
      [0, 'A menu button.', 1],
      [1, 'Still the menu button.', 1],
    ]);
    expect(replan.replan).toMatchObject({
      number: 1,
      subtask_i: 0,
      completed: ['left_click', 'left_click'],
      data: { trigger: 'no_progress', subtasks: ['Open it.'] },
      modelCall: { purpose: 'replan' },
    });
    expect(second.subtask).toMatchObject({ origin: 'replan', outcome: 'success' });
    expect(second.subtask.turns[0]?.done?.observation).toBe('Open.');
  });

  it('puts what stopped the run after the subtask, adds subtasks that never ran, and keeps unknown data raw', () => {
    const blocks = buildTimeline(
      events([
        runStart,
        {
          type: 'subtask_start',
          subtask_i: 0,
          data: { text: 'Type.', origin: 'workflow', position: 1, count: 2 },
        },
        {
          type: 'capture',
          subtask_i: 0,
          iteration: 0,
          data: {
            screenshot: 'subtask_0_iter_0.png',
            settled: true,
            settle_ms: 100,
            screen_changed: null,
            image: { width: 1280, height: 800 },
            image_bytes: 1000,
          },
        },
        { type: 'action', subtask_i: 0, iteration: 0, data: { action: { action: 'teleport' } } },
        { type: 'error', subtask_i: 0, iteration: null, data: { code: 'MIME_X', message: 'while running' } },
        { type: 'subtask_end', subtask_i: 0, data: { outcome: 'failed', iterations: 1, duration_ms: 100 } },
        {
          type: 'budget_exhausted',
          subtask_i: 0,
          data: { budget: 'iterations', code: 'MIME_BUDGET_ITERATIONS', used: 1, limit: 1 },
        },
      ]),
      summaryOf({
        subtasks: [
          {
            subtask_i: 0,
            text: 'Type.',
            outcome: 'failed',
            origin: 'workflow',
            iterations: 1,
            duration_ms: 100,
            steps: [{ i: 0, executed_by: 'agent', reason: 'r' }],
          },
          {
            subtask_i: 1,
            text: 'Later.',
            outcome: 'not_run',
            origin: 'workflow',
            iterations: 0,
            duration_ms: 0,
            steps: [],
          },
        ],
      }),
    );
    expect(blocks.map((b) => (b.kind === 'notice' ? b.notice.kind : b.kind))).toEqual([
      'subtask',
      'budget',
      'subtask',
    ]);
    const [failed, , later] = blocks;
    if (failed?.kind !== 'subtask' || later?.kind !== 'subtask') throw new Error('kinds');
    expect(failed.subtask.notices.map((n) => n.kind)).toEqual(['error']);
    expect(failed.subtask.turns[0]?.unreadable.map((e) => e.type)).toEqual(['action']);
    expect(failed.subtask.steps.map((s) => s.executed_by)).toEqual(['agent']);
    expect(later.subtask).toMatchObject({ text: 'Later.', outcome: 'not_run', at: null });
  });
});
