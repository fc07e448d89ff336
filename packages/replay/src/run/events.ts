/**
 * What a run reports, as typed events: `onEvent` receives them and each becomes one line of
 * events.jsonl (`{time, type, subtask_i, iteration, data}`, the RunEvent of @mime-desktop/schema). Sensitive
 * values are already replaced by `{name}` in every event.
 */
import type { Problem, ReplayMode, RunEvent, RunOutcome, SubtaskOrigin } from '@mime-desktop/schema';
import type { ResolvedAction } from '../actions/computer-action.ts';
import type { ImageSize } from '../agent/coordinates.ts';
import type { BudgetName, BudgetSnapshot } from './budgets.ts';

/** Why the rest of the task was planned again. */
export type ReplanTrigger = 'no_progress' | 'iterations' | 'model';

/** Model usage of one logical call (repairs and HTTP retries inside it included). */
export interface CallUsageSummary {
  requests: number;
  inputTokens: number;
  outputTokens: number;
  durationMs: number;
}

/** What happened to an action the model chose. */
export type ActionStatus = 'executed' | 'dry_run' | 'skipped' | 'failed';

interface At {
  /** Run-wide number of the subtask (replanned subtasks continue after the workflow's). */
  subtask_i: number;
  /** Iteration within the subtask, from 0. */
  iteration: number;
}

export type ReplayEvent =
  | {
      type: 'run_start';
      run_id: string;
      dir: string;
      mode: ReplayMode;
      task_name: string;
      params: Record<string, string>;
      budgets: BudgetSnapshot;
      dry_run: boolean;
    }
  | {
      type: 'subtask_start';
      subtask_i: number;
      text: string;
      origin: SubtaskOrigin;
      position: number;
      count: number;
    }
  | (At & {
      type: 'capture';
      /** File name of the full frame in the run folder. */
      screenshot: string;
      settled: boolean;
      settle_ms: number;
      /** Whether the last executed action changed the screen; null when none ran since the previous capture. */
      screen_changed: boolean | null;
      image: ImageSize;
      image_bytes: number;
    })
  | (At & {
      type: 'model_call';
      purpose: 'act' | 'replan';
      usage: CallUsageSummary;
      /** `null` when the call returned, else the error's code. */
      error_code: string | null;
    })
  | (At & { type: 'tool_call'; name: string; args: Record<string, unknown> })
  | (At & { type: 'repair'; problems: Problem[] })
  | (At & {
      type: 'action';
      action: ResolvedAction;
      description: string;
      status: ActionStatus;
      error: string | null;
    })
  | (At & { type: 'extract'; variable: string; query: string; value: string })
  | (At & { type: 'done'; observation: string })
  | (At & { type: 'replan'; trigger: ReplanTrigger; reason: string; subtasks: string[] })
  | (At & {
      type: 'step';
      /** The workflow step acted on (trace and auto modes). */
      step_i: number;
      executed_by: 'trace' | 'regrounded' | 'agent' | 'skipped';
      reason: string;
      /** What was executed, or null when nothing was (a skipped step, one handed to the agent). */
      action: ResolvedAction | null;
      description: string;
      /** The live frame the step was checked against, in the run folder. */
      screenshot: string;
      /** Match score or similarity of the target, 0..1, when one was measured. */
      score: number | null;
    })
  | (At & {
      type: 'divergence';
      step_i: number;
      /** Crops of the recorded PRE frame and of the live screen, in the run folder. */
      expected: string;
      observed: string;
      similarity: number;
      threshold: number;
      /** The region compared, logical px; null for the whole screen. */
      region: { x: number; y: number; width: number; height: number } | null;
    })
  | {
      type: 'budget_exhausted';
      subtask_i: number | null;
      budget: BudgetName;
      code: string;
      used: number;
      limit: number;
    }
  | { type: 'error'; subtask_i: number | null; iteration: number | null; code: string; message: string }
  | {
      type: 'subtask_end';
      subtask_i: number;
      outcome: 'success' | 'failed' | 'replanned';
      iterations: number;
      duration_ms: number;
    }
  | { type: 'paused'; hotkey: string }
  | { type: 'resumed'; hotkey: string }
  | { type: 'run_end'; outcome: RunOutcome; code: string | null; reason: string | null; duration_ms: number };

/** Receives events; must not throw. */
export type ReplayEventListener = (event: ReplayEvent) => void;

/** The events.jsonl line of an event. */
export function toRunEvent(event: ReplayEvent, time: Date): RunEvent {
  const { type, ...rest } = event;
  const {
    subtask_i = null,
    iteration = null,
    ...data
  } = rest as Record<string, unknown> & {
    subtask_i?: number | null;
    iteration?: number | null;
  };
  return { time: time.toISOString(), type, subtask_i, iteration, data };
}
