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

/** A part of a step's typed value: text typed as it is, or the place of a sensitive param. */
type TypedPart = string | { secret: string };

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

  /** What a step types for `text` (its rendered value): literal unless the workflow put a secret there. */
  ofStep(step: WorkflowStep, text: string): string {
    const parts = this.#steps.get(step);
    if (!parts || parts.map((p) => (typeof p === 'string' ? p : placeholderOf(p.secret))).join('') !== text) {
      return text;
    }
    return parts.map((p) => (typeof p === 'string' ? p : (this.#secrets.get(p.secret) ?? ''))).join('');
  }

  /** What the agent's typing action types: its `{name}` of a sensitive param is the value. */
  ofAgent(text: string): string {
    return renderTemplate(text, Object.fromEntries(this.#secrets));
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
type ParamValue =
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

function resolveParam(
  param: TaskParam,
  overrides: Readonly<Record<string, string>>,
  secrets: Readonly<Record<string, string>>,
  useExamples: boolean,
): ParamValue {
  const { name, sensitive } = param;
  // Own values only: a param named `constructor` or `__proto__` is not the object's prototype's.
  const own = (values: Readonly<Record<string, string>>) =>
    Object.hasOwn(values, name) ? values[name] : undefined;
  const given = sensitive ? (own(secrets) ?? own(overrides)) : own(overrides);
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

interface ResolvedParams {
  params: ResolvedParam[];
  values: Record<string, string>;
  secrets: Map<string, string>;
  problems: ParamProblems;
}

/** Every param's value and every problem; with `secretsKnown: false`, unset sensitive params are not missing yet. */
function resolveParams(
  workflow: Workflow,
  options: MaterializeOptions,
  secretsKnown: boolean,
): ResolvedParams {
  const overrides = options.overrides ?? {};
  const known = workflow.task_params.map((p) => p.name);
  const unknown = Object.keys(overrides).filter((name) => !known.includes(name));
  const result: ResolvedParams = {
    params: [],
    values: Object.create(null),
    secrets: new Map(),
    problems: { missing: [], unknown, invalid: [], known },
  };
  for (const param of workflow.task_params) {
    const { name, sensitive } = param;
    const resolved = resolveParam(param, overrides, options.secrets ?? {}, options.useExamples === true);
    if (resolved.kind === 'invalid') {
      result.problems.invalid.push(`${name}: ${resolved.reason}`);
      continue;
    }
    const pending = sensitive && !secretsKnown;
    if (resolved.kind === 'unset' && !param.optional && !pending) result.problems.missing.push(name);
    const value = resolved.kind === 'value' ? resolved.value : '';
    if (!sensitive) result.values[name] = value;
    else if (resolved.kind === 'value') result.secrets.set(name, value);
    result.params.push({
      name,
      sensitive,
      source: resolved.kind === 'value' ? resolved.source : 'unset',
      display: sensitive ? placeholderOf(name) : value,
    });
  }
  return result;
}

function throwProblems({ problems }: ResolvedParams): void {
  if (problems.missing.length + problems.unknown.length + problems.invalid.length > 0) {
    throw new ParamsError(problems);
  }
}

/**
 * Checks the values given for a run before sensitive values are collected (so nobody is asked for a
 * secret for a run that cannot start): throws {@link ParamsError} for unknown names and for missing
 * or mistyped params other than the sensitive ones.
 */
export function checkParams(
  workflow: Workflow,
  overrides: Readonly<Record<string, string>>,
  options: { useExamples?: boolean } = {},
): void {
  throwProblems(resolveParams(workflow, { overrides, useExamples: options.useExamples }, false));
}

/**
 * Resolves every param (override, else its `default`, else with `useExamples` its example; sensitive
 * ones from `secrets`, else an override) and
 * renders the workflow. Throws {@link ParamsError} listing every missing, unknown and mistyped param.
 * Optional params without a value render as the empty string.
 */
export function materializeWorkflow(
  workflow: Workflow,
  options: MaterializeOptions = {},
): MaterializedWorkflow {
  const resolved = resolveParams(workflow, options, true);
  throwProblems(resolved);
  const typing = new SecretTyping(resolved.secrets);
  const sensitive = new Set(workflow.task_params.filter((p) => p.sensitive).map((p) => p.name));
  const rendered = renderWorkflow(workflow, resolved.values);
  rendered.plan.subtasks.forEach((subtask, s) => {
    subtask.steps.forEach((step, i) => {
      const template = workflow.plan.subtasks[s]?.steps[i]?.action_value;
      if (typeof template === 'string') {
        typing.noteStep(step, typedParts(template, resolved.values, sensitive));
      }
    });
  });
  return { workflow: rendered, params: resolved.params, secrets: resolved.secrets, typing };
}

/** A template split in one pass: param values as text (never read again), sensitive params as places. */
function typedParts(
  template: string,
  values: Readonly<Record<string, string>>,
  sensitive: ReadonlySet<string>,
): TypedPart[] {
  return splitTemplate(template).map((part) => {
    if ('text' in part) return part.text;
    if (sensitive.has(part.name)) return { secret: part.name };
    return Object.hasOwn(values, part.name) ? (values[part.name] as string) : placeholderOf(part.name);
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
