/**
 * The trace and auto modes: the step loop that replays the recorded steps one by one, without a
 * model, and verifies each on the screen. Its parts: the ladder that finds a step's target
 * (locators.ts: the element by its accessibility identity, the recorded pixels at their place, near
 * the expected layout, anywhere), the checks (checks.ts, shown-values.ts: typing by the focused
 * field's text, a subtask's outcome by the values it shows, else by layout), the screen watcher
 * (settling and polling) and the divergence evidence. A mode policy says what the recording alone
 * cannot carry: trace stops there (seed 002), auto hands the subtask to the agent through the run's
 * hand-over, then resumes with the next subtask; without a model it stops like trace. No step is
 * reported done unverified.
 *
 * An EXTRACT step is read by OCR: where the recorded example value stood (after its label, e.g.
 * "Now playing:"), the live screen is read; without an example, auto asks the agent, trace skips it.
 */

import type { RawFrame } from '@mime-desktop/os-io';
import {
  describeElement,
  type ElementIdentity,
  formatStep,
  formatSubtask,
  identityOf,
  isMimeError,
  outcomeFrameName,
  type RunAction,
  type ScreenCheck,
  type StepExecution,
  stepFrameName,
  type WorkflowStep,
} from '@mime-desktop/schema';
import { type Box, changedCellsIn, changedRegion, type RgbaImage } from '@mime-desktop/vision';
import { describeAction } from '../actions/computer-action.ts';
import { executeAction } from '../actions/execute-action.ts';
import { liveImage } from '../actions/screen-text.ts';
import { ModelForbiddenError, type ReplayDivergenceError, TraceUnavailableError } from '../errors.ts';
import type { RecordedClaims } from '../kernel/claims.ts';
import type { PlannedSubtask } from '../kernel/plan.ts';
import type { SubtaskEntry } from '../kernel/plan-cursor.ts';
import type { HistoryEntry, RunContext } from '../kernel/run-context.ts';
import type { At } from '../kernel/run-memory.ts';
import {
  CHANGE_CHECK,
  changeReason,
  checkChange,
  checkPlace,
  checkTypedText,
  type Failure,
  failed,
  identity,
  inOtherColours,
  type Located,
  type Look,
  located,
  type TypedVerdict,
  typedTextCheckable,
} from './checks.ts';
import { claimedExtract, claimedOutcome } from './claimed.ts';
import { recordDivergence } from './divergence.ts';
import { type RecordedExample, readExample, readExtract } from './extract-reading.ts';
import { type Layout, mapBox, mapPoint, RECORDED } from './layout-map.ts';
import { type Locator, ladder, locate } from './locators.ts';
import {
  loadRecording,
  type RecordedStep,
  type RecordedSteps,
  type Recording,
  recordedAction,
  recordedSteps,
} from './recorded-step.ts';
import { ScreenWatcher } from './screen-watcher.ts';
import { checkShownValues, type ExampleSpots, findExamples, type ShownValue } from './shown-values.ts';
import { unsetValueOf, unsetWithoutRecording } from './unset-value.ts';

/** A subtask's content or typing check passed: nothing else to check. */
const VERIFIED = 'verified';

/**
 * What a mode does where the recording alone does not carry it: trace stops (a divergence, an error),
 * auto hands the subtask to the agent.
 */
interface ModePolicy {
  mode: 'trace' | 'auto';
  handsOver: boolean;
}

/** The recorded frames around a subtask, and the end frame's file (relative to the workflow folder). */
interface OutcomeFrames {
  before: RgbaImage;
  after: RgbaImage;
  afterFrame: string;
}

/** What a subtask learned so far: where the layout is, and what was done (the agent's history on a hand-over). */
interface SubtaskState {
  layout: Layout | null;
  done: HistoryEntry[];
}

