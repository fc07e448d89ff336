import type { Problem } from './errors.ts';
import { TaskParam, Workflow, WorkflowStep, WorkflowSubtask } from './workflow.ts';

/**
 * Which layout a document had: mime's `v2`; ai_mime's v1 (string `subtasks`, `plan.steps[]`); or
 * ai_mime's v2 as its compiler writes it (`plan.subtasks[]` without a `version`, step numbers local
 * to each subtask, the EXTRACT query in `additional_args.extract_query`).
 */
export type WorkflowLayout = 'v2' | 'ai_mime-v1' | 'ai_mime-v2';

export interface UpgradeResult {
  /** The document in the v2 layout (not yet validated). */
  document: unknown;
  /** The layout the input had. */
  from: WorkflowLayout;
  /** Problems that stopped a part of the upgrade (the rest is still upgraded). */
  problems: Problem[];
  /** What the upgrade changed that the author should know (a stored secret dropped). */
  warnings: Problem[];
}

type Loose = Record<string, unknown>;
const isRecord = (value: unknown): value is Loose =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

function subtaskTexts(texts: unknown, problems: Problem[]): string[] {
  const order: string[] = [];
  if (!Array.isArray(texts)) return order;
  for (const [s, text] of texts.entries()) {
    if (typeof text === 'string') order.push(text);
    else problems.push({ path: `subtasks[${s}]`, message: 'an ai_mime subtask must be a string' });
  }
  return order;
}

/**
 * Groups v1 steps under their subtask text. With no top-level list (`fixed` false), subtasks are taken
 * from the steps in order of first appearance; a step without one stays with the step before it.
 */
function groupSteps(
  steps: unknown[],
  order: string[],
  fixed: boolean,
  problems: Problem[],
): Map<string, Loose[]> {
  const grouped = new Map<string, Loose[]>(order.map((text) => [text, []]));
  let previous: string | undefined;
  for (const [k, stepRaw] of steps.entries()) {
    if (!isRecord(stepRaw)) {
      problems.push({ path: `plan.steps[${k}]`, message: 'a step must be an object' });
      continue;
    }
    const { subtask, ...step } = stepRaw;
    const named = typeof subtask === 'string' ? subtask : previous;
    const text =
      named === undefined
        ? undefined
        : grouped.has(named)
          ? named
          : order.find((t) => t.trim() === named.trim());
    if (text !== undefined) {
      previous = text;
      grouped.get(text)?.push(step);
    } else if (named === undefined) {
      problems.push({
        path: `plan.steps[${k}].subtask`,
        message: 'missing; name the subtask this step belongs to',
      });
    } else if (fixed) {
      problems.push({
        path: `plan.steps[${k}].subtask`,
        message: 'matches none of the top-level subtasks; copy the subtask text exactly',
      });
    } else {
      order.push(named);
      grouped.set(named, [step]);
      previous = named;
    }
  }
  return grouped;
}

/**
 * Upgrades an ai_mime v1 workflow (top-level string `subtasks`, `plan.steps[]` each naming its
 * `subtask` by text) to v2 (`plan.subtasks[]` holding their steps). A v2 document is returned as it
 * is. Steps whose `subtask` matches no subtask are reported, never dropped silently.
 */
export function upgradeWorkflowDocument(input: unknown): UpgradeResult {
  if (!isRecord(input) || !isRecord(input.plan))
    return { document: input, from: 'v2', problems: [], warnings: [] };
  if (Array.isArray(input.plan.subtasks)) {
    return !('version' in input) && writtenByAiMime(input.plan.subtasks)
      ? upgradeAiMimeV2(input, input.plan.subtasks)
      : { document: input, from: 'v2', problems: [], warnings: [] };
  }
  if (!Array.isArray(input.plan.steps)) return { document: input, from: 'v2', problems: [], warnings: [] };
  const problems: Problem[] = [];
  const { subtasks: texts, plan, ...rest } = input;
  const order = subtaskTexts(texts, problems);
  const grouped = groupSteps(plan.steps as unknown[], order, order.length > 0, problems);
  const { steps: _steps, ...planRest } = plan;
  const document = {
    ...rest,
    version: 2,
    plan: {
      ...planRest,
      subtasks: order.map((text, s) => ({
        subtask_i: s,
        text,
        dependencies: [],
        steps: grouped.get(text) ?? [],
      })),
    },
  };
  return { document, from: 'ai_mime-v1', problems, warnings: [] };
}

/**
 * ai_mime's compiler gives every step `additional_args` (older files: `extract_query` or `details`)
 * and numbers steps from 0 in each subtask; mime numbers them across the plan.
 */
