/**
 * The cause first, from the errors a replay really ends with: the divergence in one line (where, what
 * differed, how alike), then the likely cause, which for a field that held another value or a screen
 * not at its recorded start is to start from a fresh app; a budget names the divergence before it.
 */

import { BudgetExhaustedError, ReplayDivergenceError } from '@mime-desktop/replay';
import { type RunDivergence, runCause } from '@mime-desktop/report';
import { describe, expect, it } from 'vitest';

const divergence: RunDivergence = {
  step_i: 1,
  check: 'after_step',
  expected: 'divergence_step_1_expected.png',
  observed: 'divergence_step_1_observed.png',
  similarity: 0,
  threshold: 1,
  region: null,
  subtask_i: 0,
  iteration: 0,
};

const diverged = (reason: string, options: { notAtStart?: boolean; step?: number | null } = {}) =>
  new ReplayDivergenceError({
    step: options.step === undefined ? 1 : options.step,
    description: 'type "Faint"',
    subtask: 0,
    check: 'after_step',
    reason,
    similarity: 0.42,
    threshold: 0.9,
    crops: ['divergence_step_1_expected.png', 'divergence_step_1_observed.png'],
    regroundable: false,
    notAtStart: options.notAtStart ?? false,
  });

const failed = (error: Error & { code: string }) => ({
  outcome: 'failed',
  code: error.code,
  reason: error.message,
});

describe('the cause of a run, first', () => {
  it('says a field that held another value in one line, and that a fresh app is the fix', () => {
    const error = diverged(
      'after type "Faint", the focused text field holds "FaintYellow", not the typed text',
    );
    const cause = runCause(failed(error), divergence);
    expect(cause?.headline).toBe(
      'Step 2 (type "Faint"): after type "Faint", the focused text field holds "FaintYellow", not the typed text (42% alike, 90% needed)',
    );
    expect(cause?.headline).not.toContain('\n');
    expect(cause?.cause).toMatch(
      /^The field held another value \("FaintYellow"\): .* Start from a fresh app/,
    );
    expect(cause).toMatchObject({ fresh: true, divergence });
  });

  it("says a field that held another value when a subtask's outcome reads more than its value", () => {
    const error = diverged(
      'the screen does not show song_name = "Numb" where the recording shows "Numb" at the end of subtask 1 (that line reads "FaintNumb |")',
      { step: null },
    );
    const cause = runCause(failed(error), { ...divergence, step_i: null, check: 'subtask_outcome' });
    expect(cause?.headline).toBe(
      'End of subtask 1: the screen does not show song_name = "Numb" where the recording shows "Numb" at the end of subtask 1 (that line reads "FaintNumb |") (42% alike, 90% needed)',
    );
    expect(cause?.cause).toMatch(
      /^The field held another value: it reads "FaintNumb \|" where "Numb" was to be/,
    );
    expect(cause?.fresh).toBe(true);
  });

  it('says a screen not at its recorded start, and otherwise gives the advice the error gave', () => {
    const start = runCause(
      failed(diverged('the recorded target was not found', { notAtStart: true })),
      divergence,
    );
    expect(start?.headline).toBe(
      'Step 2 (type "Faint"): the recorded target was not found (42% alike, 90% needed)',
    );
    expect(start?.cause).toMatch(/^The screen was not at the recorded start .*start from a fresh app/);
    expect(start?.fresh).toBe(true);
    const other = runCause(failed(diverged('the recorded target was not found')), divergence);
    expect(other?.cause).toMatch(/^The app is not in the state the recording shows/);
    expect(other?.fresh).toBe(false);
  });

  it('names the divergence before the budget that ended the run', () => {
    const budget = new BudgetExhaustedError('replans', 3, 3, 'the task was planned again 3 times');
    const handedOver = `step 2 of subtask 1 diverged: the recorded target was not found; the model took over, then ${budget.message}`;
    const cut = runCause({ outcome: 'failed', code: budget.code, reason: handedOver }, divergence);
    expect(cut?.headline).toBe('Step 2 of subtask 1 diverged: the recorded target was not found');
    expect(cut?.cause).toMatch(
      /^The model took over there, then the task was planned again 3 times \(3 of 3\); raise the replans budget/,
    );
    const plain = runCause(failed(budget), divergence);
    expect(plain?.headline).toMatch(
      /^Step 2 did not look as recorded \(0% alike, 100% needed\), and then the task was planned again 3 times/,
    );
    expect(plain?.fresh).toBe(true);
  });

  it('says an app whose window vanished as such, whatever the error said', () => {
    const error = diverged('the recorded target was not found');
    const cause = runCause(failed(error), divergence, { windowGone: 'title /^mime-demo /' });
    expect(cause?.headline).toBe(
      "Step 2 could not go on: the app's window is gone (no window with title /^mime-demo / is open)",
    );
    expect(cause).toMatchObject({
      fresh: true,
      cause: expect.stringMatching(/^The app was closed, or ended, during the run/),
    });
  });

  it('has nothing to say of a success, and says a stop as the run did', () => {
    expect(runCause({ outcome: 'success', code: null, reason: null }, null)).toBeNull();
    const stopped = runCause(
      { outcome: 'aborted', code: 'MIME_ABORTED', reason: 'stopped from the studio' },
      null,
    );
    expect(stopped).toMatchObject({
      headline: 'Stopped from the studio',
      cause: null,
      divergence: null,
    });
  });
});
