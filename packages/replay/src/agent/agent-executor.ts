/**
 * Agent mode (seeds 000, 003, 004): for each subtask, wait for the screen to settle, capture it, ask
 * the model for exactly one tool call, check and execute it, log it; until the model says `done`.
 * A subtask that makes no progress (the same action on an unchanged screen), spends its iterations,
 * or that the model cannot do as written, gets the rest of the task planned again from the current
 * screen, with the completed steps listed so they are not repeated.
 */

import type { RawFrame } from '@mime-desktop/os-io';
import { formatSubtask, iterationFrameName, type MimeError } from '@mime-desktop/schema';
import { describeAction, type ResolvedAction } from '../actions/computer-action.ts';
import { executeAction, toExecuted } from '../actions/execute-action.ts';
import { measureFrameDifference, waitForSettle } from '../actions/screen-settle.ts';
import { RunStoppedError } from '../errors.ts';
import type { ClaimVerdict, RecordedClaims } from '../kernel/claims.ts';
import type { ActionStatus, ReplanTrigger } from '../kernel/events.ts';
import type { PlannedSubtask } from '../kernel/plan.ts';
import type { SubtaskEntry } from '../kernel/plan-cursor.ts';
import type { HandOver, HistoryEntry, RunContext } from '../kernel/run-context.ts';
import { AgentModel, type Turn } from './agent-model.ts';
import { replanRest } from './agent-replan.ts';
import type { AgentRuntime } from './agent-runtime.ts';
import type { DoneArgs, ExtractArgs } from './agent-tools.ts';
import { actionSignature, describeCallForModel } from './computer-call.ts';
import { ModelClaims } from './model-claims.ts';
import { encodeModelImage, type ModelImage } from './model-image.ts';
import { type ActionOutcome, detectNoProgress } from './no-progress.ts';
import type { PromptTask } from './prompt.ts';

/** How a subtask ended when it did not throw. */
type SubtaskEnd = { kind: 'done' } | { kind: 'replan'; trigger: ReplanTrigger; reason: string };

/** Input errors the model can recover from (a point off screen, the fail-safe hotkey): told, not fatal. */
const RECOVERABLE_INPUT_CODES = new Set(['MIME_BAD_INPUT', 'MIME_BAD_KEY']);

/** The agent-mode executor: the whole workflow, subtask by subtask. */
/**
 * The agent's screenshot after an action waits this long before settling, ms: the model must see the
 * app's reaction, and an app that starts repainting late (a click handler, a dialog opening) would
 * otherwise show it a still, unchanged screen. Trace and auto wait for the recorded screen instead.
 */
const AGENT_REACTION_MS = 100;

export async function runAgent(context: RunContext, agent: AgentRuntime): Promise<void> {
  const first = context.journal.plan.next();
  if (first) await new AgentRun(context, agent, Number.POSITIVE_INFINITY).run(first, []);
}

/**
 * Auto mode's explicit hand-over: the agent finishes one subtask that auto started, from the step it
 * stopped at, with the traced steps as its history and the run's completed-step context; a replan
 * inside it replaces only this subtask (with new run-wide ids). Returns when the subtask, or what
 * replaced it, is done; auto then resumes with the next subtask.
 */
export async function finishWithAgent(
  context: RunContext,
  agent: AgentRuntime,
  handOver: HandOver,
): Promise<void> {
  await new AgentRun(context, agent, 0).run(handOver.entry, handOver.done, handOver.claims);
}

class AgentRun {
  readonly #ctx: RunContext;
  readonly #agent: AgentRuntime;
  readonly #task: PromptTask;
  readonly #model: AgentModel;
  /**
   * How many of the pending subtasks are this run's to do after the current one: all of them in agent
   * mode; in a hand-over, none at first, then those a replan put in place of the handed-over subtask.
   */
  #owned: number;
  /** An action ran since the last capture: the next capture waits for the screen to settle. */
  #actedSinceCapture = false;
  /** How the last capture's settle wait went, for its event. */
  #lastSettle: { settled: boolean; waitedMs: number } = { settled: true, waitedMs: 0 };

