import type { Problem } from './errors.ts';
import { parseKeyChord } from './keys.ts';
import { findTemplateNames } from './templates.ts';
import { POINTER_STEP_TYPES, STEP_ACTION_TYPES, type StepActionType } from './workflow.ts';

/**
 * Cross-field rules of a workflow. They read the document loosely (after JSON parsing, before or
 * without a successful zod parse) so that one wrong type elsewhere does not hide them: the validator
 * reports zod's problems and these together.
 */

type Loose = Record<string, unknown>;
const asRecord = (value: unknown): Loose | undefined =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Loose) : undefined;
const asArray = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
const asString = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

interface ExtractDef {
  subtask: number;
  step: number;
  path: string;
}

interface StepView {
  path: string;
  subtask: number;
  position: number;
  raw: Loose;
  actionType: StepActionType | undefined;
  actionValue: unknown;
  variableName: unknown;
}

function collectSteps(subtasks: unknown[]): StepView[] {
  const views: StepView[] = [];
  for (const [s, subtaskRaw] of subtasks.entries()) {
    for (const [k, stepRaw] of asArray(asRecord(subtaskRaw)?.steps).entries()) {
      const raw = asRecord(stepRaw);
      if (!raw) continue;
      const type = asString(raw.action_type);
      views.push({
        path: `plan.subtasks[${s}].steps[${k}]`,
        subtask: s,
        position: k,
        raw,
        actionType: STEP_ACTION_TYPES.includes(type as StepActionType) ? (type as StepActionType) : undefined,
        actionValue: raw.action_value,
        variableName: raw.variable_name,
      });
    }
  }
  return views;
}

function checkIndices(subtasks: unknown[], steps: StepView[], problems: Problem[]): void {
  for (const [s, subtaskRaw] of subtasks.entries()) {
    const index = asRecord(subtaskRaw)?.subtask_i;
    if (typeof index === 'number' && index !== s) {
      problems.push({
        path: `plan.subtasks[${s}].subtask_i`,
        message: `is ${index} but this is subtask ${s}; subtasks are numbered from 0 in plan order`,
      });
    }
  }
  for (const [n, step] of steps.entries()) {
    const index = step.raw.i;
    if (typeof index === 'number' && index !== n) {
      problems.push({
        path: `${step.path}.i`,
        message: `is ${index} but this is step ${n} of the plan; steps are numbered from 0 across all subtasks`,
      });
    }
  }
}

function checkParams(params: unknown[], problems: Problem[]): Set<string> {
  const names = new Set<string>();
  for (const [p, paramRaw] of params.entries()) {
    const param = asRecord(paramRaw);
    const name = asString(param?.name);
    if (!param || !name) continue;
    if (names.has(name)) {
      problems.push({
        path: `task_params[${p}].name`,
        message: `"${name}" is declared twice; param names must be unique`,
      });
    }
    names.add(name);
    if (param.sensitive === true && param.example !== null && param.example !== undefined) {
      problems.push({
        path: `task_params[${p}].example`,
        message: `"${name}" is sensitive, so its value must not be stored here; set example to null (replay reads it from MIME_PARAM_${name.toUpperCase()} or asks for it)`,
      });
    }
  }
  return names;
}

