import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import type { Problem } from './errors.ts';
import { readJsonFile } from './json-files.ts';
import { IDENTIFIER, renderTemplate } from './templates.ts';
import { listSteps, type TaskParam, type Workflow, type WorkflowStep } from './workflow.ts';
import { zodProblems } from './zod-problems.ts';

/**
 * `optimized_plan.json`, ai_mime's Pass C, beside a workflow's schema.json (the marketplace's
 * workflows carry one; see ai_mime's tests/test_pass_c_optimizer.py at c1a50ba for its shape): the
 * workflow's inputs with their defaults and whether each is required, constants its steps use (a
 * folder URL, a file path), its steps with success criteria and executors, and the filesystem paths
 * the workflow may touch. mime reads it loosely: every field optional, unknown fields kept, and the
 * file itself never rewritten.
 */
const FilesystemRoot = z.looseObject({
  path: z.string(),
  reason: z.string().optional(),
  approval_required: z.boolean().optional(),
});

export const OptimizedPlanInput = z.looseObject({
  name: z.string(),
  description: z.string().optional(),
  required: z.boolean().optional(),
  default: z.unknown().optional(),
});
export type OptimizedPlanInput = z.infer<typeof OptimizedPlanInput>;

export const OptimizedPlanStep = z.looseObject({
  id: z.string().optional(),
  title: z.string().optional(),
  source_subtask_ids: z.array(z.int().nonnegative()).optional(),
  executor: z.string().optional(),
  goal: z.string().optional(),
  inputs: z.array(z.string()).optional(),
  outputs: z.array(z.string()).optional(),
  success_criteria: z.string().optional(),
  fallback: z.string().nullable().optional(),
});
export type OptimizedPlanStep = z.infer<typeof OptimizedPlanStep>;

export const OptimizedPlan = z.looseObject({
  version: z.number().optional(),
  workflow_goal: z.string().optional(),
  user_filesystem_access: z
    .looseObject({
      readable_roots: z.array(FilesystemRoot).default([]),
      writable_roots: z.array(FilesystemRoot).default([]),
    })
    .optional(),
  inputs: z.array(OptimizedPlanInput).default([]),
  constants: z.record(z.string(), z.unknown()).default({}),
  steps: z.array(OptimizedPlanStep).default([]),
});
export type OptimizedPlan = z.infer<typeof OptimizedPlan>;

export const OPTIMIZED_PLAN_FILE = 'optimized_plan.json';

/** What reading a workflow's optimized_plan.json gave: the plan (null when absent or unreadable). */
export interface OptimizedPlanRead {
  plan: OptimizedPlan | null;
  /** Why the file was not used, when it exists but does not read (a warning: schema.json still works). */
  warnings: Problem[];
}

/**
 * Reads `<workflowDir>/optimized_plan.json` when there is one. An absent file is no plan; a broken
 * one is a warning, never an error: the workflow runs from schema.json alone. ai_mime's marketplace
 * writes `{}` for a workflow without a Pass C plan (its `--empty-plan`), which reads as an empty plan.
 */
export async function readOptimizedPlan(workflowDir: string): Promise<OptimizedPlanRead> {
  const file = join(workflowDir, OPTIMIZED_PLAN_FILE);
  if (!existsSync(file)) return { plan: null, warnings: [] };
  let raw: unknown;
  try {
    raw = await readJsonFile(file);
  } catch (error) {
    return {
      plan: null,
      warnings: [{ path: OPTIMIZED_PLAN_FILE, message: `not read: ${(error as Error).message}` }],
    };
  }
  const parsed = OptimizedPlan.safeParse(raw);
  if (parsed.success) return { plan: parsed.data, warnings: [] };
  return {
    plan: null,
    warnings: zodProblems(parsed.error, [OPTIMIZED_PLAN_FILE]).map((p) => ({
      path: p.path,
      message: `${p.message} (the file is not used)`,
    })),
  };
}

/** A constant's value as text for a template (a string as it is, anything else as JSON). */
const constantText = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value));