  constructor(context: RunContext, agent: AgentRuntime, owned: number) {
    this.#ctx = context;
    this.#agent = agent;
    this.#owned = owned;
    const { workflow } = context;
    this.#task = {
      name: workflow.task_name,
      description: workflow.detailed_task_description || workflow.task_description_user,
      successCriteria: workflow.success_criteria,
    };
    this.#model = new AgentModel(context, agent, this.#task);
  }

  /**
   * Runs `first` (already started; `done`: its traced steps; `recorded`: the checks its recording
   * makes of the model's claims), then the subtasks this run owns.
   */
  async run(
    first: SubtaskEntry,
    done: readonly HistoryEntry[],
    recorded: RecordedClaims | null = null,
  ): Promise<void> {
    let entry: SubtaskEntry | null = first;
    let history = done;
    let checks = recorded;
    while (entry !== null) {
      const end = await this.#runSubtask(entry, history, new ModelClaims(this.#ctx, entry.subtask, checks));
      history = [];
      checks = null;
      if (end.kind === 'replan') await this.#replan(entry.subtask, end.trigger, end.reason);
      entry = this.#owned > 0 ? this.#ctx.journal.plan.next() : null;
      if (entry) this.#owned -= 1;
    }
  }

  async #runSubtask(
    entry: SubtaskEntry,
    done: readonly HistoryEntry[],
    claims: ModelClaims,
  ): Promise<SubtaskEnd> {
    let outcome: 'success' | 'failed' | 'replanned' = 'failed';
    try {
      const end = await this.#loop(entry.subtask, entry, done, claims);
      outcome = end.kind === 'done' ? 'success' : 'replanned';
      return end;
    } finally {
      entry.end(outcome);
    }
  }

  async #loop(
    subtask: PlannedSubtask,
    entry: SubtaskEntry,
    done: readonly HistoryEntry[],
    claims: ModelClaims,
  ): Promise<SubtaskEnd> {
    const {
      settings,
      journal: { budgets },
    } = this.#ctx;
    const label = formatSubtask(subtask.subtask_i);
    const history: HistoryEntry[] = [...done];
    const outcomes: ActionOutcome[] = [];
    /** The frame before the last executed action, until the next capture says whether it changed. */
    let before: RawFrame | null = null;
    for (;;) {
      budgets.checkWallTime();
      if (budgets.iterationsLeft <= 0) {
        if (budgets.replansLeft <= 0) throw budgets.exhausted('iterations', label);
        return {
          kind: 'replan',
          trigger: 'iterations',
          reason: `${label} used all its ${budgets.limits.iterations} iterations without reaching its expected outcome.`,
        };
      }
      const { frame, image: encoding } = await this.#capture();
      claims.begin(frame);
      const last = outcomes.at(-1);
      let changed: boolean | null = null;
      if (before && last) {
        changed = measureFrameDifference(before, frame) > settings.settle.threshold;
        last.changed = changed;
        before = null;
      }
      const stuck = this.#noProgress(outcomes, label, history);
      if (stuck) return stuck;
      budgets.chargeIteration(label);
      const turn = entry.nextTurn();
      const image = await this.#report(frame, await encoding, turn, changed);
      const decision = await this.#model.decide(subtask, history, image, turn);
      if ('problems' in decision) {
        history.push({ call: '(unusable reply)', observation: '', result: `rejected: ${decision.problems}` });
        continue;
      }
      const { call } = decision;
      this.#ctx.journal.memory.remember(call.args.task_memory, turn);
      switch (call.name) {
        case 'computer_use': {
          const action = decision.action as ResolvedAction;
          const status = await this.#act(
            call.args.observation,
            action,
            turn,
            history,
            describeCallForModel(call.args),
          );
          outcomes.push({ signature: actionSignature(call.args), changed: null });
          if (status === 'executed') before = frame;
          break;
        }
        case 'extract':
          history.push(await this.#extract(call.args, { image, frame }, turn, claims));
          break;
        case 'done': {
          const refusal = await this.#done(call.args, subtask, turn, claims.done(frame));
          if (refusal === null) return { kind: 'done' };
          history.push(refusal);
          break;
        }
        case 'replan':
          if (budgets.replansLeft <= 0) throw budgets.exhausted('replans');
          return {
            kind: 'replan',
            trigger: 'model',
            reason: `The model asked for a new plan: ${call.args.reason}`,
          };
      }
    }
  }

  /**
   * Stores an extract once the app shows its value on `frame` (the screen the model saw); a call
   * without a value has it read by a follow-up call (as ai_mime does).
   */
  async #extract(
    args: ExtractArgs,
    { image, frame }: { image: ModelImage; frame: RawFrame },
    turn: Turn,
    claims: ModelClaims,
  ): Promise<HistoryEntry> {
    const { variable_name: variable, query, observation } = args;
    const value = args.value ?? (await this.#model.readValue(query, image, turn));
    if (value === '') {
      return {
        call: `extract ${variable}`,
        observation,
        result: `not stored: "${query}" was not found on this screenshot`,
      };
    }
    const claim = await this.#claim('extract', turn, claims.extract(variable, value, frame));
    if (claim.verdict === 'refused') {
      return {
        call: `extract ${variable} = ${JSON.stringify(value)}`,
        observation,
        result: `refused, not stored: ${claim.detail}`,
      };
    }
    this.#ctx.journal.memory.storeExtract(variable, query, value, turn);
    return { call: `extract ${variable} = ${JSON.stringify(value)}`, observation, result: 'stored' };
  }

  /** A replan when the same action left the screen unchanged too often (and a replan is left), else null. */
  #noProgress(outcomes: ActionOutcome[], label: string, history: HistoryEntry[]): SubtaskEnd | null {
    const repeats = this.#agent.settings.noProgressRepeats;
    if (this.#ctx.settings.dryRun || this.#ctx.journal.budgets.replansLeft <= 0) return null;
    if (!detectNoProgress(outcomes, repeats)) return null;
    return {
      kind: 'replan',
      trigger: 'no_progress',
      reason: `${label} made no progress: the same action (${history.at(-1)?.call ?? '?'}) left the screen unchanged ${repeats} times.`,
    };
  }

  /**
   * The model says the subtask is done: it ends once the app shows its outcome (`checked`), or when
   * nothing is checkable; else the refusal told to the model.
   */
  async #done(
    args: DoneArgs,
    subtask: PlannedSubtask,
    turn: Turn,
    checked: Promise<ClaimVerdict>,
  ): Promise<HistoryEntry | null> {
    const { observation, result } = args;
    const claim = await this.#claim('done', turn, checked);
    if (claim.verdict === 'refused') {
      return { call: 'done', observation, result: `refused, the subtask is not done: ${claim.detail}` };
    }
    this.#ctx.journal.log.emit({ type: 'done', ...turn, observation, result });
    this.#ctx.journal.memory.noteSubtaskDone(subtask.text, result);
    return null;
  }

  /** Reports how a claim of the model stood against the live app. */
  async #claim(claim: 'done' | 'extract', turn: Turn, checked: Promise<ClaimVerdict>): Promise<ClaimVerdict> {
    const verdict = await checked;
    this.#ctx.journal.log.emit({ type: 'claim', ...turn, claim, ...verdict });
    return verdict;
  }

  /**
   * Waits for the screen to settle; returns the frame and its model image, whose encoding started
   * while the wait went on (see `onCandidate`).
   */
  async #capture(): Promise<{ frame: RawFrame; image: Promise<ModelImage> }> {
    const {
      settings,
      signal,
      devices: { desktop, model },
    } = this.#ctx;
    const { coordinates } = (await model.client()).config;
    const encodings = new Map<RawFrame, Promise<ModelImage>>();
    const encode = (frame: RawFrame) => {
      const image = encodeModelImage(frame, this.#agent.settings.image, coordinates);
      image.catch(() => undefined);
      encodings.set(frame, image);
    };
    const settled = await waitForSettle(() => desktop.captureFrame(), {
      ...settings.settle,
      initialDelayMs: Math.max(settings.settle.initialDelayMs, AGENT_REACTION_MS),
      afterAction: this.#actedSinceCapture,
      signal,
      onCandidate: encode,
    });
    this.#actedSinceCapture = false;
    this.#lastSettle = settled;
    if (!encodings.has(settled.frame)) encode(settled.frame);
    return { frame: settled.frame, image: encodings.get(settled.frame) as Promise<ModelImage> };
  }

  /** Saves the full frame and reports the capture. */
  #report(frame: RawFrame, image: ModelImage, turn: Turn, changed: boolean | null): ModelImage {
    const { log } = this.#ctx.journal;
    const screenshot = log.saveFrame(iterationFrameName(turn.subtask_i, turn.iteration), frame);
    log.emit({
      type: 'capture',
      ...turn,
      screenshot,
      settled: this.#lastSettle.settled,
      settle_ms: Math.round(this.#lastSettle.waitedMs),
      screen_changed: changed,
      image: image.size,
      image_bytes: image.png.length,
    });
    return image;
  }

  /** Confirms (with `--confirm`), executes and logs one action. */
  async #act(
    observation: string,
    action: ResolvedAction,
    turn: Turn,
    history: HistoryEntry[],
    asCalled: string,
  ): Promise<ActionStatus> {
    const {
      settings,
      typing,
      journal: { log, memory },
      devices: { desktop },
    } = this.#ctx;
    const { confirmAction } = this.#agent.settings;
    const description = describeAction(action);
    let status: ActionStatus = 'executed';
    let error: string | null = null;
    if (settings.dryRun) status = 'dry_run';
    else if (confirmAction) {
      const answer = await confirmAction({ ...turn, description, observation });
      if (answer === 'stop') throw new RunStoppedError();
      if (answer === 'skip') status = 'skipped';
    }
    const refusal = status === 'executed' ? await this.#refusal(action) : null;
    if (refusal !== null) {
      status = 'refused';
      error = refusal;
    }
    if (status === 'executed') {
      await this.#ctx.pause.wait(this.#ctx.signal);
      try {
        await executeAction(
          desktop,
          toExecuted(action, action.action === 'type' ? typing.ofAgent(action.text) : null),
          settings.typeDelayMs,
          this.#ctx.signal,
        );
        this.#actedSinceCapture = true;
        memory.noteCompleted(asCalled);
      } catch (failure) {
        if (!(failure instanceof Error && RECOVERABLE_INPUT_CODES.has((failure as MimeError).code)))
          throw failure;
        status = 'failed';
        error = failure.message;
      }
    }
    const results: Record<ActionStatus, string> = {
      executed: 'executed',
      dry_run: 'not executed (dry run); assume it worked',
      skipped: 'skipped by the person watching; choose another action',
      failed: `failed: ${error}`,
      refused: `refused: ${error}`,
    };
    history.push({ call: asCalled, observation, result: results[status] });
    log.emit({ type: 'action', ...turn, action, description, status, error });
    return status;
  }

  /** Why the action may not run where it would land (outside the workflow's app windows), or null. */
  async #refusal(action: ResolvedAction): Promise<string | null> {
    const desktop = this.#ctx.devices.desktop;
    const scope = await this.#agent.scope(desktop);
    return scope ? scope.refusal(action, desktop) : null;
  }

  /** Plans the rest of this run's subtasks again from the current screen (see `replanRest`). */
  async #replan(stuck: PlannedSubtask, trigger: ReplanTrigger, reason: string): Promise<void> {
    this.#ctx.journal.budgets.chargeReplan();
    const { frame, image } = await this.#capture();
    const captured = { frame, image: await image };
    const replaced = await replanRest(this.#ctx, this.#model, this.#task, {
      stuck,
      trigger,
      reason,
      owned: this.#owned,
      captured,
    });
    // Agent mode owns everything pending; a hand-over, what replaced its subtask.
    this.#owned = Number.isFinite(this.#owned) ? replaced : this.#owned;
  }
}
