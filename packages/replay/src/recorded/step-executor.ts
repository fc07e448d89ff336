/**
 * The trace and auto modes: the step loop that replays the recorded steps one by one, without a
 * model, and verifies each on the screen. Its parts: the ladder that finds a step's target
 * (locators.ts: the element by its accessibility identity, the recorded pixels at their place, near
 * the expected layout, anywhere), the checks (typing-check.ts, subtask-outcome.ts, change-check.ts,
 * all through the one verifier), extracts (extract-step.ts), the recording (recorded-frames.ts) and
 * the screen watcher (settling and polling). The mode (recorded-mode.ts) says what the recording
 * alone cannot carry: trace stops there (seed 002), auto hands the subtask to the agent, then resumes
 * with the next subtask. No step is reported done unverified.
 */
import {
  formatSubtask,
  type RunAction,
  type SourceWindow,
  type StepExecution,
  stepFrameName,
  type WorkflowStep,
} from '@mime-desktop/schema';
import type { RgbaImage } from '@mime-desktop/vision';
import { describeAction } from '../actions/computer-action.ts';
import { executeAction, toExecuted } from '../actions/execute-action.ts';
import { TraceUnavailableError } from '../errors.ts';
import type { SubtaskEntry } from '../kernel/plan-cursor.ts';
import type { RunContext } from '../kernel/run-context.ts';
import type { At } from '../kernel/run-memory.ts';
import { identity, type Located, type Look } from './checks.ts';
import { ExtractStep } from './extract-step.ts';
import { mapPoint, RECORDED } from './layout-map.ts';
import { locate, type Rung } from './locators.ts';
import type { LoopParts, SubtaskState } from './loop-parts.ts';
import { recordedAnchors } from './recorded-anchors.ts';
import { RecordedFrames } from './recorded-frames.ts';
import { autoMode, type RecordedMode, TRACE } from './recorded-mode.ts';
import { RecordedOcr } from './recorded-ocr.ts';
import { type RecordedStep, recordedAction } from './recorded-step.ts';
import { regroundedElement } from './regrounded-element.ts';
import { ScreenWatcher } from './screen-watcher.ts';
import { SubtaskOutcome } from './subtask-outcome.ts';
import { checkAfter, prepareField } from './typing-check.ts';
import { unsetValueOf, unsetWithoutRecording } from './unset-value.ts';
import { Verifier } from './verifier.ts';
import { liveWindowOf, windowLayouts } from './window-place.ts';
import { WindowPlacer } from './window-placer.ts';

class RecordedRun {
  readonly #ctx: RunContext;
  readonly #parts: LoopParts;
  readonly #locators: Promise<Rung[]>;
  readonly #extracts: ExtractStep;
  readonly #outcome: SubtaskOutcome;

