/**
 * The agent's model calls: one tool call per turn (an unusable reply handed back with what is wrong
 * with it), a value read in a look of its own, each call metered and charged to the budgets.
 */

import { type ChatMessage, imagePart, ModelOutputError, type ToolCallResult } from '@mime-desktop/model';
import { describeElement, isMimeError, type Problem } from '@mime-desktop/schema';
import type { ResolvedAction } from '../actions/computer-action.ts';
import type { CallUsageSummary } from '../kernel/events.ts';
import type { PlannedSubtask } from '../kernel/plan.ts';
import type { HistoryEntry, RunContext } from '../kernel/run-context.ts';
import type { At } from '../kernel/run-memory.ts';
import type { AgentRuntime } from './agent-runtime.ts';
import { type AgentCall, type AgentTools, agentTools, canonicalCall, ExtractedValue } from './agent-tools.ts';
import { type CallCheckContext, checkAgentCall } from './check-call.ts';
import { describePointSpace } from './coordinates.ts';
import type { ModelImage } from './model-image.ts';
import {
  ACT_SYSTEM_PROMPT,
  buildActPrompt,
  buildExtractPrompt,
  EXTRACT_SYSTEM_PROMPT,
  type NamedValue,
  type PromptTask,
} from './prompt.ts';
import { uiTarsDialect } from './ui-tars-dialect.ts';

/** A usable decision, or the problems of a reply that stayed unusable after the repairs. */
export type Decision = { call: AgentCall; action: ResolvedAction | null } | { problems: string };

/** Where in the run a turn is. */
export type Turn = At;

/** What the agent asks its model, for one run of the agent loop. */
export class AgentModel {
  readonly #ctx: RunContext;
  readonly #agent: AgentRuntime;
  readonly #task: PromptTask;

  constructor(context: RunContext, agent: AgentRuntime, task: PromptTask) {
    this.#ctx = context;
    this.#agent = agent;
    this.#task = task;
  }

  /**
   * Asks for one tool call. An unusable reply is handed back with what is wrong with it, until the
   * run's unusable replies in a row reach their limit (the run then stops).
   */
  async decide(
    subtask: PlannedSubtask,
    history: HistoryEntry[],
    image: ModelImage,
    turn: Turn,
  ): Promise<Decision> {
    const {
      settings,
      journal: { log, memory, plan },
      devices: { desktop },
    } = this.#ctx;
    const emit = log.emit.bind(log);
    const extracted = new Set(memory.extracts.keys());
    const client = await this.#ctx.devices.model.client();
    const space = {
      convention: client.config.coordinates,
      image: image.size,
      screen: desktop.screen.logical,
    };
    const tools = agentTools(space);
    const prompt = buildActPrompt({
      task: this.#task,
      subtask,
      ...plan.position,
      params: this.#ctx.params,
      knownValues: this.#knownValues(subtask),
      extracted,
      taskMemory: memory.taskMemory,
      completedSubtasks: memory.doneSubtasks,
      history,
      historyLimit: this.#agent.settings.historyLimit,
      image: image.size,
      points: describePointSpace(space),
      dryRun: settings.dryRun,
      focused: await this.#focused(),
    });
    // A UI-TARS model gets its own action space as the system text (the client adds it), not the tools.
    const uiTars = client.config.toolMode === 'ui-tars';
    const pending = subtask.extracts.filter((e) => !extracted.has(e.variable));
    const messages: ChatMessage[] = [
      ...(uiTars ? [] : [{ role: 'system' as const, content: ACT_SYSTEM_PROMPT }]),
      { role: 'user', content: [{ type: 'text', text: prompt }, imagePart(image.png)] },
    ];
    const checkContext: CallCheckContext = {
      space,
      requiredExtracts: subtask.extracts,
      extracted,
    };
    const { unusable } = this.#agent;
    for (;;) {
      let result: ToolCallResult<AgentTools>;
      try {
        result = await this.call('act', turn, (repairAttempts) =>
          client.toolCall({
            tools,
            messages,
            signal: this.#ctx.signal,
            repairAttempts,
            ...(uiTars ? { uiTars: uiTarsDialect(space, pending) } : {}),
          }),
        );
      } catch (error) {
        if (!(error instanceof ModelOutputError)) throw error;
        emit({ type: 'error', ...turn, code: error.code, message: error.message });
        // Stops the run at the limit; short of it (the request budget cut the repairs) the turn is spent.
        unusable.unusable(error.attempts, log.redact.text(error.raw), error.problems);
        return { problems: formatProblems(error.problems) };
      }
      emit({
        type: 'tool_call',
        ...turn,
        name: result.name,
        source: result.source,
        args: { ...result.args },
        dropped: [...result.dropped],
      });
      const call = canonicalCall(result);
      const checked = checkAgentCall(call, checkContext);
      if (checked.ok) {
        unusable.usable();
        return { call, action: checked.action };
      }
      emit({ type: 'repair', ...turn, problems: checked.problems });
      unusable.unusable(result.usage.repairs + 1, log.redact.text(result.raw), checked.problems);
      messages.push(...repairMessages(result, checked.problems));
    }
  }

