import { describe, expect, it } from 'vitest';
import { detectNoProgress } from '../src/agent/no-progress.ts';
import { BudgetExhaustedError, ReplayOptionError } from '../src/errors.ts';
import { BudgetTracker } from '../src/kernel/budgets.ts';

function thrown(run: () => void): BudgetExhaustedError {
  try {
    run();
  } catch (error) {
    if (error instanceof BudgetExhaustedError) return error;
    throw error;
  }
  throw new Error('expected a BudgetExhaustedError');
}

describe('BudgetTracker', () => {
  it('counts iterations per subtask and reports the most any subtask took', () => {
    const budgets = new BudgetTracker({ iterations: 2 });
    budgets.startSubtask();
    budgets.chargeIteration('subtask 0');
    budgets.chargeIteration('subtask 0');
    expect(budgets.iterationsLeft).toBe(0);
    const error = thrown(() => budgets.chargeIteration('subtask 0'));
    expect(error.code).toBe('MIME_BUDGET_ITERATIONS');
    expect(error.message).toBe(
      'subtask 0 used all its iterations without finishing (2 of 2); raise the iterations budget, or make the subtask text and its expected outcome clearer.',
    );
    budgets.startSubtask();
    budgets.chargeIteration('subtask 1');
    expect(budgets.snapshot().iterations).toEqual({ used: 2, limit: 2 });
  });

  it('stops model calls and replans at their limits with stable codes', () => {
    const budgets = new BudgetTracker({ modelCalls: 1, replans: 0 });
    budgets.checkModelRequest();
    budgets.chargeModelRequests(1);
    expect(budgets.modelRequestsLeft).toBe(0);
    expect(thrown(() => budgets.checkModelRequest()).code).toBe('MIME_BUDGET_MODEL_CALLS');
    expect(thrown(() => budgets.chargeReplan()).code).toBe('MIME_BUDGET_REPLANS');
    expect(budgets.snapshot().model_calls).toEqual({ used: 1, limit: 1 });
  });

  it('measures wall time on its clock', () => {
    let now = 1000;
    const budgets = new BudgetTracker({ wallTimeMs: 500 }, () => now);
    budgets.checkWallTime();
    now = 1400;
    expect(budgets.remainingMs).toBe(100);
    now = 1500;
    const error = thrown(() => budgets.checkWallTime());
    expect(error.code).toBe('MIME_BUDGET_WALL_TIME');
    expect(budgets.snapshot().wall_time).toEqual({ used: 500, limit: 500 });
  });

  it('fills defaults and rejects limits out of range', () => {
    expect(new BudgetTracker().limits).toEqual({
      iterations: 15,
      modelCalls: 60,
      replans: 2,
      wallTimeMs: 600_000,
    });
    expect(() => new BudgetTracker({ iterations: 0 })).toThrow(ReplayOptionError);
    expect(new BudgetTracker({ replans: 0 }).replansLeft).toBe(0);
  });
});

describe('detectNoProgress', () => {
  const same = { signature: 'left_click|50,50', changed: false };
  it('fires after the same action left the screen unchanged N times in a row', () => {
    expect(detectNoProgress([same, same], 3)).toBe(false);
    expect(detectNoProgress([same, same, same], 3)).toBe(true);
    expect(detectNoProgress([same, { ...same, changed: true }, same], 3)).toBe(false);
    expect(detectNoProgress([same, same, { ...same, changed: null }], 3)).toBe(false);
    expect(detectNoProgress([same, { ...same, signature: 'key|enter' }, same], 3)).toBe(false);
  });
});
