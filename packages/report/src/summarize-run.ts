/**
 * The report's header: from summary.json when the run wrote it, else from the events (a run going on,
 * or killed before its summary: outcome `running` while the process its journal names lives,
 * `interrupted` once it is gone, `unfinished` when that cannot be told; usage and budgets counted
 * from the log).
 */
import type { RunOutcome, RunSummary, UnfinishedRunStatus, Usage } from '@mime-desktop/schema';
import {
  type RunEventData,
  type Size,
  typedRunEvent,
  unfinishedRunState,
  unfinishedStatus,
} from '@mime-desktop/schema';
import type { RunArtifacts } from './read-run.ts';

export interface RunOverview {
  runId: string;
  taskName: string;
  mode: string;
  dryRun: boolean;
  outcome: RunOutcome | UnfinishedRunStatus;
  code: string | null;
  reason: string | null;
  startedAt: string;
  /** Null while unfinished. */
  durationMs: number | null;
  /** The workflow folder, when the summary names it. */
  workflowDir: string | null;
  /** Sensitive values are `{name}` already. */
  params: Record<string, string>;
  usage: Usage;
  budgets: RunSummary['budgets'];
  extracts: Record<string, string>;
  /** The logical screen, when the run wrote it (run_start `screen`). */
  screen: Size | null;
  /** False: summary.json is missing and the header was counted from the events. */
  fromSummary: boolean;
}

function countUsage(calls: readonly RunEventData<'model_call'>[]): Usage {
  return {
    calls: calls.length,
    requests: calls.reduce((sum, c) => sum + c.usage.requests, 0),
    input_tokens: calls.reduce((sum, c) => sum + c.usage.inputTokens, 0),
    output_tokens: calls.reduce((sum, c) => sum + c.usage.outputTokens, 0),
    duration_ms: calls.reduce((sum, c) => sum + c.usage.durationMs, 0),
  };
}

/** Budgets used, counted from the events: the most turns a subtask took, model calls, replans, elapsed time. */
function countBudgets(
  limits: RunSummary['budgets'],
  events: RunArtifacts['events'],
  elapsedMs: number,
): RunSummary['budgets'] {
  const turns = new Map<number, Set<number>>();
  for (const { type, subtask_i, iteration } of events) {
    if ((type === 'capture' || type === 'step') && subtask_i !== null && iteration !== null) {
      turns.set(subtask_i, (turns.get(subtask_i) ?? new Set()).add(iteration));
    }
  }
  const used: Record<string, number> = {
    iterations: Math.max(0, ...[...turns.values()].map((t) => t.size)),
    model_calls: events.filter((e) => e.type === 'model_call').length,
    replans: events.filter((e) => e.type === 'replan').length,
    wall_time: elapsedMs,
  };
  return Object.fromEntries(
    Object.entries(limits).map(([name, { limit }]) => [name, { used: used[name] ?? 0, limit }]),
  );
}

/** The header of a run's report. */
export function summarizeRun(run: RunArtifacts): RunOverview {
  const typed = run.events.map(typedRunEvent);
  const start = typed.find((e) => e?.type === 'run_start');
  const startData = start?.type === 'run_start' ? start.data : null;
  const screen = startData?.screen ?? null;
  const { summary } = run;
  if (summary) {
    return {
      runId: summary.run_id,
      taskName: summary.task_name,
      mode: summary.mode,
      dryRun: summary.dry_run,
      outcome: summary.outcome,
      code: summary.code,
      reason: summary.reason,
      startedAt: summary.started_at,
      durationMs: summary.duration_ms,
      workflowDir: summary.workflow,
      params: summary.params,
      usage: summary.usage,
      budgets: summary.budgets,
      extracts: summary.extracts,
      screen,
      fromSummary: true,
    };
  }
  const startedAt = start?.time ?? run.events[0]?.time ?? new Date(0).toISOString();
  const end = typed.find((e) => e?.type === 'run_end');
  const endData = end?.type === 'run_end' ? end.data : null;
  const last = run.events.at(-1)?.time ?? startedAt;
  const calls = typed.flatMap((e) => (e?.type === 'model_call' ? [e.data] : []));
  const extracted = typed.flatMap((e) => (e?.type === 'extract' ? [[e.data.variable, e.data.value]] : []));
  return {
    runId: startData?.run_id ?? '(unknown)',
    taskName: startData?.task_name ?? run.workflow?.task_name ?? '(unknown task)',
    mode: startData?.mode ?? '(unknown)',
    dryRun: startData?.dry_run ?? false,
    outcome:
      endData?.outcome ??
      unfinishedStatus(unfinishedRunState(startData && { process: startData.process ?? null }, startedAt)),
    code: endData?.code ?? null,
    reason: endData?.reason ?? null,
    startedAt,
    durationMs: endData?.duration_ms ?? null,
    workflowDir: null,
    params: startData?.params ?? {},
    usage: countUsage(calls),
    budgets: countBudgets(startData?.budgets ?? {}, run.events, Date.parse(last) - Date.parse(startedAt)),
    extracts: run.extracts ?? Object.fromEntries(extracted),
    screen,
    fromSummary: false,
  };
}
