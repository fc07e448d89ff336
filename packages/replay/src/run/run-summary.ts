import type { UsageSnapshot } from '@mime-desktop/model';
import type { ReplayMode, RunOutcome, RunSummary } from '@mime-desktop/schema';
import type { BudgetSnapshot } from '../kernel/budgets.ts';
import type { ResolvedParam } from '../kernel/materialize.ts';
import type { SubtaskRecord } from '../kernel/plan-cursor.ts';

export interface RunSummaryInput {
  runId: string;
  workflowDir: string;
  taskName: string;
  mode: ReplayMode;
  outcome: RunOutcome;
  code: string | null;
  reason: string | null;
  startedAt: Date;
  endedAt: Date;
  params: readonly ResolvedParam[];
  /** Subtasks started (their records), then those never run (outcome `not_run`, no executions). */
  subtasks: readonly SubtaskRecord[];
  usage: UsageSnapshot;
  budgets: BudgetSnapshot;
  /** Already redacted. */
  extracts: Record<string, string>;
  dryRun: boolean;
}

/** The run's summary.json (sensitive params as `{name}`). */
export function buildRunSummary(input: RunSummaryInput): RunSummary {
  return {
    run_id: input.runId,
    workflow: input.workflowDir,
    task_name: input.taskName,
    mode: input.mode,
    outcome: input.outcome,
    code: input.code,
    reason: input.reason,
    started_at: input.startedAt.toISOString(),
    ended_at: input.endedAt.toISOString(),
    duration_ms: Math.max(0, input.endedAt.getTime() - input.startedAt.getTime()),
    params: Object.fromEntries(input.params.map((p) => [p.name, p.display])),
    subtasks: input.subtasks.map((s) => ({
      subtask_i: s.subtask_i,
      text: s.text,
      outcome: s.outcome,
      origin: s.origin,
      iterations: s.iterations,
      duration_ms: Math.round(s.duration_ms),
      steps:
        s.outcome === 'not_run'
          ? s.steps.map((step) => ({
              i: step.i,
              executed_by: 'skipped' as const,
              reason: 'the run ended before this subtask',
            }))
          : [...s.executions],
    })),
    usage: {
      calls: input.usage.calls,
      requests: input.usage.requests,
      input_tokens: input.usage.inputTokens,
      output_tokens: input.usage.outputTokens,
      duration_ms: Math.round(input.usage.durationMs),
    },
    dry_run: input.dryRun,
    budgets: input.budgets,
    extracts: input.extracts,
    report_error: null,
  };
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

const MARKS: Record<SubtaskRecord['outcome'], string> = {
  success: 'ok      ',
  failed: 'FAILED  ',
  replanned: 'REPLANNED',
  not_run: 'not run ',
};

/** replay_summary.txt: the run for a person, in plain text. */
export function formatRunSummary(summary: RunSummary): string {
  const { budgets, usage } = summary;
  const verdict =
    summary.outcome === 'success'
      ? 'SUCCESS'
      : `${summary.outcome.toUpperCase()} [${summary.code ?? 'unknown'}]: ${summary.reason ?? ''}`;
  const params = Object.entries(summary.params).map(([k, v]) => `${k}=${v}`);
  const budget = (name: string, unit = '') => {
    const b = budgets[name];
    return b ? `${name.replace('_', ' ')} ${b.used}${unit}/${b.limit}${unit}` : null;
  };
  return [
    `mime replay: ${summary.task_name}`,
    `run ${summary.run_id} (${summary.mode} mode${summary.dry_run ? ', dry run' : ''}): ${verdict}`,
    `workflow: ${summary.workflow}`,
    `started ${summary.started_at}, took ${seconds(summary.duration_ms)}`,
    `params: ${params.length > 0 ? params.join(', ') : 'none'}`,
    '',
    'Subtasks:',
    ...summary.subtasks.map(
      (s) =>
        `  ${MARKS[s.outcome]} ${s.subtask_i}${s.origin === 'replan' ? ' (replanned)' : ''}: ${s.text} (${s.iterations} iterations, ${seconds(s.duration_ms)})`,
    ),
    '',
    'Extracts:',
    ...(Object.keys(summary.extracts).length === 0
      ? ['  none']
      : Object.entries(summary.extracts).map(([k, v]) => `  ${k} = ${v}`)),
    '',
    `Model: ${usage.calls} calls, ${usage.requests} requests, ${usage.input_tokens} input + ${usage.output_tokens} output tokens, ${seconds(usage.duration_ms)}`,
    `Budgets: ${[budget('iterations'), budget('model_calls'), budget('replans'), budget('wall_time', ' ms')].filter(Boolean).join(', ')}`,
    '',
  ].join('\n');
}
