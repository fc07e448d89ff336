/**
 * The steps of a Pass C plan (`optimized_plan.json`) that ai_mime marks as better done another way
 * than the UI: `script` (deterministic code: file IO, HTTP, a CLI, a URL scheme) or `browser_harness`
 * (a Chrome DevTools script), beside `ui_agent` (prakhar1114/ai_mime c1a50ba,
 * src/ai_mime/reflect/schema_compiler.py: `OptimizedExecutor` and PASS_C_SYSTEM_PROMPT, which asks
 * for "a deep-link / URL-scheme that jumps past a navigation flow" and says to state the shortcut in
 * `goal`). The plan holds no code: ai_mime's skill builder writes it later from the goal. mime shows
 * what each would be (its goal, and the URL it opens where the goal names one) and replays the
 * workflow's UI steps instead: it runs no code that came with a workflow.
 */
import type { OptimizedPlan } from './optimized-plan.ts';
import { renderTemplate } from './templates.ts';
import type { Workflow } from './workflow.ts';

/** A Pass C step done by a script or a browser script in ai_mime. */
export interface PlanExecutor {
  /** The Pass C step's id (or its position, `step 2`). */
  step: string;
  title: string | null;
  executor: string;
  /** The workflow's subtasks it stands for. */
  subtasks: number[];
  /** What the script would do, its names of params and constants as the plan writes them. */
  goal: string;
  /** The page it opens, with this run's values, where its goal names one; else null. */
  url: string | null;
  /** The executor ai_mime falls back to (mostly `ui_agent`). */
  fallback: string | null;
}

const WEB = /^https?:\/\/[^\s'"]+/i;
const PART = String.raw`(?:'[^'\n]*'|"[^"\n]*"|[A-Za-z_][A-Za-z0-9_]*)`;
/** `site_url + '/results?q=' + video_query`: a URL built as ai_mime's goals write one. */
const CONCAT = new RegExp(String.raw`${PART}(?:\s*\+\s*${PART})+`, 'g');

/** A part's text: a quoted literal as it is, a name by its value (else `{name}`). */
function partText(part: string, known: Readonly<Record<string, string>>): string {
  if (/^['"]/.test(part)) return part.slice(1, -1);
  return Object.hasOwn(known, part) ? (known[part] as string) : `{${part}}`;
}

/** One slash between a URL's path parts (a constant ending in `/` joined to a part starting with one). */
const tidy = (url: string) => url.replace(/([^:/])\/{2,}/g, '$1/');

/** The URL a goal opens: a sum of names and literals that makes one, else a URL it quotes, else a name whose value is one. */
export function urlOfGoal(goal: string, known: Readonly<Record<string, string>>): string | null {
  for (const match of goal.matchAll(CONCAT)) {
    const parts = match[0].split(/\s*\+\s*/);
    const url = parts.map((p) => partText(p, known)).join('');
    if (WEB.test(url)) return tidy(url);
  }
  const quoted = /https?:\/\/[^\s'"<>)]+/i.exec(goal)?.[0]?.replace(/[.,;]+$/, '');
  if (quoted) return renderTemplate(quoted, known);
  for (const name of goal.match(/[A-Za-z_][A-Za-z0-9_]*/g) ?? []) {
    const value = Object.hasOwn(known, name) ? known[name] : undefined;
    if (value && WEB.test(value)) return value;
  }
  return null;
}

/**
 * The plan's steps that ai_mime does by a script or a browser script (not `ui_agent`), with the URL
 * each opens where its goal names one; `values`: this run's params (a sensitive one's left out: it
 * stays `{name}`), the plan's constants filling the rest.
 */
export function describeExecutors(
  plan: OptimizedPlan | null,
  values: Readonly<Record<string, string>> = {},
): PlanExecutor[] {
  if (!plan) return [];
  const constants = Object.fromEntries(
    Object.entries(plan.constants).flatMap(([k, v]) =>
      typeof v === 'string' || typeof v === 'number' ? [[k, String(v)]] : [],
    ),
  );
  const known = { ...constants, ...values };
  return plan.steps.flatMap((step, k) => {
    const executor = step.executor?.trim();
    if (!executor || executor === 'ui_agent') return [];
    const goal = step.goal?.trim() ?? '';
    return [
      {
        step: step.id ?? `step ${k + 1}`,
        title: step.title?.trim() || null,
        executor,
        subtasks: step.source_subtask_ids ?? [],
        goal,
        url: urlOfGoal(goal, known),
        fallback: step.fallback ?? null,
      },
    ];
  });
}

/** The executors of a workflow's plan with the values of a run (`given`, else each param's example; never a sensitive one's). */
export function workflowExecutors(
  workflow: Workflow,
  plan: OptimizedPlan | null,
  given: Readonly<Record<string, string>> = {},
): PlanExecutor[] {
  const values = Object.fromEntries(
    workflow.task_params.flatMap((p) => {
      const value = p.sensitive ? null : (given[p.name] ?? p.example);
      return value === null ? [] : [[p.name, value]];
    }),
  );
  return describeExecutors(plan, values);
}
