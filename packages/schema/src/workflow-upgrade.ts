import type { Problem } from './errors.ts';

/** Which older layout a document was upgraded from. */
export type WorkflowLayout = 'v2' | 'ai_mime-v1';

export interface UpgradeResult {
  /** The document in the v2 layout (not yet validated). */
  document: unknown;
  /** The layout the input had. */
  from: WorkflowLayout;
  /** Problems that stopped a part of the upgrade (the rest is still upgraded). */
  problems: Problem[];
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
  if (
    !isRecord(input) ||
    !isRecord(input.plan) ||
    !Array.isArray(input.plan.steps) ||
    'subtasks' in input.plan
  ) {
    return { document: input, from: 'v2', problems: [] };
  }
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
  return { document, from: 'ai_mime-v1', problems };
}
