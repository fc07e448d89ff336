import { z } from 'zod';
import { PARAM_TYPES, StepActionType } from './workflow.ts';

/**
 * What the model returns in reflect. Every field is required (nullable where it may be empty) so the
 * same zod schema serves strict JSON-schema structured output.
 */

/** Pass A: one coordinate-free card per recorded step. */
export const StepCard = z.strictObject({
  i: z.int().nonnegative(),
  expected_current_state: z.string().min(1),
  intent: z.string().min(1),
  action_type: StepActionType,
  action_value: z.string().nullable(),
  target: z.strictObject({ primary: z.string().min(1), fallback: z.string().nullable() }),
  post_action: z.array(z.string()).min(1).max(2),
});
export type StepCard = z.infer<typeof StepCard>;

/** Pass B: the task-level compile from step summaries. */
export const PassBResult = z.strictObject({
  detailed_task_description: z.string().min(1),
  subtasks: z.array(z.string().min(1)).min(1),
  task_params: z.array(
    z.strictObject({
      name: z.string().min(1),
      type: z.enum(PARAM_TYPES),
      description: z.string(),
      example: z.string().nullable(),
      sensitive: z.boolean(),
      optional: z.boolean(),
    }),
  ),
  success_criteria: z.string().min(1),
  /**
   * The workflow's safety facts as the model judges them from the steps (null: the steps do not
   * tell); see safety.ts. ai_mime's Pass B has none of them: its marketplace states them per item.
   */
  requires_login: z.boolean().nullable(),
  side_effects: z.array(z.string().min(1).max(1000)).max(50).nullable(),
  stops_before_payment: z.boolean().nullable(),
  safety_notes: z.array(z.string().min(1).max(1000)).max(50),
  plan_step_updates: z.array(
    z.strictObject({
      i: z.int().nonnegative(),
      action_value: z.string().nullable(),
      subtask: z.string().min(1),
    }),
  ),
});
export type PassBResult = z.infer<typeof PassBResult>;

/** A Pass B checkpoint (schema.draft.json): one written before the safety facts were asked for reads with them unknown. */
export const PassBDraft = PassBResult.extend({
  requires_login: PassBResult.shape.requires_login.default(null),
  side_effects: PassBResult.shape.side_effects.default(null),
  stops_before_payment: PassBResult.shape.stops_before_payment.default(null),
  safety_notes: PassBResult.shape.safety_notes.default([]),
});
