/**
 * Materialization (no model): the values of a run's params, and the workflow with `{param}` templates
 * rendered. Sensitive params are never rendered: their `{name}` stays in every text, so whatever is
 * written or shown (and what the model reads) holds the placeholder; the real value is kept apart and
 * only typed.
 */
import {
  renderTemplate,
  splitTemplate,
  type TaskParam,
  type Workflow,
  type WorkflowStep,
} from '@mime-desktop/schema';
import { type ParamProblems, ParamsError } from '../errors.ts';
import { TypedText } from './typed-text.ts';

/** Where a param's value came from. */
export type ParamSource = 'override' | 'default' | 'example' | 'secret' | 'unset';

export interface ResolvedParam {
  name: string;
  sensitive: boolean;
  source: ParamSource;
  /** The value as artifacts show it: the value itself, or `{name}` for a sensitive param. */
  display: string;
}

export interface MaterializedWorkflow {
  /** The workflow with every non-sensitive `{param}` rendered; sensitive ones stay `{name}`. */
  workflow: Workflow;
  params: ResolvedParam[];
  /** Real values of the sensitive params, by name: for typing only, never written or shown. */
  secrets: ReadonlyMap<string, string>;
  /** What a typing action types: secrets only where the workflow (or the agent itself) puts them. */
  typing: SecretTyping;
}

/**
 * A part of a step's typed value: text typed as it is, the place of a sensitive param, or of another
 * name (an upstream extract's value, known only at run time).
 */
type TypedPart = string | { secret: string } | { extract: string };

/**
 * What typing types. A step's value is rendered in one pass: a value given for a param is typed as it
 * is, braces included, so a `{password}` in a `--param` or rows value never brings the secret; only
 * the workflow's own `{password}` does. The agent's own `{name}` in a typing action does too (it
 * reads the placeholders in its task and cannot know the value).
 */
export class SecretTyping {
  readonly #secrets: ReadonlyMap<string, string>;
  readonly #steps = new WeakMap<WorkflowStep, readonly TypedPart[]>();

  constructor(secrets: ReadonlyMap<string, string>) {
    this.#secrets = secrets;
  }

  /** Notes the parts of a rendered step's value (materialization does). */
  noteStep(step: WorkflowStep, parts: readonly TypedPart[]): void {
    this.#steps.set(step, parts);
  }