function writtenByAiMime(subtasks: unknown[]): boolean {
  const steps = subtasks.map((s) => (isRecord(s) && Array.isArray(s.steps) ? s.steps.filter(isRecord) : []));
  const marked = steps
    .flat()
    .some((step) => 'additional_args' in step || 'extract_query' in step || 'details' in step);
  const restarts = steps
    .filter((list) => list.length > 0)
    .slice(1)
    .some((list) => list[0]?.i === 0);
  return marked || restarts;
}

/** ai_mime's free-form param types as mime's. */
const PARAM_TYPE_NAMES: Record<string, string> = {
  str: 'string',
  string: 'string',
  text: 'string',
  int: 'integer',
  integer: 'integer',
  float: 'number',
  number: 'number',
  double: 'number',
  bool: 'boolean',
  boolean: 'boolean',
};

/** A free-form param type as mime's (`date` and other unknown names read as `string`). */
export function mimeParamType(type: string): string {
  return PARAM_TYPE_NAMES[type.toLowerCase()] ?? 'string';
}

/** Sets an own property, whatever its name (an assignment to `__proto__` would change the prototype). */
const setOwn = (target: Loose, key: string, value: unknown) =>
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });

/** Keys ai_mime itself writes or reads that mime keeps without using (no warning for them). */
const AI_MIME_KEYS = new Set(['additional_args', 'details', 'extract_query', 'default']);

/**
 * Splits an object into the fields mime models and the rest, which is kept as it is (in `kept`) for
 * a save in ai_mime's layout to write back; a key neither mime nor ai_mime knows gets a warning.
 */
function splitKnown(
  record: Loose,
  known: ReadonlySet<string>,
  path: string,
  warnings: Problem[],
): { fields: Loose; kept: Loose } {
  const fields: Loose = {};
  const kept: Loose = {};
  for (const [key, value] of Object.entries(record)) {
    // Own properties, even `__proto__` (left with the fields, where the schema refuses it by name).
    if ((known.has(key) && key !== 'kept') || key === '__proto__') setOwn(fields, key, value);
    else {
      setOwn(kept, key, value);
      if (!AI_MIME_KEYS.has(key))
        warnings.push({
          path: path ? `${path}.${key}` : key,
          message: 'a field neither mime nor ai_mime reads: kept as it is, and written back on save',
        });
    }
  }
  return { fields, kept };
}

const withKept = (fields: Loose, kept: Loose): Loose =>
  Object.keys(kept).length > 0 ? { ...fields, kept } : fields;

const STEP_KEYS = new Set(Object.keys(WorkflowStep.shape));
const SUBTASK_KEYS = new Set(Object.keys(WorkflowSubtask.shape));
const PARAM_KEYS = new Set(Object.keys(TaskParam.shape));
const ROOT_KEYS = new Set(Object.keys(Workflow.shape));

/**
 * One ai_mime step as mime's: numbered plan-wide; an EXTRACT's query taken from
 * `additional_args.extract_query` (or the older top-level `extract_query`), as ai_mime's
 * `reflect/schema_utils.py` `validate_schema` reads it (ai_mime c1a50ba); everything else kept.
 */
function upgradeAiMimeStep(step: Loose, i: number, path: string, problems: Problem[], warnings: Problem[]) {
  const { fields, kept } = splitKnown(step, STEP_KEYS, path, warnings);
  const out: Loose = { ...fields, i };
  if (fields.action_type === 'EXTRACT') {
    const args = isRecord(kept.additional_args) ? { ...kept.additional_args } : {};
    const query = typeof args.extract_query === 'string' ? args.extract_query : kept.extract_query;
    delete args.extract_query;
    delete kept.extract_query;
    kept.additional_args = args;
    const variable = typeof fields.variable_name === 'string' ? fields.variable_name : fields.action_value;
    if (typeof variable === 'string') out.variable_name = variable;
    if (typeof query === 'string' && query.trim() !== '') out.action_value = query;
    else {
      // Its action_value is the variable's name, not a query: without one the step reads nothing.
      problems.push({
        path: `${path}.additional_args.extract_query`,
        message:
          "an ai_mime EXTRACT step needs additional_args.extract_query, what to read from the screen (ai_mime's compiler always writes one); add it",
      });
    }
  }
  return withKept(out, kept);
}

