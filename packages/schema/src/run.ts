import { z } from 'zod';

/** Replay modes (DESIGN.md). */
export const ReplayMode = z.enum(['agent', 'trace', 'auto']);
export type ReplayMode = z.infer<typeof ReplayMode>;

export const RUN_EVENT_TYPES = [
  'run_start',
  'subtask_start',
  'capture',
  'model_call',
  'tool_call',
  'repair',
  'action',
  'extract',
  'done',
  'replan',
  'divergence',
  'step',
  'paused',
  'resumed',
  'budget_exhausted',
  'error',
  'subtask_end',
  'run_end',
] as const;

/** One line of a run's `events.jsonl`. */
export const RunEvent = z.object({
  time: z.iso.datetime(),
  type: z.enum(RUN_EVENT_TYPES),
  subtask_i: z.int().nonnegative().nullable().default(null),
  iteration: z.int().nonnegative().nullable().default(null),
  data: z.record(z.string(), z.unknown()).default({}),
});
export type RunEvent = z.infer<typeof RunEvent>;

export const RunOutcome = z.enum(['success', 'failed', 'aborted']);
export type RunOutcome = z.infer<typeof RunOutcome>;

/** Where a subtask of a run came from: the workflow's plan, or a replan during the run. */
export const SubtaskOrigin = z.enum(['workflow', 'replan']);
export type SubtaskOrigin = z.infer<typeof SubtaskOrigin>;

/** How a step was carried out in a run. */
export const StepExecution = z.enum(['trace', 'regrounded', 'agent', 'skipped']);

export const Usage = z.object({
  calls: z.int().nonnegative(),
  requests: z.int().nonnegative(),
  input_tokens: z.int().nonnegative(),
  output_tokens: z.int().nonnegative(),
  duration_ms: z.number().nonnegative(),
});
export type Usage = z.infer<typeof Usage>;

/** A run's `summary.json`. Sensitive param values appear only as `{name}`. */
export const RunSummary = z.object({
  run_id: z.string().min(1),
  workflow: z.string(),
  task_name: z.string(),
  mode: ReplayMode,
  outcome: RunOutcome,
  /** Stable code of what ended a failed or aborted run, e.g. `MIME_REPLAY_DIVERGENCE` (runs before 0.2 wrote `REPLAY_DIVERGENCE`), `MIME_BUDGET_ITERATIONS`. */
  code: z.string().nullable(),
  reason: z.string().nullable(),
  started_at: z.iso.datetime(),
  ended_at: z.iso.datetime(),
  duration_ms: z.number().nonnegative(),
  params: z.record(z.string(), z.string()),
  subtasks: z.array(
    z.object({
      subtask_i: z.int().nonnegative(),
      text: z.string(),
      /** `replanned`: abandoned when the rest of the task was planned again. */
      outcome: z.enum(['success', 'failed', 'replanned', 'not_run']),
      origin: SubtaskOrigin.default('workflow'),
      iterations: z.int().nonnegative(),
      duration_ms: z.number().nonnegative(),
      steps: z.array(z.object({ i: z.int().nonnegative(), executed_by: StepExecution, reason: z.string() })),
    }),
  ),
  usage: Usage,
  /** Nothing was executed: the model decided, the actions were only logged. */
  dry_run: z.boolean().default(false),
  budgets: z.record(z.string(), z.object({ used: z.number(), limit: z.number() })),
  extracts: z.record(z.string(), z.string()),
});
export type RunSummary = z.infer<typeof RunSummary>;
