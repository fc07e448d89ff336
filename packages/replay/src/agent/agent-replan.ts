/**
 * The agent's replan (seed 004): the rest of its subtasks planned again from the current screen, the
 * model told everything the run completed so far, traced steps included.
 */

import { type ChatMessage, imagePart } from '@mime-desktop/model';
import type { RawFrame } from '@mime-desktop/os-io';
import type { ReplanTrigger } from '../kernel/events.ts';
import type { PlannedSubtask } from '../kernel/plan.ts';
import type { RunContext } from '../kernel/run-context.ts';
import type { AgentModel, Turn } from './agent-model.ts';
import { revisedPlanFor } from './agent-tools.ts';
import type { ModelImage } from './model-image.ts';
import { buildReplanPrompt, type PromptTask, REPLAN_SYSTEM_PROMPT } from './prompt.ts';
import { revisePlan } from './revise-plan.ts';

/** Why a replan is asked for, and what it replaces. */
export interface ReplanRequest {
  /** The subtask that could not go on. */
  stuck: PlannedSubtask;
  trigger: ReplanTrigger;
  reason: string;
  /** How many of the pending subtasks after `stuck` are the caller's to replace. */
  owned: number;
  /** The current screen. */
  captured: { frame: RawFrame; image: ModelImage };
}

/**
 * Replaces `stuck` and the `owned` pending subtasks after it with a plan the model makes from the
 * current screen; returns how many subtasks replaced them.
 */
export async function replanRest(
  context: RunContext,
  model: AgentModel,
  task: PromptTask,
  request: ReplanRequest,
): Promise<number> {
  const { log, memory, plan } = context.journal;
  const { stuck, trigger, reason, captured } = request;
  const { image } = captured;
  log.saveFrame(log.nextReplanFrame(), captured.frame);
  const owned = Math.min(request.owned, plan.pending.length);
  const remaining = [stuck, ...plan.pending.slice(0, owned)];
  const pending = remaining.flatMap((s) => s.extracts).filter((e) => !memory.extracts.has(e.variable));
  const completed = memory.completed();
  const prompt = buildReplanPrompt({
    task,
    reason,
    completed,
    remaining,
    pendingExtracts: pending,
    knownValues: [...memory.extracts.entries()].map(([name, value]) => ({ name, value })),
    params: context.params,
    image: image.size,
  });
  const messages: ChatMessage[] = [
    { role: 'system', content: REPLAN_SYSTEM_PROMPT },
    { role: 'user', content: [{ type: 'text', text: prompt }, imagePart(image.png)] },
  ];
  const turn: Turn = { subtask_i: stuck.subtask_i, iteration: plan.current?.record.iterations ?? 0 };
  const client = await context.devices.model.client();
  const result = await model.call('replan', turn, (repairAttempts) =>
    client.structured({
      name: 'revised_plan',
      schema: revisedPlanFor(remaining, task),
      messages,
      signal: context.signal,
      repairAttempts,
    }),
  );
  const [firstId = 0] = plan.allocateIds(result.value.subtasks.length);
  const revised = revisePlan(result.value, remaining, pending, firstId);
  plan.replace(owned, revised);
  log.emit({
    type: 'replan',
    ...turn,
    trigger,
    reason,
    completed,
    subtasks: revised.map((s) => s.text),
  });
  return revised.length;
}