  /** Reads a value the model named but did not give (ai_mime's `extract`) in a look of its own at `image`. */
  async readValue(query: string, image: ModelImage, turn: Turn): Promise<string> {
    const client = await this.#ctx.devices.model.client();
    const { value } = await this.call('extract', turn, (repairAttempts) =>
      client.structured({
        name: 'extracted_value',
        schema: ExtractedValue,
        messages: [
          { role: 'system', content: EXTRACT_SYSTEM_PROMPT },
          {
            role: 'user',
            content: [{ type: 'text', text: buildExtractPrompt(query) }, imagePart(image.png)],
          },
        ],
        signal: this.#ctx.signal,
        repairAttempts,
      }),
    );
    return value.value.trim();
  }

  /**
   * One metered model call: every request it makes is charged to the budget, and it is reported with
   * its usage (failed calls too). `call` gets the repairs it may make: no more than the request budget
   * and the unusable replies left allow.
   */
  async call<T>(
    purpose: 'act' | 'replan' | 'extract',
    turn: Turn,
    call: (repairAttempts: number) => Promise<T>,
  ): Promise<T> {
    const {
      journal: { budgets, log },
      devices: { model },
    } = this.#ctx;
    const { unusable } = this.#agent;
    budgets.checkModelRequest();
    const before = model.meter.snapshot();
    const report = (errorCode: string | null) => {
      const after = model.meter.snapshot();
      const usage: CallUsageSummary = {
        requests: after.requests - before.requests,
        inputTokens: after.inputTokens - before.inputTokens,
        outputTokens: after.outputTokens - before.outputTokens,
        durationMs: Math.round(after.durationMs - before.durationMs),
      };
      budgets.chargeModelRequests(usage.requests);
      log.emit({ type: 'model_call', ...turn, purpose, usage, error_code: errorCode });
    };
    try {
      const result = await call(Math.max(0, Math.min(unusable.left, budgets.modelRequestsLeft) - 1));
      report(null);
      return result;
    } catch (error) {
      report(isMimeError(error) ? error.code : 'UNKNOWN');
      throw error;
    }
  }

  /** Extracts this subtask may use: its dependencies (a replanned subtask sees them all). */
  #knownValues(subtask: PlannedSubtask): NamedValue[] {
    const entries = [...this.#ctx.journal.memory.extracts.entries()];
    const wanted =
      subtask.origin === 'replan' ? entries : entries.filter(([name]) => subtask.dependencies.includes(name));
    return wanted.map(([name, value]) => ({ name, value }));
  }

  /** The element with the keyboard focus, named (never its text); null without a tree or within 300 ms. */
  async #focused(): Promise<string | null> {
    const a11y = await this.#ctx.devices.desktop.accessibility().catch(() => null);
    if (!a11y) return null;
    const focused = await Promise.race([
      a11y.focused().catch(() => null),
      new Promise<null>((resolve) => setTimeout(resolve, 300, null).unref()),
    ]);
    return focused
      ? `the ${describeElement(focused)} in the ${focused.window.role} ${JSON.stringify(focused.window.name)} of ${focused.app}`
      : null;
  }
}

function formatProblems(problems: readonly Problem[]): string {
  return problems.map((p) => (p.path ? `${p.path}: ${p.message}` : p.message)).join('; ');
}

/** Hands a checked but unusable call back to the model, as a tool result (native) or a user message (text). */
function repairMessages(result: ToolCallResult<AgentTools>, problems: readonly Problem[]): ChatMessage[] {
  const explain = `Not executed, the call is invalid:\n${problems.map((p) => `- ${p.path || '(call)'}: ${p.message}`).join('\n')}\nCall exactly one tool again with corrected arguments.`;
  if (result.toolCallId === undefined) {
    return [
      { role: 'assistant', content: result.raw },
      { role: 'user', content: explain },
    ];
  }
  return [
    {
      role: 'assistant',
      content: null,
      tool_calls: [
        {
          id: result.toolCallId,
          type: 'function',
          function: { name: result.name, arguments: JSON.stringify(result.args) },
        },
      ],
    },
    { role: 'tool', tool_call_id: result.toolCallId, content: explain },
  ];
}
