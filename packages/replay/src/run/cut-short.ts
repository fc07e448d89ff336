/**
 * A hand-over cut short by a budget: what the run's headline names first. The budget only ended the
 * model's work on a subtask the recording could not carry; why the model was needed is the real cause.
 */
import { formatStep, formatSubtask, type TypedRunEvent } from '@mime-desktop/schema';
import type { BudgetExhaustedError } from '../errors.ts';

/**
 * The divergence that handed the still-open subtask to the model, in words, or null when no
 * hand-over is open (none happened, or a subtask succeeded since).
 */
export function openHandOver(events: readonly TypedRunEvent[]): string | null {
  let divergence: { subtask: number | null; step: number | null } | null = null;
  let cause: string | null = null;
  for (const event of events) {
    if (event.type === 'divergence') divergence = { subtask: event.subtask_i, step: event.data.step_i };
    else if (event.type === 'subtask_end' && event.data.outcome === 'success') cause = null;
    else if (event.type === 'handover') {
      const subtask = event.subtask_i;
      const named = subtask === null ? 'a subtask' : formatSubtask(subtask);
      const where =
        divergence && divergence.subtask === subtask
          ? divergence.step === null
            ? `the end of ${named} diverged`
            : `${formatStep(divergence.step)} of ${named} diverged`
          : `${named} needed the model`;
      cause = `${where}: ${event.data.reason}`;
    }
  }
  return cause;
}

/** The reason of a run a budget ended: the open hand-over's cause first, then the budget. */
export function cutShortReason(events: readonly TypedRunEvent[], budget: BudgetExhaustedError): string {
  const cause = openHandOver(events);
  return cause === null ? budget.message : `${cause}; the model took over, then ${budget.message}`;
}
