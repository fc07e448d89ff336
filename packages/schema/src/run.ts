/**
 * The run contract (DESIGN.md "Files"): the files of a run folder, the data of every event in
 * events.jsonl, task_memory.json, extracts.json and summary.json. `@mime-desktop/replay` writes them
 * and `@mime-desktop/report` reads them through these schemas only.
 */
import { z } from 'zod';
import { ElementIdentity } from './element.ts';
import type { Problem } from './errors.ts';
import { SourceWindow } from './workflow.ts';
import { zodProblems } from './zod-problems.ts';

/** Replay modes (DESIGN.md). */
export const ReplayMode = z.enum(['agent', 'trace', 'auto']);
export type ReplayMode = z.infer<typeof ReplayMode>;

/** The files of a run folder `<workflow>/.replay/<run_id>/`, by role. */
export const RUN_FILES = {
  renderedSchema: 'schema.rendered.json',
  events: 'events.jsonl',
  taskMemory: 'task_memory.json',
  extracts: 'extracts.json',
  summary: 'summary.json',
  textSummary: 'replay_summary.txt',
  report: 'report.html',
  /** What a run learned about an out-of-date workflow (see `HealFile`). */
  heal: 'heal.json',
  /** The screen when a run ended. */
  finalFrame: 'final.png',
  /** The CLI's JSON log of the run (pino). */
  log: 'mime.log',
} as const;

/** The folder that holds a workflow's runs. */
export const RUNS_FOLDER = '.replay';

/** The frame an agent turn was decided on: `subtask_<s>_iter_<n>.png`. */
export function iterationFrameName(subtask: number, iteration: number): string {
  return `subtask_${subtask}_iter_${iteration}.png`;
}

/** The live frame a recorded step was checked against (trace, auto): `subtask_<s>_step_<i>.png`. */
export function stepFrameName(subtask: number, step: number): string {
  return `subtask_${subtask}_step_${step}.png`;
}

/** The live frame a subtask's outcome was checked against (trace, auto): `subtask_<s>_outcome.png`. */
export function outcomeFrameName(subtask: number): string {
  return `subtask_${subtask}_outcome.png`;
}

/** `task_memory.json`: the model's memory after its last turn (sensitive values as `{name}`). */
export const TaskMemoryFile = z.object({
  task_memory: z.string(),
  subtask_i: z.int().nonnegative().nullable().default(null),
  iteration: z.int().nonnegative().nullable().default(null),
  updated_at: z.iso.datetime().nullable().default(null),
});
export type TaskMemoryFile = z.infer<typeof TaskMemoryFile>;

/** `extracts.json`: extracted values by variable (sensitive values as `{name}`). */
export const ExtractsFile = z.record(z.string(), z.string());
export type ExtractsFile = z.infer<typeof ExtractsFile>;

/** A point in logical screen pixels. */
const Point = z.object({ x: z.number(), y: z.number() });
/** A size in pixels. */
export const Size = z.object({ width: z.number().positive(), height: z.number().positive() });
export type Size = z.infer<typeof Size>;
/** A box in logical screen pixels. */
export const Box = z.object({ x: z.number(), y: z.number(), width: z.number(), height: z.number() });
export type Box = z.infer<typeof Box>;

/** An action as executed (or logged), in logical screen pixels; typed text may hold `{name}` of secrets. */
export const RunAction = z.discriminatedUnion('action', [
  z.object({
    action: z.enum(['left_click', 'double_click', 'right_click', 'middle_click', 'mouse_move']),
    point: Point,
  }),
  z.object({ action: z.literal('left_click_drag'), point: Point, endPoint: Point }),
  z.object({ action: z.literal('type'), text: z.string() }),
  z.object({ action: z.literal('key'), keys: z.string() }),
  z.object({
    action: z.literal('scroll'),
    direction: z.enum(['up', 'down', 'left', 'right']),
    amount: z.number(),
    point: Point.nullable(),
  }),
  z.object({ action: z.literal('wait'), seconds: z.number() }),
]);
export type RunAction = z.infer<typeof RunAction>;

/** RunAction's names (the values of its discriminator), in its order: one list, read off the schema. */
export const RUN_ACTIONS: readonly RunAction['action'][] = RunAction.options.flatMap((option) => {
  const { action } = option.shape;
  return action instanceof z.ZodEnum ? action.options : [...action.values];
});

/** What happened to an action the model chose. */
export const ActionStatus = z.enum(['executed', 'dry_run', 'skipped', 'failed', 'refused']);
export type ActionStatus = z.infer<typeof ActionStatus>;