/**
 * One ai_mime param as mime's: a free-form type (`date`, `str`) read as mime's, a number or true/false
 * example read as its text (ai_mime's replay does `str(example)`: src/ai_mime/replay/engine.py at 012e1ec), a `default`
 * read as mime's (the value a run uses when given none), a sensitive param's stored example dropped;
 * the original type, example and `default` kept.
 */
function upgradeAiMimeParam(param: Loose, path: string, warnings: Problem[]): Loose {
  const { fields, kept } = splitKnown(param, PARAM_KEYS, path, warnings);
  const name = String(param.name);
  if (typeof param.type === 'string') {
    fields.type = mimeParamType(param.type);
    if (fields.type !== param.type) kept.type = param.type;
  }
  const scalar = (v: unknown) => typeof v === 'number' || typeof v === 'boolean';
  if (scalar(param.example)) {
    fields.example = String(param.example);
    kept.example = param.example;
    const kind = typeof param.example === 'boolean' ? 'boolean' : 'number';
    const declared = String(fields.type ?? 'string');
    if (!(kind === 'boolean' ? declared === 'boolean' : declared === 'number' || declared === 'integer'))
      warnings.push({
        path: `${path}.example`,
        message: `"${name}" is a ${declared} but its example is the ${kind} ${JSON.stringify(param.example)}: it is read as the text "${fields.example}"; write it as a string or change the type`,
      });
  }
  // A default is mime's too: the value a run uses when given none (issue 35's one explicit fill-in).
  // Kept as ai_mime wrote it (a number stays a number); one that is not a value is left to ai_mime.
  if (param.default !== null && param.default !== undefined) {
    if (scalar(param.default) || typeof param.default === 'string') {
      fields.default = String(param.default);
      if (typeof param.default !== 'string') kept.default = param.default;
    } else {
      delete fields.default;
      kept.default = param.default;
      warnings.push({
        path: `${path}.default`,
        message: `"${name}" has a default that is not a text, number or true/false: mime ignores it; write it as one of those`,
      });
    }
  }
  if (param.sensitive === true && fields.example !== null && fields.example !== undefined) {
    fields.example = null;
    delete kept.example;
    warnings.push({
      path: `${path}.example`,
      message: `"${name}" is sensitive but the file stores its example in plain text: it was ignored; remove it from the file (and change that secret if it was real)`,
    });
  }
  return withKept(fields, kept);
}

/**
 * Reads ai_mime v2 as its compiler writes it, in memory: step numbers made plan-wide (ai_mime numbers
 * them from 0 in each subtask); an EXTRACT's query taken from `additional_args.extract_query` (its
 * `action_value` holds the variable name); params as {@link upgradeAiMimeParam} reads them;
 * `{extract_N}` in the text of the subtask that produces it de-templated, as ai_mime's own later
 * compiler does. Whatever mime does not use is kept (`kept`) for {@link serializeWorkflow} to write
 * back in this layout.
 */
function upgradeAiMimeV2(input: Loose, subtasks: unknown[]): UpgradeResult {
  const warnings: Problem[] = [];
  const problems: Problem[] = [];
  let next = 0;
  const upgraded = subtasks.map((subtaskRaw, s) => {
    if (!isRecord(subtaskRaw) || !Array.isArray(subtaskRaw.steps)) return subtaskRaw;
    const path = `plan.subtasks[${s}]`;
    const { fields: subtask, kept } = splitKnown(subtaskRaw, SUBTASK_KEYS, path, warnings);
    const produced = new Set<string>();
    const steps = subtaskRaw.steps.map((step, k) => {
      if (!isRecord(step)) return step;
      const out = upgradeAiMimeStep(step, next++, `${path}.steps[${k}]`, problems, warnings);
      if (out.action_type === 'EXTRACT' && typeof out.variable_name === 'string')
        produced.add(out.variable_name);
      return out;
    });
    const text =
      typeof subtask.text === 'string'
        ? [...produced].reduce((t, name) => t.replaceAll(`{${name}}`, name), subtask.text)
        : subtask.text;
    return withKept({ ...subtask, text, steps }, kept);
  });
  const params = Array.isArray(input.task_params)
    ? input.task_params.map((param, k) =>
        isRecord(param) ? upgradeAiMimeParam(param, `task_params[${k}]`, warnings) : param,
      )
    : input.task_params;
  const { fields: root, kept } = splitKnown(input, ROOT_KEYS, '', warnings);
  const document = withKept(
    {
      ...root,
      ...(params === undefined ? {} : { task_params: params }),
      version: 2,
      plan: { ...(input.plan as Loose), subtasks: upgraded },
    },
    kept,
  );
  return { document, from: 'ai_mime-v2', problems, warnings };
}
