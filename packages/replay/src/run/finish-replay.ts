/** Finishing an executed run: its last events, summary, heal and report. */

import { join } from 'node:path';
import { isMimeError, RUN_FILES, type RunSummary } from '@mime-desktop/schema';
import { BudgetExhaustedError } from '../errors.ts';
import { cutShortReason } from './cut-short.ts';
import type { RunOutcome } from './execute-replay.ts';
import type { PreparedReplay, ReplayResult } from './replay-options.ts';
import { buildRunSummary, formatRunSummary } from './run-summary.ts';
import { setupWindowGone } from './setup-app.ts';
import { typedEvents } from './typed-events.ts';

/**
 * Finishes an executed run: its last events, summary.json and summary.txt, heal.json (only after a
 * success) and report.html. Rethrows an internal error (a bug) once the summary is written.
 */
export async function finishReplay(prepared: PreparedReplay, outcome: RunOutcome): Promise<ReplayResult> {
  const { log, memory, plan, budgets, failure } = outcome;
  const { materialized, model, settings } = prepared;
  const { budget, ...end } = classifyEnd(failure, outcome.signal);
  // A budget that ended a hand-over: its divergence is named first, then the budget.
  if (budget) end.reason = cutShortReason(typedEvents(log), budget);
  const lastSubtask = plan.current?.subtask_i ?? null;
  const windowGone = end.outcome === 'failed' ? await appWindowGone(prepared, outcome) : null;
  if (windowGone !== null) log.emit({ type: 'app_window_gone', subtask_i: lastSubtask, window: windowGone });
  if (budget) {
    const { used, limit, code } = budget;
    log.emit({ type: 'budget_exhausted', subtask_i: lastSubtask, budget: budget.budget, code, used, limit });
  } else if (end.code !== null) {
    log.emit({
      type: 'error',
      subtask_i: lastSubtask,
      iteration: null,
      code: end.code,
      message: end.reason ?? '',
    });
  }
  const meter = model.meter.snapshot();
  const start = outcome.meterAtStart;
  const summary = log.redact.value(
    buildRunSummary({
      runId: log.folder.runId,
      workflowDir: prepared.workflowDir,
      taskName: materialized.workflow.task_name,
      mode: prepared.mode.name,
      ...end,
      startedAt: outcome.startedAt,
      endedAt: new Date(),
      params: materialized.params,
      subtasks: plan.outcomes(),
      usage: {
        calls: meter.calls - start.calls,
        requests: meter.requests - start.requests,
        repairs: meter.repairs - start.repairs,
        inputTokens: meter.inputTokens - start.inputTokens,
        outputTokens: meter.outputTokens - start.outputTokens,
        durationMs: meter.durationMs - start.durationMs,
      },
      budgets: budgets.snapshot(),
      extracts: Object.fromEntries(memory.extracts),
      dryRun: settings.dryRun,
    }),
  );
  log.emit({
    type: 'run_end',
    outcome: end.outcome,
    code: end.code,
    reason: end.reason,
    duration_ms: summary.duration_ms,
  });
  const writeSummary = (written: RunSummary) => {
    log.writeJson(RUN_FILES.summary, written);
    log.writeText(RUN_FILES.textSummary, formatRunSummary(written));
  };
  writeSummary(summary);
  const heal = outcome.heal && end.outcome === 'success' ? outcome.heal : null;
  if (heal) log.writeJson(RUN_FILES.heal, heal);
  await log.flush();
  const { dir, runId } = log.folder;
  // The report is derived from the files just written; a run does not fail for want of it, but its
  // summary says why there is none.
  let report: string | null = null;
  let written = summary;
  try {
    // Loaded at the end of the run: nothing before the first step waits for it.
    const { writeReport } = await import('@mime-desktop/report');
    report = await writeReport(dir);
  } catch (error) {
    written = { ...summary, report_error: log.redact.text(describeError(error)) };
    writeSummary(written);
    await log.flush();
  }
  if (failure && end.code === INTERNAL_CODE) throw failure.error;
  return { runId, dir, summary: written, report, heal: heal ? join(dir, RUN_FILES.heal) : null };
}

/**
 * The setup's window in words when the run had found it open (its `setup` event) and it is gone now:
 * what a failed run saw then was the screen without its app.
 */
async function appWindowGone(prepared: PreparedReplay, outcome: RunOutcome): Promise<string | null> {
  const { setup } = prepared.materialized.workflow;
  if (!setup || !typedEvents(outcome.log).some((e) => e.type === 'setup')) return null;
  return setupWindowGone(setup, prepared.setup.env);
}

/** How a run ended. */
interface RunEnd {
  outcome: RunSummary['outcome'];
  code: string | null;
  reason: string | null;
  /** The budget that ran out, if one did. */
  budget: BudgetExhaustedError | null;
}

/** How a run ended, from what its executor threw (`null`: it returned, success). */
function classifyEnd(failure: { error: unknown } | null, signal: AbortSignal): RunEnd {
  if (failure === null) return { outcome: 'success', code: null, reason: null, budget: null };
  const { error } = failure;
  // A wait or call cut short by the signal may throw something else than its reason.
  const cause = signal.aborted && !isMimeError(error) ? signal.reason : error;
  if (cause instanceof BudgetExhaustedError) {
    return { outcome: 'failed', code: cause.code, reason: cause.message, budget: cause };
  }
  if (signal.aborted || (isMimeError(cause) && cause.code === 'MIME_ABORTED')) {
    const reason = cause instanceof Error ? cause.message : 'the run was aborted';
    return { outcome: 'aborted', code: 'MIME_ABORTED', reason, budget: null };
  }
  if (isMimeError(cause)) return { outcome: 'failed', code: cause.code, reason: cause.message, budget: null };
  const reason = cause instanceof Error ? cause.message : String(cause);
  return { outcome: 'failed', code: INTERNAL_CODE, reason, budget: null };
}

/** The code of a run ended by a bug (an error that is not a MimeError); `replay()` rethrows it. */
const INTERNAL_CODE = 'MIME_INTERNAL';

function describeError(error: unknown): string {
  if (isMimeError(error)) return `${error.code}: ${error.message}`;
  return error instanceof Error ? error.message : String(error);
}