/** How a step was carried out in a run. */
export const StepExecution = z.enum(['trace', 'regrounded', 'agent', 'skipped']);

/**
 * The rungs of the ladder that finds a recorded target on the live screen, first to last: the
 * element by its accessibility identity, the recorded pixels at their place, the template near its
 * expected place, anywhere at any scale; the model (auto only) is the hand-over.
 */
export const LocatorRung = z.enum([
  'accessibility',
  'recorded-place',
  'template-near',
  'template-anywhere',
  'text',
]);
export type LocatorRung = z.infer<typeof LocatorRung>;
export type StepExecution = z.infer<typeof StepExecution>;

/** Where a subtask of a run came from: the workflow's plan, or a replan during the run. */
export const SubtaskOrigin = z.enum(['workflow', 'replan']);
export type SubtaskOrigin = z.infer<typeof SubtaskOrigin>;

export const RunOutcome = z.enum(['success', 'failed', 'aborted']);
export type RunOutcome = z.infer<typeof RunOutcome>;

const BudgetUse = z.object({ used: z.number(), limit: z.number() });

/** Model usage of one logical call (repairs and HTTP retries inside it included). */
export const CallUsage = z.object({
  requests: z.number().nonnegative(),
  inputTokens: z.number().nonnegative(),
  outputTokens: z.number().nonnegative(),
  durationMs: z.number().nonnegative(),
});
export type CallUsage = z.infer<typeof CallUsage>;

/**
 * A check of the live screen against the recording (trace and auto modes): `before_step`, the PRE
 * frame around the step's target; `after_step`, the region a typing or key step changed, as the next
 * PRE frame shows it; `subtask_outcome`, the screen at the end of a subtask as the recording shows it.
 */
export const ScreenCheck = z.enum(['before_step', 'after_step', 'subtask_outcome']);
export type ScreenCheck = z.infer<typeof ScreenCheck>;

/**
 * The `data` of each event type, as replay writes it and the report reads it: one contract. Fields
 * added after the first release have defaults, so older runs still read.
 */
