/**
 * The `data` of each run event, as the replay writes it (ReplayEvent in @mime-desktop/replay, turned into a
 * RunEvent line by `toRunEvent`). Read leniently: what the report can do without is optional, and an
 * event whose data does not fit is shown as raw JSON instead of failing the report.
 */
import type { RunEvent } from '@mime-desktop/schema';
import { z } from 'zod';

/** A point in logical screen pixels. */
const Point = z.object({ x: z.number(), y: z.number() });
/** A size in pixels. */
export const Size = z.object({ width: z.number().positive(), height: z.number().positive() });
export type Size = z.infer<typeof Size>;
/** A box in logical screen pixels. */
const Box = z.object({ x: z.number(), y: z.number(), width: z.number(), height: z.number() });

const Budgets = z.record(z.string(), z.object({ used: z.number(), limit: z.number() }));

/** An executed (or logged) action, in logical screen pixels (`ResolvedAction` of @mime-desktop/replay). */
export const ResolvedAction = z.discriminatedUnion('action', [
  z.object({
    action: z.enum(['left_click', 'double_click', 'right_click', 'middle_click', 'mouse_move']),
    point: Point,
  }),
  z.object({ action: z.literal('left_click_drag'), point: Point, endPoint: Point }),
  z.object({ action: z.literal('type'), text: z.string() }),
  z.object({ action: z.literal('key'), keys: z.string() }),
  z.object({
    action: z.literal('scroll'),
    direction: z.string(),
    amount: z.number(),
    point: Point.nullable().default(null),
  }),
  z.object({ action: z.literal('wait'), seconds: z.number() }),
]);
export type ResolvedAction = z.infer<typeof ResolvedAction>;

export const ActionStatus = z.enum(['executed', 'dry_run', 'skipped', 'failed']);
export type ActionStatus = z.infer<typeof ActionStatus>;

const CallUsage = z.object({
  requests: z.number().default(0),
  inputTokens: z.number().default(0),
  outputTokens: z.number().default(0),
  durationMs: z.number().default(0),
});

/** The data of every event type; `step` and `divergence` come from trace and auto modes. */
const EVENT_DATA = {
  run_start: z.object({
    run_id: z.string(),
    mode: z.string(),
    task_name: z.string(),
    params: z.record(z.string(), z.string()).default({}),
    budgets: Budgets.default({}),
    dry_run: z.boolean().default(false),
    /** The logical screen, when the replay writes it; else the screenshots are taken to be at logical size. */
    screen: Size.optional(),
  }),
  subtask_start: z.object({
    text: z.string(),
    origin: z.enum(['workflow', 'replan']).default('workflow'),
    position: z.number().optional(),
    count: z.number().optional(),
  }),
  capture: z.object({
    screenshot: z.string(),
    settled: z.boolean().optional(),
    settle_ms: z.number().optional(),
    screen_changed: z.boolean().nullable().default(null),
  }),
  model_call: z.object({
    purpose: z.string().default('act'),
    usage: CallUsage,
    error_code: z.string().nullable().default(null),
  }),
  tool_call: z.object({
    name: z.string(),
    args: z.looseObject({
      observation: z.string().optional(),
      task_memory: z.string().optional(),
      reason: z.string().optional(),
    }),
  }),
  repair: z.object({ problems: z.array(z.object({ path: z.string(), message: z.string() })) }),
  action: z.object({
    action: ResolvedAction,
    description: z.string(),
    status: ActionStatus,
    error: z.string().nullable().default(null),
  }),
  extract: z.object({ variable: z.string(), query: z.string().default(''), value: z.string() }),
  done: z.object({ observation: z.string().default('') }),
  replan: z.object({ trigger: z.string(), reason: z.string(), subtasks: z.array(z.string()).default([]) }),
  step: z.object({
    /** The workflow step acted on (trace and auto modes). */
    step_i: z.number(),
    executed_by: z.string(),
    reason: z.string().default(''),
    /** Null when nothing was executed (a skipped step, one handed to the agent). */
    action: ResolvedAction.nullable().default(null),
    description: z.string().default(''),
    /** The live frame the step was checked against. */
    screenshot: z.string().optional(),
    /** Match score or similarity of the target, 0..1. */
    score: z.number().nullable().default(null),
  }),
  divergence: z.object({
    /** The reference step that diverged. */
    step_i: z.number().optional(),
    /** File names in the run folder: the crop around the target in the recording, and on the live screen. */
    expected: z.string(),
    observed: z.string(),
    /** 0..1: how alike the two crops are. */
    similarity: z.number(),
    /** The similarity below which the step counts as diverged. */
    threshold: z.number().optional(),
    /** The region compared, logical pixels; null for the whole screen. */
    region: Box.nullable().default(null),
    reason: z.string().optional(),
  }),
  paused: z.object({ hotkey: z.string() }),
  resumed: z.object({ hotkey: z.string() }),
  budget_exhausted: z.object({ budget: z.string(), code: z.string(), used: z.number(), limit: z.number() }),
  error: z.object({ code: z.string(), message: z.string() }),
  subtask_end: z.object({
    outcome: z.enum(['success', 'failed', 'replanned']),
    iterations: z.number(),
    duration_ms: z.number(),
  }),
  run_end: z.object({
    outcome: z.enum(['success', 'failed', 'aborted']),
    code: z.string().nullable().default(null),
    reason: z.string().nullable().default(null),
    duration_ms: z.number(),
  }),
} as const satisfies Record<RunEvent['type'], z.ZodType>;

type EventData = typeof EVENT_DATA;

/** A run event with its data checked against its type. */
export type TypedRunEvent = {
  [K in keyof EventData]: Omit<RunEvent, 'type' | 'data'> & { type: K; data: z.infer<EventData[K]> };
}[keyof EventData];

/** The data of one event type. */
export type DataOf<K extends RunEvent['type']> = z.infer<EventData[K]>;

/** The event with typed data, or null when its data does not have the shape of its type. */
export function readEventData(event: RunEvent): TypedRunEvent | null {
  const parsed = EVENT_DATA[event.type].safeParse(event.data);
  return parsed.success ? ({ ...event, data: parsed.data } as TypedRunEvent) : null;
}
