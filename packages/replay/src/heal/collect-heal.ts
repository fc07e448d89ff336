/**
 * What an auto run learned, read back from its events: every executed action with the frame it was
 * taken on, the steps re-found at a new place and the subtasks the agent did. Null when the run found
 * the workflow up to date (nothing to heal).
 */
import {
  eventOfAction,
  HEAL_VERSION,
  type HealAction,
  type HealFile,
  RUN_FILES,
  type TypedRunEvent,
  type Workflow,
} from '@mime-desktop/schema';

export interface HealContext {
  runId: string;
  workflowSha256: string;
  manifestSha256: string;
  /** Param values as shown (sensitive ones as `{name}`). */
  params: Record<string, string>;
}

/** Reads the events in order, keeping the frame and observation of each agent turn. */
class HealCollector {
  readonly actions: HealAction[] = [];
  readonly regrounded = new Set<number>();
  readonly agentSubtasks = new Set<number>();
  readonly #captures = new Map<string, string>();
  readonly #observations = new Map<string, string>();
  /** A traced EXTRACT step waiting for the value it read. */
  #extractStep: { subtask_i: number; step_i: number; frame: string } | null = null;

  read(event: TypedRunEvent): void {
    const turn = `${event.subtask_i}:${event.iteration}`;
    const subtask_i = event.subtask_i ?? 0;
    if (event.type === 'step') this.#step(subtask_i, event.data);
    else if (event.type === 'capture') this.#captures.set(turn, event.data.screenshot);
    else if (event.type === 'tool_call') this.#observations.set(turn, event.data.args.observation ?? '');
    else if (
      event.type === 'action' &&
      event.data.status === 'executed' &&
      // A pointer move or a wait leaves nothing to record.
      eventOfAction(event.data.action) !== null
    ) {
      this.#agent(subtask_i, turn, event.data.action, null);
    } else if (event.type === 'extract') {
      const extract = { variable: event.data.variable, query: event.data.query, value: event.data.value };
      const step = this.#extractStep;
      if (step && step.subtask_i === subtask_i) {
        this.actions.push({
          ...step,
          by: 'trace',
          action: null,
          extract,
          note: `extract ${extract.variable}`,
        });
        this.#extractStep = null;
      } else {
        this.#agent(subtask_i, turn, null, extract);
      }
    }
  }

  #step(subtask_i: number, data: Extract<TypedRunEvent, { type: 'step' }>['data']): void {
    if (data.executed_by !== 'trace' && data.executed_by !== 'regrounded') return;
    if (data.executed_by === 'regrounded') this.regrounded.add(data.step_i);
    if (data.action === null) {
      this.#extractStep = { subtask_i, step_i: data.step_i, frame: data.screenshot };
      return;
    }
    const { step_i, executed_by: by, action, screenshot: frame, description: note, element, window } = data;
    this.actions.push({
      subtask_i,
      step_i,
      by,
      action,
      extract: null,
      frame,
      note,
      ...(element ? { element } : {}),
      ...(window ? { window } : {}),
    });
  }

  #agent(
    subtask_i: number,
    turn: string,
    action: HealAction['action'],
    extract: HealAction['extract'],
  ): void {
    const frame = this.#captures.get(turn);
    if (!frame) return;
    this.agentSubtasks.add(subtask_i);
    const note = this.#observations.get(turn) ?? '';
    this.actions.push({ subtask_i, step_i: null, by: 'agent', action, extract, frame, note });
  }
}

/** Whether no step of a workflow has a recorded source (hand-written, or ai_mime's without a recording). */
export function isUnrecorded(workflow: Workflow): boolean {
  return workflow.plan.subtasks.every((s) => s.steps.every((step) => step.source === null));
}

export function collectHeal(events: readonly TypedRunEvent[], context: HealContext): HealFile | null {
  const collector = new HealCollector();
  for (const event of events) collector.read(event);
  const { actions, regrounded, agentSubtasks } = collector;
  if (regrounded.size === 0 && agentSubtasks.size === 0) return null;
  return {
    version: HEAL_VERSION,
    run_id: context.runId,
    created_at: new Date().toISOString(),
    workflow_sha256: context.workflowSha256,
    manifest_sha256: context.manifestSha256,
    params: context.params,
    regrounded: [...regrounded].sort((a, b) => a - b),
    agent_subtasks: [...agentSubtasks].sort((a, b) => a - b),
    actions,
    final_frame: RUN_FILES.finalFrame,
  };
}