  /**
   * What a step types: its value with the values extracted so far in place of their `{name}`,
   * rendered in the same one pass as its params (an extracted value is never read for templates
   * again), shown with its secrets as `{name}` and typed with them; null for a step without a value.
   */
  ofStep(step: WorkflowStep, extracted: ReadonlyMap<string, string> = new Map()): TypedText | null {
    const parts = this.#steps.get(step);
    if (!parts) return step.action_value === null ? null : new TypedText(step.action_value);
    const typed = parts.map((p) =>
      typeof p === 'object' && 'secret' in p ? (this.#secrets.get(p.secret) ?? '') : shownPart(p, extracted),
    );
    return new TypedText(parts.map((p) => shownPart(p, extracted)).join(''), typed.join(''));
  }

  /** What the agent's typing action types: its `{name}` of a sensitive param is the value. */
  ofAgent(text: string): TypedText {
    return new TypedText(text, renderTemplate(text, Object.fromEntries(this.#secrets)));
  }
}

export interface MaterializeOptions {
  /** Values given for this run (`--param`, a params file), by param name; they win over defaults. Default none. */
  overrides?: Readonly<Record<string, string>>;
  /**
   * Give a param with no value and no `default` its recorded example (`--use-examples`). Default false:
   * such a param is missing unless it is optional, so a run never types a recorded value nobody chose.
   */
  useExamples?: boolean;
  /** Values of sensitive params collected from the environment or a prompt, by name. Default none. */
  secrets?: Readonly<Record<string, string>>;
}

/** The environment variable a sensitive param is read from: `MIME_PARAM_<NAME>`. */
export function secretEnvName(name: string): string {
  return `MIME_PARAM_${name.toUpperCase()}`;
}

/** `{name}`: how a sensitive param appears everywhere. */
export function placeholderOf(name: string): string {
  return `{${name}}`;
}

/** Checks a value against the param's type; returns the normalized value or a reason. */
function checkType(
  param: TaskParam,
  value: string,
): { ok: true; value: string } | { ok: false; reason: string } {
  const text = value.trim();
  switch (param.type) {
    case 'number':
      return text !== '' && Number.isFinite(Number(text))
        ? { ok: true, value: text }
        : { ok: false, reason: `expected a number, got "${value}"` };
    case 'integer':
      return /^[+-]?\d+$/.test(text)
        ? { ok: true, value: text }
        : { ok: false, reason: `expected an integer, got "${value}"` };
    case 'boolean':
      return /^(true|false)$/i.test(text)
        ? { ok: true, value: text.toLowerCase() }
        : { ok: false, reason: `expected true or false, got "${value}"` };
    case 'string':
      return { ok: true, value };
  }
}

/** The value of one param, or why it has none. */
export type ParamValue =
  | { kind: 'value'; value: string; source: ParamSource }
  | { kind: 'unset' }
  | { kind: 'invalid'; reason: string };

/** A param's value when the run gives none: its explicit `default`, else (when asked) its recorded example. */
function fallbackOf(param: TaskParam, useExamples: boolean): { raw: string; source: ParamSource } | null {
  if (param.sensitive) return null;
  if (param.default !== undefined && param.default !== null) return { raw: param.default, source: 'default' };
  if (useExamples && param.example !== null) return { raw: param.example, source: 'example' };
  return null;
}

/** A param's value from `values` (given, else its fallback): each param is resolved once per run. */
function resolveParam(
  param: TaskParam,
  values: Readonly<Record<string, string>>,
  useExamples: boolean,
): ParamValue {
  const { name, sensitive } = param;
  // Own values only: a param named `constructor` or `__proto__` is not the object's prototype's.
  const given = Object.hasOwn(values, name) ? values[name] : undefined;
  const fallback = given === undefined ? fallbackOf(param, useExamples) : null;
  const raw = given ?? fallback?.raw;
  if (raw === undefined) return { kind: 'unset' };
  const checked = checkType(param, raw);
  if (!checked.ok) {
    // Never echo a secret, even a mistyped one.
    return { kind: 'invalid', reason: sensitive ? `expected a value of type ${param.type}` : checked.reason };
  }
  const source: ParamSource = fallback?.source ?? (sensitive ? 'secret' : 'override');
  return { kind: 'value', value: checked.value, source };
}

/**
 * A run's params, each resolved once ({@link checkParams}); the sensitive ones given no value wait
 * for their secret (`pending`), collected before {@link materializeParams} renders the workflow.
 */
export interface RunParams {
  readonly workflow: Workflow;
  /** The value of every param resolved so far (unset: an optional param with none), by name. */
  readonly resolved: ReadonlyMap<string, Exclude<ParamValue, { kind: 'invalid' }>>;
  /** Sensitive params with no value yet: their secrets are collected (environment, prompt). */
  readonly pending: readonly TaskParam[];
}

/** Sorts params' values into a {@link RunParams} and the problems with them. */
function sortValues(
  workflow: Workflow,
  values: ReadonlyMap<string, ParamValue>,
  problems: ParamProblems,
  pendingOk: boolean,
): RunParams {
  const resolved = new Map<string, Exclude<ParamValue, { kind: 'invalid' }>>();
  const pending: TaskParam[] = [];
  for (const param of workflow.task_params) {
    const value = values.get(param.name);
    if (value === undefined) continue;
    if (value.kind === 'invalid') {
      problems.invalid.push(`${param.name}: ${value.reason}`);
    } else if (value.kind === 'unset' && param.sensitive && pendingOk) {
      pending.push(param);
    } else {
      if (value.kind === 'unset' && !param.optional) problems.missing.push(param.name);
      resolved.set(param.name, value);
    }
  }
  if (problems.missing.length + problems.unknown.length + problems.invalid.length > 0) {
    throw new ParamsError(problems);
  }
  return { workflow, resolved, pending };
}

/**
 * Resolves each param of a run once (a given value, else its `default`, else with `useExamples` its
 * example) and throws {@link ParamsError} listing every unknown name and every missing or mistyped
 * param. Without `secrets` (not collected yet: nobody is asked for a secret for a run that cannot
 * start) a sensitive param given no value is `pending`, not missing; with them, it takes its secret.
 */
export function checkParams(
  workflow: Workflow,
  overrides: Readonly<Record<string, string>>,
  options: { useExamples?: boolean; secrets?: Readonly<Record<string, string>> } = {},
): RunParams {
  const known = workflow.task_params.map((p) => p.name);
  const unknown = Object.keys(overrides).filter((name) => !known.includes(name));
  const values = new Map<string, ParamValue>();
  for (const param of workflow.task_params) {
    const fromSecrets = param.sensitive && options.secrets && Object.hasOwn(options.secrets, param.name);
    const source = fromSecrets && options.secrets ? options.secrets : overrides;
    values.set(param.name, resolveParam(param, source, options.useExamples === true));
  }
  return sortValues(workflow, values, { missing: [], unknown, invalid: [], known }, !options.secrets);
}

/**
 * The workflow of a run rendered with its params ({@link checkParams}), the pending sensitive ones
 * taking `secrets` (collected from the environment or a prompt, by name). Throws {@link ParamsError}
 * for a required one still without a value, or a mistyped one. Optional params without a value
 * render as the empty string.
 */
export function materializeParams(
  given: RunParams,
  secrets: Readonly<Record<string, string>> = {},
): MaterializedWorkflow {
  const { workflow } = given;
  const values = new Map<string, ParamValue>(given.resolved);
  for (const param of given.pending) values.set(param.name, resolveParam(param, secrets, false));
  const known = workflow.task_params.map((p) => p.name);
  const { resolved } = sortValues(workflow, values, { missing: [], unknown: [], invalid: [], known }, false);
  const rendered: Record<string, string> = Object.create(null);
  const secretValues = new Map<string, string>();
  const params: ResolvedParam[] = [];
  for (const { name, sensitive } of workflow.task_params) {
    const value = resolved.get(name);
    const text = value?.kind === 'value' ? value.value : '';
    if (!sensitive) rendered[name] = text;
    else if (value?.kind === 'value') secretValues.set(name, text);
    params.push({
      name,
      sensitive,
      source: value?.kind === 'value' ? value.source : 'unset',
      display: sensitive ? placeholderOf(name) : text,
    });
  }
  const typing = new SecretTyping(secretValues);
  const sensitive = new Set(workflow.task_params.filter((p) => p.sensitive).map((p) => p.name));
  const out = renderWorkflow(workflow, rendered);
  out.plan.subtasks.forEach((subtask, s) => {
    subtask.steps.forEach((step, i) => {
      const template = workflow.plan.subtasks[s]?.steps[i]?.action_value;
      if (typeof template === 'string') typing.noteStep(step, typedParts(template, rendered, sensitive));
    });
  });
  return { workflow: out, params, secrets: secretValues, typing };
}

/**
 * {@link checkParams} and {@link materializeParams} in one, for values and secrets known together:
 * every problem is listed at once.
 */
export function materializeWorkflow(
  workflow: Workflow,
  options: MaterializeOptions = {},
): MaterializedWorkflow {
  const { overrides = {}, secrets = {}, useExamples } = options;
  return materializeParams(checkParams(workflow, overrides, { useExamples, secrets }));
}

/** A part as artifacts show it: a secret as `{name}`, an extract's value once known, else `{name}`. */
function shownPart(part: TypedPart, extracted: ReadonlyMap<string, string>): string {
  if (typeof part === 'string') return part;
  if ('secret' in part) return placeholderOf(part.secret);
  return extracted.get(part.extract) ?? placeholderOf(part.extract);
}

/**
 * A template split in one pass: param values as text (never read again), sensitive params and other
 * names (extracts) as places.
 */
function typedParts(
  template: string,
  values: Readonly<Record<string, string>>,
  sensitive: ReadonlySet<string>,
): TypedPart[] {
  return splitTemplate(template).map((part) => {
    if ('text' in part) return part.text;
    if (sensitive.has(part.name)) return { secret: part.name };
    return Object.hasOwn(values, part.name) ? (values[part.name] as string) : { extract: part.name };
  });
}

/** The workflow with `{name}` replaced in every text a person or the model reads. */
export function renderWorkflow(workflow: Workflow, values: Readonly<Record<string, string>>): Workflow {
  const render = (text: string) => renderTemplate(text, values);
  const renderStep = (step: WorkflowStep): WorkflowStep => ({
    ...step,
    expected_current_state: render(step.expected_current_state),
    intent: render(step.intent),
    target: {
      ...step.target,
      primary: render(step.target.primary),
      fallback: step.target.fallback === null ? null : render(step.target.fallback),
    },
    action_value: step.action_value === null ? null : render(step.action_value),
    post_action: step.post_action.map(render),
  });
  return {
    ...workflow,
    task_name: render(workflow.task_name),
    task_description_user: render(workflow.task_description_user),
    detailed_task_description: render(workflow.detailed_task_description),
    success_criteria: render(workflow.success_criteria),
    plan: {
      subtasks: workflow.plan.subtasks.map((subtask) => ({
        ...subtask,
        text: render(subtask.text),
        steps: subtask.steps.map(renderStep),
      })),
    },
  };
}
