import type { TaskParam, Workflow, WorkflowStep, WorkflowSubtask } from './workflow.ts';
import { mimeParamType } from './workflow-upgrade.ts';

/**
 * Writing a workflow back in ai_mime's v2 layout (the one its compiler writes and
 * `reflect/schema_utils.py` `validate_schema` checks, prakhar1114/ai_mime c1a50ba), for a file that
 * came in that layout: no `version` or `$schema`; step `i` from 0 in each subtask; an EXTRACT's
 * `action_value` is its variable name and its query is `additional_args.extract_query`; every step has
 * `additional_args`; a param's original type and number example come back while they still say the
 * same; an empty `post_action` as ai_mime's "not relevant"; every field kept on reading (`kept`) is
 * written back where it was. mime's own fields (a step's
 * recorded `source`, `setup`) are written too: ai_mime's reader ignores keys it does not know.
 */

type Loose = Record<string, unknown>;

/** The kept original of a field, when it still says what mime's value says. */
function original(kept: Loose | undefined, key: string, same: (old: unknown) => boolean): unknown {
  return kept !== undefined && key in kept && same(kept[key]) ? kept[key] : undefined;
}

/**
 * A param's example as ai_mime had it: a number (or true/false) stays one while the text mime holds
 * still reads as one, so an edited example of an `integer` param is written as a number again.
 */
function typedExample(old: unknown, example: string | null): unknown {
  if (example === null) return undefined;
  if (typeof old === 'number' && example.trim() !== '' && Number.isFinite(Number(example)))
    return Number(example);
  if (typeof old === 'boolean' && (example === 'true' || example === 'false')) return example === 'true';
  return undefined;
}

function aiMimeParam(param: TaskParam): Loose {
  const { kept, ...fields } = param;
  const { type: _type, example: _example, ...rest } = kept ?? {};
  const type = original(kept, 'type', (old) => typeof old === 'string' && mimeParamType(old) === param.type);
  const example = typedExample(kept?.example, param.example);
  return {
    ...fields,
    ...(type === undefined ? {} : { type }),
    ...(example === undefined ? {} : { example }),
    ...rest,
  };
}

function aiMimeStep(step: WorkflowStep, i: number): Loose {
  const { kept, i: _plan, source, type_delay_ms, ...fields } = step;
  const { additional_args: keptArgs, ...rest } = kept ?? {};
  const args: Loose =
    keptArgs !== null && typeof keptArgs === 'object' && !Array.isArray(keptArgs)
      ? { ...(keptArgs as Loose) }
      : {};
  const extract = step.action_type === 'EXTRACT';
  if (extract) args.extract_query = step.action_value;
  return {
    i,
    expected_current_state: fields.expected_current_state,
    intent: fields.intent,
    action_type: fields.action_type,
    action_value: extract ? step.variable_name : step.action_value,
    target: fields.target,
    // ai_mime requires at least one line; it writes "not relevant" where nothing follows (its EXTRACTs).
    post_action: fields.post_action.length > 0 ? fields.post_action : ['not relevant'],
    variable_name: step.variable_name,
    additional_args: args,
    ...(source === null ? {} : { source }),
    ...(type_delay_ms === undefined ? {} : { type_delay_ms }),
    ...rest,
  };
}

function aiMimeSubtask(subtask: WorkflowSubtask): Loose {
  const { kept, steps, ...fields } = subtask;
  return { ...fields, steps: steps.map((step, k) => aiMimeStep(step, k)), ...kept };
}

/** The document of a workflow in ai_mime's v2 layout. */
export function toAiMimeDocument(workflow: Workflow): Loose {
  const { $schema: _schema, version: _version, kept, plan, setup, ...fields } = workflow;
  const safety = {
    requires_login: fields.requires_login,
    side_effects: fields.side_effects,
    stops_before_payment: fields.stops_before_payment,
    safety_notes: fields.safety_notes,
  };
  return {
    task_name: fields.task_name,
    task_description_user: fields.task_description_user,
    detailed_task_description: fields.detailed_task_description,
    task_params: fields.task_params.map(aiMimeParam),
    success_criteria: fields.success_criteria,
    ...(setup === undefined ? {} : { setup }),
    ...Object.fromEntries(Object.entries(safety).filter(([, value]) => value !== undefined)),
    plan: { ...plan, subtasks: plan.subtasks.map(aiMimeSubtask) },
    ...kept,
  };
}
