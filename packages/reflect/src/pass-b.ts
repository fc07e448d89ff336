import type { ChatMessage, ModelClient } from '@mime-desktop/model';
import { PassBResult, type RecordingMetadata, type StepCard, type Workflow } from '@mime-desktop/schema';
import { ReflectPlanError } from './errors.ts';
import { mergeWorkflow } from './merge.ts';
import { passBMessages, SECRET_MARK, type StepSummary } from './prompts.ts';
import type { ReflectStep } from './steps.ts';

export interface PassBOptions {
  metadata: RecordingMetadata;
  steps: readonly ReflectStep[];
  cards: ReadonlyMap<number, StepCard>;
  client: ModelClient;
  /** Extra tries when the plan does not make a valid workflow. Default 2. */
  repairAttempts?: number;
  signal?: AbortSignal;
  onRepair?: (problems: number) => void;
}

export function summarizeSteps(
  steps: readonly ReflectStep[],
  cards: ReadonlyMap<number, StepCard>,
): StepSummary[] {
  return steps.map((step) => ({
    i: step.i,
    intent: cards.get(step.i)?.intent ?? '',
    action_type: step.actionType,
    action_value: step.secret ? SECRET_MARK : step.recordedValue,
    details: step.details,
    variable_name: step.variableName,
  }));
}

/**
 * Pass B: one text-only call that groups the steps into subtasks and parametrizes them. A plan that
 * does not merge into a valid workflow is sent back with its problems and asked for again; only a
 * plan that merges is returned (and so checkpointed).
 */
export async function runPassB(options: PassBOptions): Promise<{ plan: PassBResult; workflow: Workflow }> {
  const attempts = (options.repairAttempts ?? 2) + 1;
  const messages: ChatMessage[] = passBMessages(
    options.metadata,
    summarizeSteps(options.steps, options.cards),
  );
  let problems: string[] = [];
  for (let attempt = 1; attempt <= attempts; attempt += 1) {
    const { value } = await options.client.structured({
      name: 'task_plan',
      schema: PassBResult,
      messages,
      signal: options.signal,
    });
    const merged = mergeWorkflow(options.metadata, options.steps, options.cards, value);
    if (merged.ok) return { plan: value, workflow: merged.workflow };
    problems = merged.problems.map((p) => `${p.path}: ${p.message}`);
    if (attempt < attempts) options.onRepair?.(problems.length);
    messages.push(
      { role: 'assistant', content: JSON.stringify(value) },
      {
        role: 'user',
        content: `That plan does not make a valid workflow:\n${problems.map((p) => `- ${p}`).join('\n')}\nFix every problem and answer again with the whole JSON.`,
      },
    );
  }
  throw new ReflectPlanError(
    `Pass B: the model's plan is still invalid after ${attempts} tries:\n  ${problems.join('\n  ')}`,
  );
}