  constructor(context: RunContext, mode: RecordedMode) {
    this.#ctx = context;
    const screen = new ScreenWatcher(context.devices.desktop, {
      settle: context.settings.settle,
      stepTimeoutMs: context.settings.stepTimeoutMs,
      signal: context.signal,
      dryRun: context.settings.dryRun,
    });
    const verifier = new Verifier(screen, context.journal.log, mode);
    const frames = new RecordedFrames();
    const recordedOcr = new RecordedOcr(context.workflowDir, context.devices.ocr, {
      write: context.cachesInWorkflow,
    });
    this.#parts = { ctx: context, frames, recordedOcr, screen, verifier, mode };
    this.#extracts = new ExtractStep(this.#parts);
    this.#outcome = new SubtaskOutcome(this.#parts, this.#extracts);
    this.#locators = context.devices.desktop
      .accessibility()
      .catch(() => null)
      .then(async (a11y) => {
        // A browser builds a page's tree only once asked (Firefox): woken before the first step
        // looks for its element, else the first look finds no field and a later rung guesses.
        await a11y?.wake().catch(() => undefined);
        const placer = a11y?.unplaced
          ? new WindowPlacer(a11y.unplaced, () => recordedAnchors(context.workflow, this.#parts.frames))
          : null;
        return mode.ladder(a11y, context.devices.ocr, placer);
      });
  }

  async run(): Promise<void> {
    const { frames, verifier, mode } = this.#parts;
    // Auto replays what it can: a workflow with no recording (hand-written) goes to the agent.
    await frames.load(this.#ctx.workflowDir).catch((error: unknown) => mode.withoutRecording(error));
    const { plan } = this.#ctx.journal;
    const firstSubtask = plan.pending[0]?.subtask_i ?? null;
    // In the first subtask, a screen that did not start as recorded is the likely cause of a failure.
    const notAtStart = await this.#parts.screen.differsFrom(frames.first());
    verifier.notAtStart = (subtask_i) => notAtStart && subtask_i === firstSubtask;
    for (let entry = plan.next(); entry !== null; entry = plan.next()) await this.#runSubtask(entry);
  }

  async #runSubtask(entry: SubtaskEntry): Promise<void> {
    const { subtask } = entry;
    const state: SubtaskState = { layout: null, done: [] };
    this.#extracts.readAhead(subtask);
    this.#outcome.readAhead(subtask);
    for (const [k, step] of subtask.steps.entries()) {
      const failure = await this.#runStep(step, entry, state, subtask.steps[k + 1]);
      if (failure !== null) return this.#handOver(entry, state, failure);
    }
    const outcome = await this.#outcome.check(subtask, entry, state);
    if (outcome !== null) return this.#handOver(entry, state, outcome);
    entry.end('success');
    this.#ctx.journal.memory.noteSubtaskDone(subtask.text);
  }

  /**
   * Checks, executes and verifies one step (`next`: the one after it in its subtask); returns why the
   * subtask cannot go on without the model, or null.
   */
  async #runStep(
    step: WorkflowStep,
    entry: SubtaskEntry,
    state: SubtaskState,
    next: WorkflowStep | undefined,
  ): Promise<string | null> {
    const {
      settings,
      journal: { budgets, log, memory },
    } = this.#ctx;
    const { frames, mode, verifier } = this.#parts;
    budgets.checkWallTime();
    budgets.chargeIteration(formatSubtask(entry.subtask_i));
    const turn = entry.nextTurn();
    const recorded = frames.of(step);
    if (recorded instanceof TraceUnavailableError) {
      const rest = entry.subtask.steps.slice(Math.max(0, entry.subtask.steps.indexOf(step)));
      const reason = `${recorded.message}${unsetWithoutRecording(rest)}`;
      entry.recordStep({ i: step.i, executed_by: 'skipped', reason });
      return mode.unrecorded(recorded, reason);
    }
    // This step's frames and the next one's decode, and where they change is found, while this
    // step's screen is waited for.
    frames.warm(recorded);
    frames.warm(next && frames.of(next));
    if (recorded.event.action_type === 'extract') return this.#extracts.run(recorded, entry, turn, state);
    const before = await this.#lookBefore(recorded, turn, state);
    const unset = unsetValueOf(step, memory.extracts);
    // A `{name}` of an upstream extract in the step's value types the value read (see SecretTyping).
    const typed = unset ? unset.typed : this.#ctx.typing.ofStep(step, memory.extracts);
    const text = typed?.shown ?? null;
    const action = recordedAction(recorded, before.ok ? before.value.map : undefined, text);
    const description = action ? describeAction(action) : step.action_type.toLowerCase();
    const verdict = this.#verdictOf(before);
    const { executed_by } = verdict;
    const acts = before.ok && action !== null && !settings.dryRun;
    if (acts) await this.#ctx.pause.wait(this.#ctx.signal);
    // A field that holds text where the recording's was empty is cleared first (auto) or stops trace.
    const field =
      acts && action.action === 'type' ? await prepareField(this.#parts, recorded, turn, action.text) : null;
    const notes = [verdict.reason, unset?.note, field?.note].filter((n): n is string => Boolean(n));
    const reason = notes.join('; ');
    const element = before.ok
      ? await regroundedElement(before.value, executed_by, action, () => this.#a11y(), this.#ctx.signal)
      : undefined;
    log.emit({
      type: 'step',
      ...turn,
      step_i: step.i,
      executed_by,
      reason,
      action: before.ok ? action : null,
      description,
      screenshot: before.screenshot,
      score: before.ok ? before.score : before.failure.similarity,
      waited_ms: Math.round(before.waitedMs),
      ...(before.ok && before.value.rung ? { rung: before.value.rung } : {}),
      ...(element ? { element } : {}),
      window: before.window,
    });
    if (!before.ok) return verifier.fail({ ...before.failure, description }, turn, before.live);
    if (field?.failure) return field.failure;
    if (acts) {
      await executeAction(
        this.#ctx.devices.desktop,
        toExecuted(action, typed),
        step.type_delay_ms ?? settings.typeDelayMs,
        this.#ctx.signal,
      );
      this.#parts.screen.acted();
    }
    state.layout = before.value.layout;
    if (acts && !(await this.#outcomeReads(recorded, action, next, entry))) {
      const failure = await checkAfter(this.#parts, recorded, turn, state, before.live, action);
      if (failure !== null) return failure;
    }
    entry.recordStep({ i: step.i, executed_by, reason });
    state.done.push({ call: description, observation: '', result: 'executed (replayed from the recording)' });
    memory.noteCompleted(`step ${step.i} (${step.intent}): ${description}, replayed from the recording`);
    return null;
  }

  /** The check before a step: its target found on the ladder (or the screen as a whole), waited for. */
  async #lookBefore(
    recorded: RecordedStep,
    turn: At,
    state: SubtaskState,
  ): Promise<
    Look<Located> & {
      screenshot: string;
      waitedMs: number;
      live: RgbaImage;
      window: SourceWindow | undefined;
    }
  > {
    const { step } = recorded;
    const { screen } = this.#parts;
    const pre = await recorded.pre();
    const point = step.source?.point ?? null;
    const window = await this.#liveWindow(step);
    const recordedWindow = step.source?.window?.box;
    // Where the layout or (a subtask's first target) the target's window puts it, as the ladder looks first.
    const [inWindow] =
      point && recordedWindow && window && !state.layout
        ? windowLayouts(recordedWindow, window.box, point)
        : [];
    if (point && step.source?.box) await screen.hover(mapPoint(state.layout ?? inWindow ?? RECORDED, point));
    const locators = await this.#locators;
    const watched = await screen.watch((live) =>
      locate(locators, { step, pre, live, layout: state.layout, window: window?.box ?? null }),
    );
    const screenshot = this.#ctx.journal.log.saveFrame(stepFrameName(turn.subtask_i, step.i), watched.frame);
    return {
      ...watched.look,
      screenshot,
      waitedMs: watched.waitedMs,
      live: watched.live,
      window: window ?? undefined,
    };
  }

  /** Where the window the step's target was recorded in stands now; null where unknown (or not told). */
  async #liveWindow(step: WorkflowStep): Promise<SourceWindow | null> {
    const recorded = step.source?.window;
    if (!recorded) return null;
    const windows = await this.#ctx.devices.desktop.windows().catch(() => null);
    return windows && liveWindowOf(recorded, windows);
  }

  /**
   * Whether the subtask's outcome check reads what a key step changed, so content decides it rather
   * than layout: the subtask's last step, a key, whose recorded change shows a param's example (a
   * form's "Sent to Ann Lee in Paris" line). This run's values, in another size or place (1.25x),
   * change the screen in another way than recorded; the outcome check waits for them to show.
   */
  async #outcomeReads(
    recorded: RecordedStep,
    action: RunAction,
    next: WorkflowStep | undefined,
    entry: SubtaskEntry,
  ): Promise<boolean> {
    if (action.action !== 'key' || next !== undefined) return false;
    const [pre, post] = await Promise.all([recorded.pre(), recorded.post()]);
    const region = post && this.#parts.frames.change(pre, post);
    return region ? this.#outcome.readsIn(entry.subtask, region) : false;
  }

  /** How the step was done (or not), and why, from the look before it. */
  #verdictOf(before: Look<Located>): { executed_by: StepExecution; reason: string } {
    if (!before.ok) return this.#parts.mode.missed(before.failure.reason);
    const { rung, map, reason } = before.value;
    // At its recorded place (by pixels or by the element), the step is replayed as recorded.
    const moved =
      rung !== undefined && rung !== 'recorded-place' && (map !== identity || rung !== 'accessibility');
    return { executed_by: moved ? 'regrounded' : 'trace', reason };
  }

  #a11y() {
    return this.#ctx.devices.desktop.accessibility().catch(() => null);
  }

  /** Auto: the rest of the subtask goes to the agent, which finishes it (or replans it) from the live screen. */
  async #handOver(entry: SubtaskEntry, state: SubtaskState, reason: string): Promise<void> {
    this.#ctx.journal.log.emit({
      type: 'handover',
      subtask_i: entry.subtask_i,
      reason,
      completed_steps: entry.record.executions.filter((e) => e.executed_by !== 'skipped').map((e) => e.i),
    });
    entry.handOver(reason);
    await this.#ctx.handOver({ entry, done: state.done, claims: this.#outcome.claims(entry.subtask, state) });
  }
}

/** The trace-mode executor. */
export async function runTrace(context: RunContext): Promise<void> {
  await new RecordedRun(context, TRACE).run();
}

/** The auto-mode executor. */
export async function runAuto(context: RunContext): Promise<void> {
  await new RecordedRun(context, await autoMode(context)).run();
}
