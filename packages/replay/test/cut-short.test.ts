import type { TypedRunEvent } from '@mime-desktop/schema';
import { describe, expect, it } from 'vitest';
import { BudgetExhaustedError } from '../src/errors.ts';
import { cutShortReason } from '../src/run/cut-short.ts';

const TIME = '2026-11-26T09:00:00.000Z';
const at = (subtask_i: number) => ({ time: TIME, subtask_i, iteration: 0 });
const divergence = (subtask_i: number, step_i: number | null): TypedRunEvent => ({
  ...at(subtask_i),
  type: 'divergence',
  data: {
    step_i,
    check: 'before_step',
    expected: 'e.png',
    observed: 'o.png',
    similarity: 0.4,
    threshold: 0.8,
    region: null,
  },
});
const handover = (subtask_i: number, reason: string): TypedRunEvent => ({
  ...at(subtask_i),
  type: 'handover',
  data: { reason, completed_steps: [] },
});
const ended = (subtask_i: number): TypedRunEvent => ({
  ...at(subtask_i),
  type: 'subtask_end',
  data: { outcome: 'success', iterations: 2, duration_ms: 10 },
});
const budget = new BudgetExhaustedError('model_calls', 1, 1, 'the run used all its model requests');

describe('the reason of a run a budget ended', () => {
  it('names the divergence that handed the open subtask over first, then the budget', () => {
    const events = [ended(0), divergence(1, 3), handover(1, 'the recorded target was not found')];
    expect(cutShortReason(events, budget)).toBe(
      'step 4 of subtask 2 diverged: the recorded target was not found; the model took over, then the run used all its model requests (1 of 1); raise the model calls budget.',
    );
    expect(cutShortReason([divergence(0, null), handover(0, 'not shown')], budget)).toMatch(
      /^the end of subtask 1 diverged: not shown; the model took over, then/,
    );
  });

  it('is the budget alone when no hand-over is open', () => {
    expect(cutShortReason([], budget)).toBe(budget.message);
    const closed = [divergence(0, 1), handover(0, 'gone'), ended(0)];
    expect(cutShortReason(closed, budget)).toBe(budget.message);
  });
});