function checkActionValues(step: StepView, problems: Problem[]): void {
  const { actionType: type, actionValue: value, variableName: variable, path } = step;
  if (!type) return;
  const hasValue = typeof value === 'string' && value.trim() !== '';
  if (POINTER_STEP_TYPES.has(type) && value !== null && value !== undefined) {
    problems.push({
      path: `${path}.action_value`,
      message: `must be null for ${type}; only TYPE (text), KEYPRESS (key chord) and EXTRACT (query) carry a value`,
    });
  }
  // TYPE and KEYPRESS may have no value (null): ai_mime writes them so on purpose, its validator saying
  // "Allow null action_value for TYPE/KEYPRESS (user may want model to infer)" (reflect/schema_utils.py,
  // validate_schema, ai_mime c1a50ba). Replay takes the recorded value, else the model decides it.
  if ((type === 'TYPE' || type === 'KEYPRESS') && value !== null && value !== undefined && !hasValue) {
    problems.push({
      path: `${path}.action_value`,
      message:
        type === 'TYPE'
          ? 'TYPE needs the text to type (a string, may hold {param}), or null to type what the recording typed'
          : 'KEYPRESS needs a key chord such as "enter" or "ctrl+a", or null to press what the recording pressed',
    });
  }
  if (type === 'KEYPRESS') {
    if (hasValue) {
      try {
        parseKeyChord(value);
      } catch (error) {
        problems.push({ path: `${path}.action_value`, message: (error as Error).message });
      }
    }
  }
  if (type === 'EXTRACT') {
    if (!hasValue) {
      problems.push({
        path: `${path}.action_value`,
        message: 'EXTRACT needs the query: what to read from the screen',
      });
    }
    if (typeof variable !== 'string' || variable === '') {
      problems.push({
        path: `${path}.variable_name`,
        message: 'EXTRACT needs a variable_name to store the value under',
      });
    }
  } else if (variable !== null && variable !== undefined) {
    problems.push({
      path: `${path}.variable_name`,
      message: `must be null for ${type}; only EXTRACT steps define variables`,
    });
  }
}

function collectExtracts(
  steps: StepView[],
  params: Set<string>,
  problems: Problem[],
): Map<string, ExtractDef> {
  const extracts = new Map<string, ExtractDef>();
  for (const step of steps) {
    const name = step.actionType === 'EXTRACT' ? asString(step.variableName) : undefined;
    if (!name) continue;
    const first = extracts.get(name);
    if (first) {
      problems.push({
        path: `${step.path}.variable_name`,
        message: `"${name}" is already extracted by ${first.path}; extract names must be unique`,
      });
      continue;
    }
    if (params.has(name)) {
      problems.push({
        path: `${step.path}.variable_name`,
        message: `"${name}" is also a task param; rename the extract or the param`,
      });
    }
    extracts.set(name, { subtask: step.subtask, step: step.position, path: step.path });
  }
  return extracts;
}

function checkDependencies(
  subtasks: unknown[],
  extracts: Map<string, ExtractDef>,
  problems: Problem[],
): void {
  for (const [s, subtaskRaw] of subtasks.entries()) {
    for (const [d, dep] of asArray(asRecord(subtaskRaw)?.dependencies).entries()) {
      if (typeof dep !== 'string') continue;
      const path = `plan.subtasks[${s}].dependencies[${d}]`;
      const def = extracts.get(dep);
      if (!def) {
        problems.push({
          path,
          message: `"${dep}" is not extracted by any EXTRACT step; name an upstream variable_name`,
        });
      } else if (def.subtask >= s) {
        const where = def.subtask === s ? 'this same subtask' : `a later subtask (${def.subtask})`;
        problems.push({
          path,
          message: `"${dep}" is extracted in ${where}; dependencies may only point to earlier subtasks`,
        });
      }
    }
  }
}

interface Scope {
  params: Set<string>;
  extracts: Map<string, ExtractDef>;
  subtasks: unknown[];
  constants: Readonly<Record<string, unknown>>;
}

/** Context of a workflow file that the rules read: values that lie beside it. */
export interface WorkflowContext {
  /** `optimized_plan.json`'s constants (ai_mime's Pass C), when that file lies beside schema.json. */
  constants?: Readonly<Record<string, unknown>>;
}

/**
 * What to say of an undeclared `{name}`; where a constant of the Pass C plan is named like it (ai_mime's
 * marketplace has a `{folder_name}` whose value is the constant `folder_name_pattern`), that it is there.
 */
function undeclaredMessage(name: string, constants: Readonly<Record<string, unknown>>): string {
  const key = Object.keys(constants).find((k) => k === name || k.startsWith(`${name}_`));
  if (key === undefined)
    return `{${name}} names no declared param and no extract; declare it in task_params or fix the name`;
  const value = JSON.stringify(constants[key]);
  const shown = value.length > 80 ? `${value.slice(0, 77)}...` : value;
  return `{${name}} names no declared param and no extract; its value is in optimized_plan.json's constants ("${key}": ${shown}), which schema.json does not read: declare a param "${name}" in task_params with that value as its example, or write the value in its place`;
}