/** The names of the constants a template may use: those no param and no extract of the workflow claims. */
export function templateConstants(workflow: Workflow, plan: OptimizedPlan): Record<string, string> {
  const claimed = new Set([
    ...workflow.task_params.map((p) => p.name),
    ...listSteps(workflow).flatMap(({ step }) => (step.variable_name ? [step.variable_name] : [])),
  ]);
  return Object.fromEntries(
    Object.entries(plan.constants)
      .filter(([name]) => IDENTIFIER.test(name) && !claimed.has(name))
      .map(([name, value]) => [name, constantText(value)]),
  );
}

/** Every text of a workflow with `change` applied (the texts templates may stand in). */
function mapTexts(workflow: Workflow, change: (text: string) => string): Workflow {
  const step = (s: WorkflowStep): WorkflowStep => ({
    ...s,
    expected_current_state: change(s.expected_current_state),
    intent: change(s.intent),
    target: {
      ...s.target,
      primary: change(s.target.primary),
      fallback: s.target.fallback && change(s.target.fallback),
    },
    action_value: s.action_value === null ? null : change(s.action_value),
    post_action: s.post_action.map(change),
  });
  return {
    ...workflow,
    detailed_task_description: change(workflow.detailed_task_description),
    success_criteria: change(workflow.success_criteria),
    plan: {
      ...workflow.plan,
      subtasks: workflow.plan.subtasks.map((s) => ({ ...s, text: change(s.text), steps: s.steps.map(step) })),
    },
  };
}

/**
 * A workflow as its Pass C plan completes it, for a run (never saved: schema.json stays as it is): a
 * param without an example takes its input's `default`, a param whose input is not `required` is
 * optional, and a `{name}` that names a constant (and no param or extract) is that constant's value.
 */
export function applyOptimizedPlan(workflow: Workflow, plan: OptimizedPlan): Workflow {
  const inputs = new Map(plan.inputs.map((input) => [input.name, input]));
  const task_params = workflow.task_params.map((param): TaskParam => {
    const input = inputs.get(param.name);
    if (!input) return param;
    const fallback = input.default;
    const scalar =
      typeof fallback === 'string' || typeof fallback === 'number' || typeof fallback === 'boolean';
    return {
      ...param,
      example: param.example === null && scalar && !param.sensitive ? String(fallback) : param.example,
      optional: input.required === false ? true : param.optional,
    };
  });
  const constants = templateConstants(workflow, plan);
  const withParams = { ...workflow, task_params };
  return Object.keys(constants).length === 0
    ? withParams
    : mapTexts(withParams, (text) => renderTemplate(text, constants));
}

/** The files a workflow says it may read and write, each as `path (reason)`. */
export interface FileAccess {
  read: string[];
  write: string[];
}

/**
 * The filesystem paths of a Pass C plan (`user_filesystem_access`), with `{name}` in them filled from
 * `values` (a run's params), else from the plan's constants (ai_mime's marketplace writes
 * `"path": "{file_path}"` with `file_path` a constant).
 */
export function describeFileAccess(
  plan: OptimizedPlan | null,
  values: Readonly<Record<string, string>> = {},
): FileAccess {
  const access = plan?.user_filesystem_access;
  if (!access) return { read: [], write: [] };
  const known = {
    ...Object.fromEntries(Object.entries(plan.constants).map(([k, v]) => [k, constantText(v)])),
    ...values,
  };
  const describe = (roots: typeof access.readable_roots) =>
    roots.map((root) => {
      const path = renderTemplate(root.path, known);
      const notes = [root.reason?.trim(), root.approval_required ? 'asks first' : undefined].filter(Boolean);
      return notes.length > 0 ? `${path} (${notes.join('; ')})` : path;
    });
  return { read: describe(access.readable_roots), write: describe(access.writable_roots) };
}

/**
 * The files a workflow says it may touch, its paths filled with the values of a run (`given`, else
 * each param's example); a sensitive param's value never: it stays `{name}`.
 */
export function workflowFileAccess(
  workflow: Workflow,
  plan: OptimizedPlan | null,
  given: Readonly<Record<string, string>> = {},
): FileAccess {
  const values = Object.fromEntries(
    workflow.task_params.flatMap((p) => {
      const value = p.sensitive ? null : (given[p.name] ?? p.example);
      return value === null ? [] : [[p.name, value]];
    }),
  );
  return describeFileAccess(plan, values);
}
