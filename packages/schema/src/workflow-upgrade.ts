import type { Problem } from './errors.ts';

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

/**
 * Reads ai_mime v2 as its compiler writes it, in memory: step numbers made plan-wide (ai_mime numbers
 * them from 0 in each subtask); an EXTRACT's query taken from `additional_args.extract_query` (its
 * `action_value` holds the variable name); `details` dropped; a sensitive param's stored example
 * dropped with a warning; free-form param types (`date`, `str`) read as mime's; `{extract_N}` in the
 * text of the subtask that produces it de-templated, as ai_mime's own later compiler does.
 */
function upgradeAiMimeV2(input: Loose, subtasks: unknown[]): UpgradeResult {
  const warnings: Problem[] = [];
  const problems: Problem[] = [];
  let next = 0;
  const upgraded = subtasks.map((subtask, s) => {
    if (!isRecord(subtask) || !Array.isArray(subtask.steps)) return subtask;
    const produced = new Set<string>();
    const steps = subtask.steps.map((step, k) => {
      if (!isRecord(step)) return step;
      const { additional_args: extra, details: _details, extract_query: legacyQuery, ...rest } = step;
      const out: Loose = { ...rest, i: next++ };
      if (rest.action_type === 'EXTRACT') {
        const query =
          isRecord(extra) && typeof extra.extract_query === 'string' ? extra.extract_query : legacyQuery;
        const variable = typeof rest.variable_name === 'string' ? rest.variable_name : rest.action_value;
        if (typeof variable === 'string') {
          out.variable_name = variable;
          produced.add(variable);
        }
        if (typeof query === 'string' && query.trim() !== '') out.action_value = query.trim();
        else {
          // Its action_value is the variable's name, not a query: without one the step reads nothing.
          problems.push({
            path: `plan.subtasks[${s}].steps[${k}].additional_args.extract_query`,
            message:
              "an ai_mime EXTRACT step needs additional_args.extract_query, what to read from the screen (ai_mime's compiler always writes one); add it",
          });
        }
      }
      return out;
    });
    const text =
      typeof subtask.text === 'string'
        ? [...produced].reduce((t, name) => t.replaceAll(`{${name}}`, name), subtask.text)
        : subtask.text;
    return { ...subtask, text, steps };
  });
  const params = Array.isArray(input.task_params)
    ? input.task_params.map((param, k) => {
        if (!isRecord(param)) return param;
        const out: Loose = { ...param };
        if (typeof param.type === 'string') out.type = PARAM_TYPE_NAMES[param.type.toLowerCase()] ?? 'string';
        if (param.sensitive === true && param.example !== null && param.example !== undefined) {
          out.example = null;
          warnings.push({
            path: `task_params[${k}].example`,
            message: `"${String(param.name)}" is sensitive but the file stores its example in plain text: it was ignored; remove it from the file (and change that secret if it was real)`,
          });
        }
        return out;
      })
    : input.task_params;
  const { plan, ...rest } = input;
  const document = {
    ...rest,
    ...(params === undefined ? {} : { task_params: params }),
    version: 2,
    plan: { ...(plan as Loose), subtasks: upgraded },
  };
  return { document, from: 'ai_mime-v2', problems, warnings };
}