/** Checks the templates of one text field; `at` is where the text stands (null: anywhere, top level). */
function checkTemplates(
  text: unknown,
  path: string,
  at: { subtask: number; step: number } | null,
  scope: Scope,
  problems: Problem[],
): void {
  if (typeof text !== 'string') return;
  for (const name of new Set(findTemplateNames(text))) {
    if (scope.params.has(name)) continue;
    // A constant of optimized_plan.json by that name: a run renders it (see applyOptimizedPlan).
    if (!scope.extracts.has(name) && Object.hasOwn(scope.constants, name)) continue;
    const def = scope.extracts.get(name);
    if (!def) {
      problems.push({
        path,
        message: undeclaredMessage(name, scope.constants),
      });
      continue;
    }
    if (!at) continue;
    const upstream = def.subtask < at.subtask || (def.subtask === at.subtask && def.step < at.step);
    if (!upstream) {
      problems.push({
        path,
        message: `{${name}} is extracted later (${def.path}); a template may only use values extracted before it`,
      });
      continue;
    }
    const deps = asArray(asRecord(scope.subtasks[at.subtask])?.dependencies);
    if (def.subtask < at.subtask && !deps.includes(name)) {
      problems.push({
        path,
        message: `{${name}} comes from subtask ${def.subtask}; add "${name}" to plan.subtasks[${at.subtask}].dependencies`,
      });
    }
  }
}

const STEP_TEXT_FIELDS = ['action_value', 'intent', 'expected_current_state'] as const;

/** Runs every cross-field rule on a parsed (possibly invalid) workflow document. */
export function checkWorkflowRules(document: unknown, context: WorkflowContext = {}): Problem[] {
  const problems: Problem[] = [];
  const root = asRecord(document);
  if (!root) return problems;
  const subtasks = asArray(asRecord(root.plan)?.subtasks);
  const steps = collectSteps(subtasks);
  checkIndices(subtasks, steps, problems);
  const params = checkParams(asArray(root.task_params), problems);
  for (const step of steps) checkActionValues(step, problems);
  const extracts = collectExtracts(steps, params, problems);
  checkDependencies(subtasks, extracts, problems);

  const scope: Scope = { params, extracts, subtasks, constants: context.constants ?? {} };
  for (const field of ['detailed_task_description', 'success_criteria'] as const) {
    checkTemplates(root[field], field, null, scope, problems);
  }
  for (const [s, subtaskRaw] of subtasks.entries()) {
    checkTemplates(
      asRecord(subtaskRaw)?.text,
      `plan.subtasks[${s}].text`,
      { subtask: s, step: -1 },
      scope,
      problems,
    );
  }
  for (const step of steps) {
    const at = { subtask: step.subtask, step: step.position };
    for (const field of STEP_TEXT_FIELDS)
      checkTemplates(step.raw[field], `${step.path}.${field}`, at, scope, problems);
    const target = asRecord(step.raw.target);
    for (const field of ['primary', 'fallback'] as const) {
      checkTemplates(target?.[field], `${step.path}.target.${field}`, at, scope, problems);
    }
  }
  checkSetupWindow(asRecord(asRecord(root.setup)?.window), problems);
  return problems;
}

/** The longest window-matching expression accepted (a window title is short; a long pattern is a mistake or an attack). */
const MAX_WINDOW_PATTERN = 200;

/** The setup window's title and class are regular expressions that compile. */
function checkSetupWindow(window: Loose | undefined, problems: Problem[]): void {
  for (const field of ['title', 'class'] as const) {
    const pattern = window?.[field];
    if (typeof pattern !== 'string') continue;
    const path = `setup.window.${field}`;
    if (pattern.length > MAX_WINDOW_PATTERN) {
      problems.push({
        path,
        message: `a window pattern has at most ${MAX_WINDOW_PATTERN} characters, got ${pattern.length}`,
      });
      continue;
    }
    try {
      new RegExp(pattern, 'u');
    } catch (error) {
      problems.push({ path, message: `not a valid regular expression: ${(error as Error).message}` });
    }
  }
}