export const RUN_EVENT_DATA = {
  run_start: z.object({
    run_id: z.string(),
    dir: z.string().default(''),
    mode: ReplayMode,
    task_name: z.string(),
    params: z.record(z.string(), z.string()),
    budgets: z.record(z.string(), BudgetUse),
    dry_run: z.boolean(),
    /** The logical screen; null in older runs (their screenshots are at logical size). */
    screen: Size.nullable().default(null),
    /** What reading the workflow's older layout changed that its author should know. */
    warnings: z.array(z.string()).default([]),
    process: z
      .object({
        pid: z.int().positive(),
        /** Its start identity (Linux: boot id and start ticks), so a reused pid is not taken for it; null elsewhere. */
        started: z.string().nullable(),
        host: z.string(),
      })
      .optional()
      .describe(
        'The process running the replay, so a run without a summary can be told going on (it lives) from killed; absent in older runs.',
      ),
    files: z
      .object({ read: z.array(z.string()), write: z.array(z.string()) })
      .optional()
      .describe(
        'The files the workflow says it may read and write (its optimized_plan.json), as `path (reason)`.',
      ),
    criteria: z
      .array(
        z.object({
          subtask_i: z.int().nonnegative(),
          criterion: z.string(),
          /** The texts checked on the app after the subtask; empty: free prose, told to the model only. */
          checks: z.array(z.string()),
        }),
      )
      .optional()
      .describe(
        "The success criteria of the workflow's optimized_plan.json (Pass C), by the subtask after which each is checked.",
      ),
    executors: z
      .array(
        z.object({
          step: z.string(),
          title: z.string().nullable(),
          executor: z.string(),
          subtasks: z.array(z.int().nonnegative()),
          goal: z.string(),
          url: z.string().nullable(),
          fallback: z.string().nullable(),
        }),
      )
      .optional()
      .describe(
        "The steps of the workflow's optimized_plan.json that ai_mime does by a script or a browser script; shown, never run: mime replays their UI steps.",
      ),
  }),
  /** The workflow's `setup` launched the app, or found its window already open. */
  setup: z.object({
    command: z.string().nullable(),
    window: z.string().nullable(),
    launched: z.boolean(),
    waited_ms: z.number().nonnegative(),
    /** The app was first put in its recorded starting state (`fresh`). */
    fresh: z.boolean().default(false),
  }),
  /**
   * The run failed and the setup's app window, open when it started, is gone (the app closed or ended
   * during the run): said first in its cause. `window` is the setup's window query in words.
   */
  app_window_gone: z.object({ window: z.string() }),
  subtask_start: z.object({
    text: z.string(),
    origin: SubtaskOrigin.default('workflow'),
    position: z.int().positive(),
    count: z.int().positive(),
  }),
  capture: z.object({
    /** File name of the full frame in the run folder. */
    screenshot: z.string(),
    settled: z.boolean(),
    settle_ms: z.number().nonnegative(),
    /** Whether the last executed action changed the screen; null when none ran since the previous capture. */
    screen_changed: z.boolean().nullable(),
    image: Size,
    image_bytes: z.int().nonnegative(),
  }),
  model_call: z.object({
    /** `extract`: the value of an extract call that carried none, read in a call of its own (as ai_mime does). */
    purpose: z.enum(['act', 'replan', 'extract']),
    usage: CallUsage,
    /** Null when the call returned, else the error's code. */
    error_code: z.string().nullable(),
  }),
  tool_call: z.object({
    name: z.string(),
    /**
     * Where the call was found: `native` tool calls, the `text` protocol, or `content` (native mode,
     * but the server left the call in the message text).
     */
    source: z.enum(['native', 'text', 'content', 'ui-tars']).optional(),
    /** The call's arguments as the model sent them (sensitive values as `{name}`). */
    args: z.looseObject({
      observation: z.string().optional(),
      task_memory: z.string().nullable().optional(),
      reason: z.string().optional(),
    }),
    /** Keys the model sent that the tool does not define: ignored. */
    dropped: z.array(z.string()).default([]),
  }),
  repair: z.object({ problems: z.array(z.object({ path: z.string(), message: z.string() })) }),
  action: z.object({
    action: RunAction,
    description: z.string(),
    status: ActionStatus,
    error: z.string().nullable(),
  }),
  extract: z.object({ variable: z.string(), query: z.string(), value: z.string() }),
  /**
   * What the model said (its subtask done, a value it read), checked on the live app before it counts:
   * `verified` (the app shows it), `refused` (it does not: the model is told what is missing and the
   * turn does not count) or `unverified` (nothing the app should show is known: done by the model's
   * word alone).
   */
  claim: z.object({
    claim: z.enum(['done', 'extract']),
    verdict: z.enum(['verified', 'refused', 'unverified']),
    /** How the app was read: its accessibility tree (`app`), OCR of the screen, or null (not read). */
    read: z.enum(['app', 'ocr']).nullable(),
    /** What was checked and found, or what is missing. */
    detail: z.string(),
  }),
  done: z.object({
    observation: z.string(),
    /** What the model said the subtask achieved (ai_mime's `done.result`), carried to later subtasks. */
    result: z.string().nullable().default(null),
  }),
  replan: z.object({
    trigger: z.enum(['no_progress', 'iterations', 'model']),
    reason: z.string(),
    /** What the model was told was done already (seed 004): executed actions, traced steps, finished subtasks. */
    completed: z.array(z.string()).default([]),
    subtasks: z.array(z.string()),
  }),
  /**
   * Where the agent may act, said when it first acts in a run: the windows of these WM_CLASS names,
   * or (classes empty) the whole screen, and why.
   */
  agent_scope: z.object({ classes: z.array(z.string()), reason: z.string() }),
  /** Auto mode gave the rest of a subtask to the agent. */
  handover: z.object({
    reason: z.string(),
    /** The steps of the subtask already done without the model. */
    completed_steps: z.array(z.int().nonnegative()),
  }),
  step: z.object({
    /** The workflow step acted on (trace and auto modes). */
    step_i: z.int().nonnegative(),
    executed_by: StepExecution,
    reason: z.string(),
    /** What was executed, or null when nothing was (a skipped step, one handed to the agent). */
    action: RunAction.nullable(),
    description: z.string(),
    /** The live frame the step was checked against, in the run folder. */
    screenshot: z.string(),
    /** Match score or similarity of the target, 0..1, when one was measured. */
    score: z.number().nullable(),
    /** Time spent waiting for the recorded screen to appear before the step, ms. */
    waited_ms: z.number().nonnegative().default(0),
    /** Which rung of the ladder found the target, when the step has one. */
    rung: LocatorRung.optional(),
    /** The target's element on the live screen, when the accessibility tree names it (a heal keeps it). */
    element: ElementIdentity.optional(),
    /** The window the step's target was recorded in, where it stands on this run's screen (a heal keeps it). */
    window: SourceWindow.optional(),
  }),
  /** A passed check of the screen against the recording (a failed one is a `divergence`). */
  verify: z.object({
    step_i: z.int().nonnegative().nullable(),
    check: ScreenCheck,
    similarity: z.number(),
    threshold: z.number(),
    region: Box.nullable(),
    /**
     * How the check read the app: its accessibility tree (`app`), OCR of the screen (`ocr`); absent:
     * by pixels (the layout the recording shows).
     */
    read: z.enum(['app', 'ocr']).optional(),
    /** A subtask's outcome read by content: how long the check took after the subtask's last step, ms. */
    took_ms: z.number().nonnegative().optional(),
    /** A subtask's outcome: the live frame checked, in the run folder. */
    screenshot: z.string().optional(),
    /** A subtask's outcome: the recorded frame it was checked against, relative to the workflow folder. */
    recorded_frame: z.string().optional(),
  }),
  divergence: z.object({
    /** The reference step that diverged; null for a subtask's outcome. */
    step_i: z.int().nonnegative().nullable(),
    check: ScreenCheck.default('before_step'),
    /** Crops of the recorded frame and of the live screen, in the run folder. */
    expected: z.string(),
    observed: z.string(),
    /** 0..1: how alike the two crops are. */
    similarity: z.number(),
    /** The similarity below which the check fails. */
    threshold: z.number(),
    /** The region compared, logical px; null for the whole screen. */
    region: Box.nullable(),
    /** A check by content: how it read the app, and what it found (no percentages there). */
    read: z.enum(['app', 'ocr']).optional(),
    reason: z.string().optional(),
    /** The whole recorded and live frames the crops come from, in the run folder. */
    recorded_frame: z.string().optional(),
    live_frame: z.string().optional(),
  }),
  paused: z.object({ hotkey: z.string() }),
  resumed: z.object({ hotkey: z.string() }),
  budget_exhausted: z.object({
    budget: z.enum(['iterations', 'model_calls', 'replans', 'wall_time']),
    code: z.string(),
    used: z.number(),
    limit: z.number(),
  }),
  error: z.object({ code: z.string(), message: z.string() }),
  subtask_end: z.object({
    outcome: z.enum(['success', 'failed', 'replanned']),
    iterations: z.int().nonnegative(),
    duration_ms: z.number().nonnegative(),
  }),
  run_end: z.object({
    outcome: RunOutcome,
    code: z.string().nullable(),
    reason: z.string().nullable(),
    duration_ms: z.number().nonnegative(),
  }),
} as const;

