/**
 * `heal.json`: what an auto run learned about a workflow that is out of date (a target re-found at a
 * new place, a subtask the agent had to do), as the actions it executed on the live screen, each with
 * the frame it was taken on. `mime heal` turns it into a new recording and workflow; the hashes say
 * which workflow it was learned on, so a workflow changed since then is not overwritten.
 */
import { z } from 'zod';
import { ElementIdentity } from './element.ts';
import { RelativePath } from './paths.ts';
import { RunAction, StepExecution } from './run.ts';
import { SourceWindow } from './workflow.ts';

export const HEAL_VERSION = 1;

/** An executed action of the run, or a value it read. */
export const HealAction = z.object({
  subtask_i: z.int().nonnegative(),
  /** The workflow step it carried out; null for the agent's own actions. */
  step_i: z.int().nonnegative().nullable(),
  by: StepExecution.exclude(['skipped']),
  /** The action in logical pixels; sensitive text as `{name}`. Null for a value read (`extract`). */
  action: RunAction.nullable(),
  extract: z.object({ variable: z.string(), query: z.string(), value: z.string() }).nullable().default(null),
  /** The run's frame the action was taken on (the screen before it), in the run folder. */
  frame: RelativePath,
  /** What the agent saw (its observation), or the step's description. */
  note: z.string().default(''),
  /** The element acted on, as the accessibility tree named it on the live screen. */
  element: ElementIdentity.optional(),
  /** The window the action's target was in, with its frame on the run's screen. */
  window: SourceWindow.optional(),
});
export type HealAction = z.infer<typeof HealAction>;

export const HealFile = z.object({
  version: z.literal(HEAL_VERSION),
  run_id: z.string(),
  created_at: z.iso.datetime(),
  /** SHA-256 of the workflow's schema.json and manifest.jsonl when the run started. */
  workflow_sha256: z.string(),
  manifest_sha256: z.string(),
  /** Param values of the run as shown (sensitive ones as `{name}`), to write typed values back as templates. */
  params: z.record(z.string(), z.string()),
  /** Steps whose target was re-found at a new place. */
  regrounded: z.array(z.int().nonnegative()),
  /** Subtasks (wholly or in part) done by the agent. */
  agent_subtasks: z.array(z.int().nonnegative()),
  actions: z.array(HealAction),
  /** The screen when the run ended, in the run folder. */
  final_frame: RelativePath,
});
export type HealFile = z.infer<typeof HealFile>;