class RecordedRun {
  readonly #ctx: RunContext;
  readonly #policy: ModePolicy;
  readonly #examplesBySubtask = new Map<
    PlannedSubtask,
    Promise<{ region: Box; spots: ExampleSpots } | null>
  >();
  /** Each extract's recorded example, read ahead (see #runSubtask). */
  readonly #examplesByStep = new WeakMap<WorkflowStep, Promise<RecordedExample | null>>();
  readonly #screen: ScreenWatcher;
  readonly #locators: Promise<Locator[]>;
  #recording: Recording = { events: new Map(), frames: new Map() };
  #steps: RecordedSteps = {
    of: (step) => new TraceUnavailableError(`${formatStep(step.i)}: the workflow has no recording`),
    frame: () => Promise.reject(new TraceUnavailableError('the workflow has no recording')),
  };
  /** Auto with a model configured: a step the recording cannot carry goes to the agent. */
  #withModel = false;
  /** The screen before the first action was not the recording's first frame (see #startDiffers). */
  #notAtStart = false;
  #firstSubtask: number | null = null;
  /** Where two recorded frames differ, by frame pair: the same checks run in every poll. */
  readonly #regions = new WeakMap<RgbaImage, WeakMap<RgbaImage, Box | null>>();

  constructor(context: RunContext, policy: ModePolicy) {
    this.#ctx = context;
    this.#policy = policy;
    this.#screen = new ScreenWatcher(context.desktop, {
      settle: context.settings.settle,
      stepTimeoutMs: context.settings.stepTimeoutMs,
      signal: context.signal,
      dryRun: context.settings.dryRun,
    });
    this.#locators = context.desktop
      .accessibility()
      .catch(() => null)
      .then((a11y) => ladder(policy.mode, a11y, context.ocr));
  }

  async run(): Promise<void> {
    // Without a model, auto stops where it would hand over, as trace does, and says so.
    this.#withModel =
      this.#policy.handsOver &&
      (await this.#ctx.model.client().then(
        () => true,
        () => false,
      ));
    // Auto mode replays what it can: a workflow with no recording (hand-written) goes to the agent.
    try {
      this.#recording = await loadRecording(this.#ctx.workflowDir);
      this.#steps = recordedSteps(this.#ctx.workflowDir, this.#recording);
    } catch (error) {
      if (!this.#policy.handsOver) throw error;
    }
    const { plan } = this.#ctx;
    this.#firstSubtask = plan.pending[0]?.subtask_i ?? null;
    this.#notAtStart = await this.#startDiffers();
    for (let entry = plan.next(); entry !== null; entry = plan.next()) await this.#runSubtask(entry);
  }

  async #runSubtask(entry: SubtaskEntry): Promise<void> {
    const { subtask } = entry;
    const state: SubtaskState = { layout: null, done: [] };
    // Each extract's example is read off its recorded frame while the steps before it run, once the
    // OCR worker runs: starting it (about 1 s of CPU) beside the steps would slow them on two cores.
    const readAhead = !this.#ctx.settings.dryRun && this.#ctx.ocr.started;
    for (const step of readAhead ? subtask.steps : []) {
      const recorded = this.#steps.of(step);
      if (!(recorded instanceof TraceUnavailableError) && recorded.event.action_type === 'extract') {
        this.#exampleOf(recorded).catch(() => undefined);
      }
    }
    for (const [k, step] of subtask.steps.entries()) {
      const failure = await this.#runStep(step, entry, state, subtask.steps[k + 1]);
      if (failure !== null) {
        await this.#handOver(entry, state, failure);
        return;
      }
    }
    const outcome = await this.#checkOutcome(subtask, entry, state);
    if (outcome !== null) {
      await this.#handOver(entry, state, outcome);
      return;
    }
    entry.end('success');
    this.#ctx.memory.noteSubtaskDone(subtask.text);
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
    const { budgets, settings, log, memory } = this.#ctx;
    budgets.checkWallTime();
    budgets.chargeIteration(formatSubtask(entry.subtask_i));
    const turn = entry.nextTurn();
    const recorded = this.#steps.of(step);
    if (recorded instanceof TraceUnavailableError) {
      if (!this.#policy.handsOver) throw recorded;
      const rest = entry.subtask.steps.slice(Math.max(0, entry.subtask.steps.indexOf(step)));
      const reason = `${recorded.message}${unsetWithoutRecording(rest)}`;
      entry.recordStep({ i: step.i, executed_by: 'skipped', reason });
      return this.#needModel(reason, null);
    }
    // This step's frames and the next one's decode, and where they change is found, while this
    // step's screen is waited for.
    this.#warm(recorded);
    const nextRecorded = next && this.#steps.of(next);
    if (nextRecorded && !(nextRecorded instanceof TraceUnavailableError)) this.#warm(nextRecorded);
    if (recorded.event.action_type === 'extract') return this.#extract(recorded, entry, turn, state);
    const before = await this.#lookBefore(recorded, turn, state);
    const unset = unsetValueOf(step, memory.extracts);
    const text = unset?.text ?? step.action_value;
    const action = before.ok
      ? recordedAction(recorded, before.value.map, text)
      : recordedAction(recorded, undefined, text);
    const description = action ? describeAction(action) : step.action_type.toLowerCase();
    const verdict = this.#verdictOf(before);
    const { executed_by } = verdict;
    const reason = unset ? `${verdict.reason}; ${unset.note}` : verdict.reason;
    const element = before.ok ? await this.#elementOf(before.value, executed_by, action) : undefined;
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
    });
    if (!before.ok) return this.#fail({ ...before.failure, description }, turn, before.live);
    if (action && !settings.dryRun) {
      await this.#ctx.pause.wait(this.#ctx.signal);
      await executeAction(
        this.#ctx.desktop,
        action,
        (text) => this.#ctx.typing.ofStep(step, text),
        step.type_delay_ms ?? settings.typeDelayMs,
        this.#ctx.signal,
      );
      this.#screen.acted();
    }
    state.layout = before.value.layout;
    if (action && !settings.dryRun) {
      const failure = await this.#checkAfter(recorded, turn, state, before.live, action);
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
  ): Promise<Look<Located> & { screenshot: string; waitedMs: number; live: RgbaImage }> {
    const { step } = recorded;
    const pre = await recorded.pre();
    const point = step.source?.point ?? null;
    if (point && step.source?.box) await this.#screen.hover(mapPoint(state.layout ?? RECORDED, point));
    const locators = await this.#locators;
    const watched = await this.#screen.watch((live) =>
      locate(locators, { step, pre, live, layout: state.layout }),
    );
    const screenshot = this.#ctx.log.saveFrame(stepFrameName(turn.subtask_i, step.i), watched.frame);
    return { ...watched.look, screenshot, waitedMs: watched.waitedMs, live: watched.live };
  }

  /** How the step was done (or not), and why, from the look before it. */
  #verdictOf(before: Look<Located>): { executed_by: StepExecution; reason: string } {
    if (!before.ok) {
      return {
        executed_by: this.#withModel ? 'agent' : 'skipped',
        reason: `${this.#withModel ? 'handed to the agent' : 'stopped here'}: ${before.failure.reason}`,
      };
    }
    const { rung, map, reason } = before.value;
    // At its recorded place (by pixels or by the element), the step is replayed as recorded.
    const moved =
      rung !== undefined && rung !== 'recorded-place' && (map !== identity || rung !== 'accessibility');
    return { executed_by: moved ? 'regrounded' : 'trace', reason };
  }

  /**
   * The target's element on the live screen: as the ladder found it, or (a target re-found by its
   * pixels) the element the tree names at its point, so a heal keeps it.
   */
  async #elementOf(
    found: Located,
    executed_by: StepExecution,
    action: RunAction | null,
  ): Promise<ElementIdentity | undefined> {
    if (found.element || executed_by !== 'regrounded' || !action || !('point' in action) || !action.point) {
      return found.element;
    }
    const a11y = await this.#ctx.desktop.accessibility();
    const element = await a11y?.elementAt(action.point).catch(() => null);
    return element ? identityOf(element) : undefined;
  }

  /**
   * After typing, by content: the focused field's text (from the accessibility tree) must hold what
   * was typed. Null when content cannot tell (no tree, a password field, a secret in the text): the
   * layout check decides then.
   */
  async #checkTyped(
    recorded: RecordedStep,
    turn: At,
    state: SubtaskState,
    typed: string,
  ): Promise<string | null> {
    if (!typedTextCheckable(recorded.step.target.element, typed)) return null;
    const a11y = await this.#ctx.desktop.accessibility();
    if (!a11y) return null;
    const pre = await recorded.pre();
    let verdict: TypedVerdict = { kind: 'unknown' };
    const watched = await this.#screen.watch(async () => {
      verdict = checkTypedText(await a11y.focused().catch(() => null), typed);
      if (verdict.kind !== 'differs') return located(identity, state.layout ?? RECORDED, 1, '');
      const reason = `after ${describeStep(recorded.step)}, the focused ${describeElement(verdict.element)} holds ${JSON.stringify(verdict.element.text)}, not the typed text`;
      return failed(recorded.step.i, 'after_step', reason, 0, 1, null, pre);
    });
    if (!watched.look.ok) {
      return this.#fail(
        { ...watched.look.failure, description: `type ${JSON.stringify(typed)}` },
        turn,
        watched.live,
      );
    }
    if ((verdict as TypedVerdict).kind === 'unknown') return null;
    this.#ctx.log.emit({
      type: 'verify',
      ...turn,
      step_i: recorded.step.i,
      check: 'after_step',
      similarity: 1,
      threshold: 1,
      region: null,
    });
    return VERIFIED;
  }

  /**
   * After a typing or key step: typing by content where the tree can tell, else (and for a key) the
   * change the recording shows in the next frame must appear. Nothing to check after a pointer step:
   * the next step's look or the subtask's outcome tells.
   */
  async #checkAfter(
    recorded: RecordedStep,
    turn: At,
    state: SubtaskState,
    liveBefore: RgbaImage,
    action: RunAction,
  ): Promise<string | null> {
    if (action.action !== 'type' && action.action !== 'key') return null;
    const byContent =
      action.action === 'type' ? await this.#checkTyped(recorded, turn, state, action.text) : null;
    if (byContent !== null) return byContent === VERIFIED ? null : byContent;
    const [pre, post] = await Promise.all([recorded.pre(), recorded.post()]);
    if (!post) return null;
    const { event } = recorded;
    // Other text than recorded (a new param value) changes the screen in the same place, not the same way.
    const otherText =
      action.action === 'type' && event.action_type === 'type' && action.text !== event.action_details.text;
    return this.#verifyChange({
      liveBefore,
      byPlace: otherText ? 'always' : 'in-other-colours',
      check: 'after_step',
      step_i: recorded.step.i,
      before: pre,
      after: post,
      layout: state.layout ?? RECORDED,
      turn,
      reason: otherText
        ? `after ${describeStep(recorded.step)}, the screen did not change where the recording shows the typing`
        : `after ${describeStep(recorded.step)}, the screen did not change the way the recording shows`,
      description: describeAction(action),
    });
  }

  /** At the end of a subtask: the screen must show the outcome the recording shows at that point. */
  async #checkOutcome(
    subtask: PlannedSubtask,
    entry: SubtaskEntry,
    state: SubtaskState,
  ): Promise<string | null> {
    if (this.#ctx.settings.dryRun) return null;
    const frames = await this.#outcomeFrames(subtask);
    if (!frames) return null;
    const { before, after, afterFrame } = frames;
    const turn = { subtask_i: entry.subtask_i, iteration: entry.record.iterations };
    const byContent = await this.#checkShown(subtask, frames, state.layout ?? RECORDED, turn);
    if (byContent !== null) return byContent === VERIFIED ? null : byContent;
    return this.#verifyChange({
      recordedFrame: afterFrame,
      check: 'subtask_outcome',
      step_i: null,
      before,
      after,
      layout: state.layout ?? RECORDED,
      turn,
      liveBefore: null,
      reason: `the screen does not show the outcome the recording shows at the end of ${formatSubtask(subtask.subtask_i)}`,
      description: '',
    });
  }

  /**
   * At the end of a subtask, by content: where the recording shows a param's example as the
   * subtask's outcome, the screen must show this run's value. Null when content cannot tell (no
   * example shown): the layout check decides then.
   */
  async #checkShown(
    subtask: PlannedSubtask,
    { after, afterFrame }: OutcomeFrames,
    layout: Layout,
    turn: At,
  ): Promise<string | null> {
    const examples = await this.#examples(subtask);
    if (!examples) return null;
    const { region, spots } = examples;
    const watched = await this.#screen.watch(async (live) => {
      const verdict = await checkShownValues(this.#ctx.ocr, live, region, layout, spots);
      if (verdict.kind !== 'missing') return located(identity, layout, 1, '');
      const { value } = verdict;
      return failed(
        null,
        'subtask_outcome',
        `the screen does not show ${value.name} = ${JSON.stringify(value.value)} where the recording shows ${JSON.stringify(value.example)} at the end of ${formatSubtask(subtask.subtask_i)} (that line reads ${JSON.stringify(verdict.read)})`,
        0,
        1,
        verdict.box,
        after,
      );
    });
    if (!watched.look.ok) return this.#fail({ ...watched.look.failure, layout }, turn, watched.live);
    this.#ctx.log.emit({
      type: 'verify',
      ...turn,
      step_i: null,
      check: 'subtask_outcome',
      similarity: 1,
      threshold: 1,
      region: mapBox(layout, region),
      ...this.#outcomeShots(turn, watched.frame, afterFrame),
    });
    return VERIFIED;
  }

  /** The recorded frames before a subtask and after it, or null when the recording has no end frame for it. */
  async #outcomeFrames(subtask: PlannedSubtask): Promise<OutcomeFrames | null> {
    const sources = subtask.steps.flatMap((s) => (s.source ? [s.source] : []));
    const first = sources[0];
    if (!first) return null;
    const afterFrame = this.#recording.frames.get(Math.max(...sources.map((s) => s.event_index)) + 1);
    if (!afterFrame) return null;
    const [before, after] = await Promise.all([
      this.#steps.frame(first.screenshot),
      this.#steps.frame(afterFrame),
    ]);
    return { before, after, afterFrame };
  }

  /** A subtask outcome's evidence for the report: the live frame checked, beside the recorded one. */
  #outcomeShots(turn: At, frame: RawFrame, recordedFrame: string) {
    const screenshot = this.#ctx.log.saveFrame(outcomeFrameName(turn.subtask_i), frame);
    return { screenshot, recorded_frame: recordedFrame };
  }

  /**
   * Where the recording shows params' examples as a subtask's outcome, read by OCR once a subtask
   * (the OCR worker starts at the first read: about 1 s of CPU, which on two cores slows the steps
   * beside it when started earlier). Null when none is shown.
   */
  #examples(subtask: PlannedSubtask): Promise<{ region: Box; spots: ExampleSpots } | null> {
    let examples = this.#examplesBySubtask.get(subtask);
    if (!examples) {
      examples = (async () => {
        const values = this.#shownValues();
        const frames = values.length > 0 ? await this.#outcomeFrames(subtask) : null;
        const region = frames && this.#recordedChange(frames.before, frames.after);
        if (!frames || !region) return null;
        const spots = await findExamples(this.#ctx.ocr, frames.before, frames.after, region, values);
        return spots.length > 0 ? { region, spots } : null;
      })();
      this.#examplesBySubtask.set(subtask, examples);
    }
    return examples;
  }

  /** The run's values of the params the workflow has an example of (never a sensitive one's). */
  #shownValues(): ShownValue[] {
    const { workflow, params } = this.#ctx;
    return workflow.task_params.flatMap((p) => {
      const value = params.find((r) => r.name === p.name);
      return !p.sensitive && p.example && value && !value.sensitive && value.display.trim()
        ? [{ name: p.name, example: p.example, value: value.display }]
        : [];
    });
  }

  /**
   * Waits for the change the recording shows between two frames to appear on the live screen, where
   * the layout now is; reports it verified, or fails (see #fail). Nothing to check when the recording
   * shows no visible change.
   */
  async #verifyChange(spec: {
    /** The screen before the action, where the check may ask for a change since it (see `byPlace`). */
    liveBefore: RgbaImage | null;
    /**
     * When only where the screen changed since `liveBefore` is checked (it must be where the recording
     * changed), not how: always (other text typed than recorded), or where that screen shows the
     * region in other colours than recorded (another theme). Default: never.
     */
    byPlace?: 'always' | 'in-other-colours';
    /** A subtask's outcome: the recorded frame `after` is, relative to the workflow folder. */
    recordedFrame?: string;
    check: ScreenCheck;
    step_i: number | null;
    before: RgbaImage;
    after: RgbaImage;
    layout: Layout;
    turn: At;
    reason: string;
    description: string;
  }): Promise<string | null> {
    const { before, after, layout, turn } = spec;
    if (before.width !== after.width || before.height !== after.height) return null;
    const region = this.#recordedChange(before, after);
    if (!region) return null;
    const { liveBefore, byPlace } = spec;
    let recordedCells: number | null = null;
    /** Whether the screen before the action was in other colours than recorded (asked once, on a first miss). */
    let otherColours: boolean | null = null;
    const watched = await this.#screen.watch((live) => {
      // A layout found by a locator (not the recorded one) maps the compared region to any screen.
      const sameSize = (live.width === before.width && live.height === before.height) || layout !== RECORDED;
      const inPlace = (since: RgbaImage) => {
        recordedCells ??= changedCellsIn(before, after, region);
        return checkPlace(since, live, mapBox(layout, region), recordedCells);
      };
      let change = !sameSize
        ? { ok: false, score: 0, threshold: CHANGE_CHECK.toAfter, by: 'pixels' as const }
        : liveBefore && byPlace === 'always'
          ? inPlace(liveBefore)
          : checkChange(live, before, after, region, layout);
      if (sameSize && !change.ok && liveBefore && byPlace === 'in-other-colours') {
        otherColours ??= inOtherColours(liveBefore, before, region, layout);
        if (otherColours) change = inPlace(liveBefore);
      }
      return change.ok
        ? located(identity, layout, change.score, '')
        : failed(
            spec.step_i,
            spec.check,
            sameSize ? changeReason(spec.reason, change) : 'the screen size differs from the recording',
            change.score,
            change.threshold,
            region,
            after,
          );
    });
    if (!watched.look.ok) {
      return this.#fail(
        { ...watched.look.failure, description: spec.description, layout },
        turn,
        watched.live,
      );
    }
    this.#ctx.log.emit({
      type: 'verify',
      ...turn,
      step_i: spec.step_i,
      check: spec.check,
      similarity: watched.look.score ?? 1,
      threshold: CHANGE_CHECK.toAfter,
      region: mapBox(layout, region),
      ...(spec.recordedFrame && this.#outcomeShots(turn, watched.frame, spec.recordedFrame)),
    });
    return null;
  }

  /** Decodes a step's recorded frames and finds where they differ, ahead of its checks; best effort. */
  #warm(recorded: RecordedStep): void {
    Promise.all([recorded.pre(), recorded.post()])
      .then(([pre, post]) => {
        if (post && pre.width === post.width && pre.height === post.height) this.#recordedChange(pre, post);
      })
      .catch(() => undefined);
  }

  /** An extract's recorded example (read once a step). */
  #exampleOf(recorded: RecordedStep): Promise<RecordedExample | null> {
    let example = this.#examplesByStep.get(recorded.step);
    if (!example) {
      const { event } = recorded;
      example =
        event.action_type === 'extract'
          ? Promise.all([recorded.pre(), this.#frameBefore(recorded.step)]).then(([pre, before]) => {
              const sameSize = before && before.width === pre.width && before.height === pre.height;
              const changed = sameSize ? this.#recordedChange(before, pre) : null;
              return readExample(this.#ctx.ocr, pre, event.action_details.values, changed);
            })
          : Promise.resolve(null);
      this.#examplesByStep.set(recorded.step, example);
    }
    return example;
  }

  /** The recorded frame before a step's event (the screen the previous action left), if any. */
  #frameBefore(step: WorkflowStep): Promise<RgbaImage> | null {
    const previous = this.#recording.frames.get((step.source?.event_index ?? 0) - 1);
    return previous === undefined ? null : this.#steps.frame(previous);
  }

  /** Where two recorded frames differ (computed once a pair). */
  #recordedChange(before: RgbaImage, after: RgbaImage): Box | null {
    let byAfter = this.#regions.get(before);
    if (!byAfter) {
      byAfter = new WeakMap();
      this.#regions.set(before, byAfter);
    }
    if (!byAfter.has(after)) byAfter.set(after, changedRegion(before, after));
    return byAfter.get(after) ?? null;
  }

  /** An EXTRACT step: read by OCR next to the recorded example; without one, auto asks the agent, trace skips it. */
  async #extract(
    recorded: RecordedStep,
    entry: SubtaskEntry,
    turn: At,
    state: SubtaskState,
  ): Promise<string | null> {
    const { log, memory } = this.#ctx;
    const { step } = recorded;
    const description = `extract ${step.variable_name ?? ''}`.trim();
    // OCR reads whatever is on the screen: the change the recording shows since its previous event
    // (the value appearing after a click) must be there first, or the old value would be read.
    const previous = this.#ctx.settings.dryRun ? null : this.#frameBefore(step);
    if (previous !== null) {
      const failure = await this.#verifyChange({
        liveBefore: null,
        check: 'before_step',
        step_i: step.i,
        before: await previous,
        after: await recorded.pre(),
        layout: state.layout ?? RECORDED,
        turn,
        reason: `before ${describeStep(step)}, the screen does not show the change the recording shows since the previous action`,
        description,
      });
      if (failure !== null) return failure;
    }
    const watched = await this.#screen.watch(() => located(identity, RECORDED, null, ''));
    const screenshot = log.saveFrame(stepFrameName(turn.subtask_i, step.i), watched.frame);
    const pre = await recorded.pre();
    const value =
      pre.width === watched.live.width && pre.height === watched.live.height
        ? await this.#exampleOf(recorded).then(
            (example) =>
              example && readExtract(this.#ctx.ocr, example, watched.live, state.layout ?? RECORDED),
          )
        : null;
    const report = (executed_by: 'trace' | 'agent' | 'skipped', reason: string) =>
      log.emit({
        type: 'step',
        ...turn,
        step_i: step.i,
        executed_by,
        reason,
        action: null,
        description,
        screenshot,
        score: null,
        waited_ms: Math.round(watched.waitedMs),
      });
    if (value !== null) {
      const reason = 'read by OCR after the label the recorded example value stood by';
      report('trace', reason);
      if (step.variable_name) memory.storeExtract(step.variable_name, step.action_value ?? '', value, turn);
      entry.recordStep({ i: step.i, executed_by: 'trace', reason });
      state.done.push({
        call: `extract ${step.variable_name} = ${JSON.stringify(value)}`,
        observation: '',
        result: 'stored',
      });
      return null;
    }
    if (this.#policy.handsOver) {
      const reason = 'the value could not be read without the model';
      if (this.#withModel) report('agent', `handed to the agent: ${reason}`);
      else report('skipped', `stopped here: ${reason}`);
      return this.#needModel(reason, null);
    }
    const reason = 'trace mode reads values only by OCR next to a recorded example; none matched';
    report('skipped', reason);
    entry.recordStep({ i: step.i, executed_by: 'skipped', reason });
    return null;
  }

  /**
   * A failed check: its crops are saved and reported; trace stops with a divergence, auto goes on with
   * the model (returns the reason) or, without one, stops like trace.
   */
  async #fail(failure: Failure, turn: At, live: RgbaImage): Promise<string> {
    const divergence = await recordDivergence(this.#ctx.log, failure, turn, live, {
      regroundable: !this.#policy.handsOver,
      // In the first subtask, a screen that did not start as recorded is the likely cause.
      notAtStart: turn.subtask_i === this.#firstSubtask && this.#notAtStart,
    });
    if (!this.#policy.handsOver) throw divergence;
    return this.#needModel(failure.reason, divergence);
  }

  /**
   * Whether the screen, before the run's first action, differs from the recording's first frame (more
   * than a caret or a focus line): the app was not reset, a value left by an earlier run shows.
   */
  async #startDiffers(): Promise<boolean> {
    const first = this.#recording.frames.get(Math.min(...this.#recording.frames.keys()));
    if (!first || this.#ctx.settings.dryRun) return false;
    const [recorded, live] = await Promise.all([
      this.#steps.frame(first).catch(() => null),
      this.#ctx.desktop.captureFrame().then(liveImage),
    ]);
    // Another screen size tells nothing about the app's state.
    if (!recorded || recorded.width !== live.width || recorded.height !== live.height) return false;
    return changedRegion(recorded, live) !== null;
  }

  /**
   * Auto: the reason to hand over when a model may take over; else the divergence (or the reason) is
   * thrown: no model configured, or the run may not call one.
   */
  async #needModel(reason: string, divergence: ReplayDivergenceError | null): Promise<string> {
    const missing = await this.#ctx.model.client().then(
      () => null,
      (error: unknown) =>
        error instanceof ModelForbiddenError || (isMimeError(error) && error.exit === 'usage')
          ? error
          : Promise.reject(error),
    );
    if (missing === null) return reason;
    if (divergence) throw divergence.withoutModel(missing);
    throw missing instanceof ModelForbiddenError ? new ModelForbiddenError(reason) : missing;
  }

  /** Auto: the rest of the subtask goes to the agent, which finishes it (or replans it) from the live screen. */
  async #handOver(entry: SubtaskEntry, state: SubtaskState, reason: string): Promise<void> {
    this.#ctx.log.emit({
      type: 'handover',
      subtask_i: entry.subtask_i,
      reason,
      completed_steps: entry.record.executions.filter((e) => e.executed_by !== 'skipped').map((e) => e.i),
    });
    entry.handOver(reason);
    await this.#ctx.handOver({ entry, done: state.done, claims: this.#claims(entry.subtask, state) });
  }

  /**
   * The checks the recording makes of the model's claims in a subtask handed over: its outcome, and
   * each value it extracts, read on the live screen where the recording shows them (one look each).
   */
  #claims(subtask: PlannedSubtask, state: SubtaskState): RecordedClaims {
    const live = () => this.#ctx.desktop.captureFrame().then(liveImage);
    const layout = () => state.layout ?? RECORDED;
    return {
      outcome: async () => {
        const examples = await this.#examples(subtask);
        if (!examples) return null;
        const { region, spots } = examples;
        return claimedOutcome(await checkShownValues(this.#ctx.ocr, await live(), region, layout(), spots));
      },
      extract: async (variable, value) => {
        const step = subtask.steps.find((s) => s.variable_name === variable);
        const recorded = step ? this.#steps.of(step) : null;
        if (!recorded || recorded instanceof TraceUnavailableError) return null;
        if (recorded.event.action_type !== 'extract') return null;
        const [example, pre, screen] = await Promise.all([this.#exampleOf(recorded), recorded.pre(), live()]);
        if (!example || pre.width !== screen.width || pre.height !== screen.height) return null;
        const shown = await readExtract(this.#ctx.ocr, example, screen, layout());
        return claimedExtract(value, shown, example.label);
      },
    };
  }
}

function describeStep(step: WorkflowStep): string {
  return `${formatStep(step.i)} (${step.action_type.toLowerCase()}${step.action_value ? ` ${step.action_value}` : ''})`;
}

/** The trace-mode executor. */
export async function runTrace(context: RunContext): Promise<void> {
  await new RecordedRun(context, { mode: 'trace', handsOver: false }).run();
}

/** The auto-mode executor. */
export async function runAuto(context: RunContext): Promise<void> {
  await new RecordedRun(context, { mode: 'auto', handsOver: true }).run();
}