type EventDataSchemas = typeof RUN_EVENT_DATA;
export type RunEventType = keyof EventDataSchemas;
export const RUN_EVENT_TYPES = Object.keys(RUN_EVENT_DATA) as [RunEventType, ...RunEventType[]];

/** The data of one event type, as written. */
export type RunEventData<K extends RunEventType> = z.infer<EventDataSchemas[K]>;

/** One line of a run's `events.jsonl`; its `data` is checked per type by {@link typedRunEvent}. */
export const RunEvent = z.object({
  time: z.iso.datetime(),
  type: z.enum(RUN_EVENT_TYPES),
  subtask_i: z.int().nonnegative().nullable().default(null),
  iteration: z.int().nonnegative().nullable().default(null),
  data: z.record(z.string(), z.unknown()).default({}),
});
export type RunEvent = z.infer<typeof RunEvent>;

/** A run event whose data was checked against its type. */
export type TypedRunEvent = {
  [K in RunEventType]: Omit<RunEvent, 'type' | 'data'> & { type: K; data: RunEventData<K> };
}[RunEventType];

/** The event with its data checked against its type, or null when the data does not fit it. */
export function typedRunEvent(event: RunEvent): TypedRunEvent | null {
  const parsed = RUN_EVENT_DATA[event.type].safeParse(event.data);
  return parsed.success ? ({ ...event, data: parsed.data } as TypedRunEvent) : null;
}

/** Why an event's data does not fit its type (empty when it does). */
export function runEventProblems(event: RunEvent): Problem[] {
  const parsed = RUN_EVENT_DATA[event.type].safeParse(event.data);
  return parsed.success ? [] : zodProblems(parsed.error, ['data']);
}

/** Code of a trace divergence; runs written before it carried the `MIME_` prefix say `REPLAY_DIVERGENCE`. */
export const DIVERGENCE_CODES = ['MIME_REPLAY_DIVERGENCE', 'REPLAY_DIVERGENCE'] as const;

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
  /** Why report.html could not be written, or null. */
  report_error: z.string().nullable().default(null),
});
export type RunSummary = z.infer<typeof RunSummary>;
