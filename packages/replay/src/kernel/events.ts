/**
 * What a run reports, as typed events derived from the run contract of @mime-desktop/schema: `onEvent`
 * receives them and each becomes one line of events.jsonl (`{time, type, subtask_i, iteration, data}`).
 * Sensitive values are already replaced by `{name}` in every event.
 */
import type { CallUsage, RunEvent, RunEventData, RunEventType } from '@mime-desktop/schema';

/** Why the rest of the task was planned again. */
export type ReplanTrigger = RunEventData<'replan'>['trigger'];

/** Model usage of one logical call (repairs and HTTP retries inside it included). */
export type CallUsageSummary = CallUsage;

export type { ActionStatus } from '@mime-desktop/schema';

/** Where in the run an event happened: the run-wide subtask number and the iteration within it. */
interface At {
  subtask_i?: number | null;
  iteration?: number | null;
}

/** One event of a run: its type, where it happened, and its data (the schema's, flattened). */
export type ReplayEvent = { [K in RunEventType]: { type: K } & At & RunEventData<K> }[RunEventType];

/** Receives events; must not throw. */
export type ReplayEventListener = (event: ReplayEvent) => void;

/** The events.jsonl line of an event. */
export function toRunEvent(event: ReplayEvent, time: Date): RunEvent {
  const { type, subtask_i = null, iteration = null, ...data } = event;
  return { time: time.toISOString(), type, subtask_i, iteration, data };
}
