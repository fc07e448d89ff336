/**
 * The trace and auto modes: replay the recorded steps one by one, without a model, and verify each on
 * the screen.
 *
 * - Before a step, wait (up to the step timeout) for the recorded screen: the target region as the
 *   PRE frame shows it, with the pointer moved onto it as the recording had it (hover states match).
 * - After a typing or key step, wait for the change the recording shows (the next PRE frame) in the
 *   region the action changed; at the end of a subtask, for its recorded outcome. Both compare layout,
 *   not pixels, so new param values still pass and a dialog that never opened does not.
 * - trace (seed 002) stops at the first check that fails, with both crops saved.
 * - auto accepts a click at its recorded place (trace's own comparison), else re-finds the target:
 *   near where the previous step of the subtask found the layout, or anywhere when the match is unique.
 *   When a check fails it hands the rest of the subtask to the agent explicitly, then resumes with the
 *   next subtask; without a model it stops like trace. It never reports an unverified step as done.
 *
 * An EXTRACT step is read by OCR: where the recorded example value stood (after its label, e.g.
 * "Now playing:"), the live screen is read; without an example, auto asks the agent, trace skips it.
 */
import type { RawFrame } from '@mime-desktop/os-io';
import {
  type ActionManifestEvent,
  describeElement,
  type ElementIdentity,
  identityOf,
  isMimeError,
  isSecretElement,
  type LocatorRung,
  type RunAction,
  type ScreenCheck,
  stepFrameName,
  type WorkflowStep,
} from '@mime-desktop/schema';
import {
  type Box,
  changedCellsIn,
  changedRegion,
  clampBox,
  crop,
  encodeImage,
  findPhrase,
  findTemplate,
  greyContrast,
  layoutProgress,
  type OcrEngine,
  type OcrWord,
  type RgbaImage,
  similarity,
  type TemplateMatch,
  wordsLeftOf,
  wordsRightOf,
} from '@mime-desktop/vision';
import { describeAction } from '../actions/computer-action.ts';
import { executeAction } from '../actions/execute-action.ts';
import { sleep, waitForSettle } from '../actions/screen-settle.ts';
import type { HistoryEntry } from '../agent/prompt.ts';
import { ReplayDivergenceError, TraceUnavailableError } from '../errors.ts';
import type { At, SubtaskEntry } from '../run/journal.ts';
import { type PlannedSubtask, planFromWorkflow } from '../run/plan.ts';
import type { RunContext } from '../run/run-context.ts';
import { isMoved, type Layout, mapBox, mapPoint, RECORDED } from './layout-map.ts';
import { locateElement } from './locate-element.ts';
import {
  boxAround,
  liveImage,
  loadRecording,
  type RecordedStep,
  type RecordedSteps,
  type Recording,
  recordedAction,
  recordedSteps,
} from './recorded-step.ts';
import { checkShownValues, findExamples, type ShownValue } from './shown-values.ts';

/** The target region must be at least this alike the recording (pixels pixelmatch finds equal). */
export const TRACE_TARGET_SIMILARITY = 0.9;
/** The whole screen must be at least this alike before a step (other text may differ with new params). */
export const TRACE_SCREEN_SIMILARITY = 0.7;
/**
 * Auto: a re-found target needs this correlation and contrast; far from where the layout is expected
 * it also needs this lead over the next best place; near it, the offset may differ by this much.
 */
export const AUTO_MATCH = { score: 0.8, margin: 0.05, contrast: 8, offsetTolerance: 32 } as const;
/**
 * A change check passes when at least `toAfter` of the cells the recorded action changed look like the
 * recording after it, and at most `stillBefore` still look like before. Measured on the demo app with
 * 10 other song titles than the recorded one: done 0.42-1.0 after / 0.0-0.35 before; not done 0.0-0.13
 * after / 0.86-1.0 before.
 */
export const CHANGE_CHECK = { toAfter: 0.3, stillBefore: 0.6 } as const;
/** Pause between captures while waiting for the recorded screen, ms: about a frame at 60 Hz. */
const POLL_MS = 16;
/**
 * The stable window of trace and auto after an action, ms: two frames at 60 Hz. Shorter than the
 * agent's, because every look that follows polls until the screen shows what the recording shows.
 */
const RECORDED_STABLE_MS = 33;

type Mode = 'trace' | 'auto';

/** Where the recorded target is on the live screen. */
interface Located {
  /** Recorded point -> live point. */
  map: (point: { x: number; y: number }) => { x: number; y: number };
  layout: Layout;
  score: number;
  reason: string;
  /** The rung of the ladder that found the target; none for a step without one. */
  rung?: LocatorRung;
  /** The target's element on the live screen, when the accessibility tree named it. */
  element?: ElementIdentity;
}

/** A failed check, with what the report needs to show it. */
interface Failure {
  check: ScreenCheck;
  step_i: number | null;
  reason: string;
  similarity: number;
  threshold: number;
  /** Region of the recorded frame compared; null for the whole screen. */
  region: Box | null;
  /** The recorded frame the live screen was compared with. */
  expected: RgbaImage;
  /** Where the compared region stands on the live screen. */
  layout: Layout;
  /** Whether auto mode could have found the target elsewhere (a step with a target, before it ran). */
  regroundable: boolean;
  /** What the step does, e.g. `left_click at (240, 120)`. */
  description: string;
}

/** The outcome of one look at the screen. */
type Look<T> = { ok: true; value: T; score: number | null } | { ok: false; failure: Failure };

/** What a subtask learned so far: where the layout is, and what was done (the agent's history on a hand-over). */
interface SubtaskState {
  layout: Layout | null;
  done: HistoryEntry[];
}

const ratio = (n: number) => `${Math.round(n * 100)}%`;
/** The label left of the example value in the recorded frame, and the value's box. */
function locateExample(
  words: readonly OcrWord[],
  values: readonly string[],
): { label: string; box: Box } | null {
  let best: { label: string; box: Box } | null = null;
  for (const value of values) {
    for (const box of findPhrase(words, value)) {
      const label = wordsLeftOf(words, box)
        .slice(-3)
        .map((w) => w.text)
        .join(' ');
      if (!best || label.length > best.label.length) best = { label, box };
    }
  }
  return best;
}

/** Reads an extract from the live screen where its example value stood in the recording; null when it cannot. */
async function extractByOcr(
  ocr: OcrEngine,
  event: ActionManifestEvent,
  prePng: Buffer,
  live: RgbaImage,
): Promise<string | null> {
  if (event.action_type !== 'extract' || event.action_details.values.length === 0) return null;
  const example = locateExample(await ocr.readWords(prePng), event.action_details.values);
  if (!example?.label) return null;
  const liveWords = await ocr.readWords(await encodeImage(live));
  const anchor = findPhrase(liveWords, example.label)[0];
  if (!anchor) return null;
  const value = wordsRightOf(liveWords, anchor)
    .map((w) => w.text)
    .join(' ')
    .trim();
  return value || null;
}

/** How alike a region of the recording is to where the layout puts it on the live screen (same size only). */
function similarityAt(recorded: RgbaImage, live: RgbaImage, box: Box, layout: Layout): number {
  if (layout.scale !== 1) return 0;
  const region = clampBox(box, recorded);
  const moved = mapBox(layout, region);
  if (
    moved.x < 0 ||
    moved.y < 0 ||
    moved.x + moved.width > live.width ||
    moved.y + moved.height > live.height
  )
    return 0;
  return similarity(crop(recorded, region), crop(live, moved));
}

/**
 * Whether the live region went from the recorded before-frame to the recorded after-frame. A layout
 * found moved or resized is known to a few pixels only: nearby positions are tried too.
 */
function checkChange(
  live: RgbaImage,
  before: RgbaImage,
  after: RgbaImage,
  region: Box,
  layout: Layout,
): { ok: boolean; toAfter: number } {
  const nudges = isMoved(layout) ? [-6, -3, 0, 3, 6] : [0];
  let best = { ok: false, toAfter: 0, lead: Number.NEGATIVE_INFINITY };
  for (const ny of nudges) {
    for (const nx of nudges) {
      const transform = { ...layout, dx: layout.dx + nx, dy: layout.dy + ny };
      const progress = layoutProgress(live, before, after, region, { transform });
      const lead = progress.toAfter - progress.toBefore;
      if (lead > best.lead) {
        const ok = progress.toAfter >= CHANGE_CHECK.toAfter && progress.toBefore <= CHANGE_CHECK.stillBefore;
        best = { ok, toAfter: progress.toAfter, lead };
      }
    }
  }
  return { ok: best.ok, toAfter: best.toAfter };
}

/**
 * Whether the live screen changed since `liveBefore` where the recording's action changed it
 * (`expected`, mapped): at least 30% as many cells as the recording changed there, whatever
 * changed elsewhere (a focus ring moving on, a caret). Typing into another field changes nothing there.
 */
function checkPlace(
  liveBefore: RgbaImage,
  live: RgbaImage,
  expected: Box,
  recordedCells: number,
): { ok: boolean; toAfter: number } {
  const { inside } = changedCellsIn(liveBefore, live, expected);
  const needed = Math.max(2, recordedCells * CHANGE_CHECK.toAfter);
  return { ok: inside >= needed, toAfter: Math.min(1, inside / Math.max(1, recordedCells)) };
}

class RecordedRun {
  readonly #ctx: RunContext;
  readonly #mode: Mode;
  #recording: Recording = { events: new Map(), frames: new Map() };
  #steps: RecordedSteps = {
    of: (step) => new TraceUnavailableError(`step ${step.i}: the workflow has no recording`),
    frame: () => Promise.reject(new TraceUnavailableError('the workflow has no recording')),
  };
  /**
   * An action ran since the last look at the screen. Not at the start: a screen still loading fails
   * the first look, which then polls, and the look after it waits for the screen to settle.
   */
  #acted = false;
  /** Where two recorded frames differ, by frame pair: the same checks run in every poll. */
  readonly #regions = new WeakMap<RgbaImage, WeakMap<RgbaImage, Box | null>>();

  constructor(context: RunContext, mode: Mode) {
    this.#ctx = context;
    this.#mode = mode;
  }

  async run(): Promise<void> {
    // Auto mode replays what it can: a workflow with no recording (hand-written) goes to the agent.
    try {
      this.#recording = await loadRecording(this.#ctx.workflowDir);
      this.#steps = recordedSteps(this.#ctx.workflowDir, this.#recording);
    } catch (error) {
      if (this.#mode === 'trace') throw error;
    }
    const plan = planFromWorkflow(this.#ctx.workflow);
    for (const [index, subtask] of plan.entries()) await this.#runSubtask(subtask, index, plan);
  }

  async #runSubtask(subtask: PlannedSubtask, index: number, plan: readonly PlannedSubtask[]): Promise<void> {
    const { journal } = this.#ctx;
    const after = plan.slice(index + 1);
    const entry = journal.beginSubtask(subtask, { index, count: plan.length });
    journal.setPending(after);
    const state: SubtaskState = { layout: null, done: [] };
    for (const step of subtask.steps) {
      const failure = await this.#runStep(step, entry, state);
      if (failure !== null) {
        await this.#handOver(subtask, entry, state, failure, after);
        return;
      }
    }
    const outcome = await this.#checkOutcome(subtask, entry, state);
    if (outcome !== null) {
      await this.#handOver(subtask, entry, state, outcome, after);
      return;
    }
    entry.end('success');
    journal.noteSubtaskDone(subtask.text);
  }

  /** Checks, executes and verifies one step; returns why the subtask cannot go on without the model, or null. */
  async #runStep(step: WorkflowStep, entry: SubtaskEntry, state: SubtaskState): Promise<string | null> {
    const { budgets, settings, journal } = this.#ctx;
    budgets.checkWallTime();
    budgets.chargeIteration(`subtask ${entry.subtask_i}`);
    const turn = entry.nextTurn();
    const recorded = this.#steps.of(step);
    if (recorded instanceof TraceUnavailableError) {
      if (this.#mode === 'trace') throw recorded;
      entry.recordStep({ i: step.i, executed_by: 'skipped', reason: recorded.message });
      return this.#needModel(recorded.message, null);
    }
    // The frame after the action (checked after it, and the next step's PRE frame) decodes while
    // this step's screen is waited for.
    recorded.post().catch(() => undefined);
    if (recorded.event.action_type === 'extract') return this.#extract(recorded, entry, turn, state);
    const before = await this.#lookBefore(recorded, turn, state);
    const action = before.ok ? recordedAction(recorded, before.value.map) : recordedAction(recorded);
    const description = action ? describeAction(action) : step.action_type.toLowerCase();
    const regrounded =
      before.ok &&
      before.value.rung !== undefined &&
      before.value.rung !== 'recorded-place' &&
      (before.value.map !== identity || before.value.rung !== 'accessibility');
    const stopsHere = this.#mode === 'trace' ? 'skipped' : 'agent';
    const executed_by = !before.ok ? stopsHere : regrounded ? 'regrounded' : 'trace';
    // A target re-found by its pixels is named by the tree too where it can be: a heal keeps it.
    const element =
      before.ok && regrounded && !before.value.element && action && 'point' in action && action.point
        ? await this.#elementAt(action.point)
        : before.ok
          ? before.value.element
          : undefined;
    const reason = before.ok
      ? before.value.reason
      : `${this.#mode === 'trace' ? 'stopped here' : 'handed to the agent'}: ${before.failure.reason}`;
    journal.emit({
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
        this.#ctx.secrets,
        step.type_delay_ms ?? settings.typeDelayMs,
      );
      this.#acted = true;
    }
    state.layout = before.value.layout;
    if (action && !settings.dryRun && (action.action === 'type' || action.action === 'key')) {
      const byContent =
        action.action === 'type' ? await this.#checkTyped(recorded, turn, state, action.text) : null;
      const failure = byContent ?? (await this.#checkAfter(recorded, turn, state, before.live, action));
      if (failure !== null && failure !== VERIFIED) return failure;
    }
    entry.recordStep({ i: step.i, executed_by, reason });
    state.done.push({ call: description, observation: '', result: 'executed (replayed from the recording)' });
    journal.noteCompleted(`step ${step.i} (${step.intent}): ${description}, replayed from the recording`);
    return null;
  }

  /**
   * Waits for the screen to settle when an action ran since the last look, then polls (about a
   * frame apart) until `look` passes or the step timeout. A look cannot always tell the app has not
   * reacted yet (an extract reads whatever is there), so after an action the screen must first stay
   * the same for two frames. A screen already looked at since is not waited for again.
   */
  async #watch<T>(
    look: (live: RgbaImage) => Promise<Look<T>> | Look<T>,
  ): Promise<{ look: Look<T>; live: RgbaImage; frame: RawFrame; waitedMs: number }> {
    const { desktop, settings, signal } = this.#ctx;
    const started = performance.now();
    let frame = this.#acted
      ? (
          await waitForSettle(() => desktop.captureFrame(), {
            ...settings.settle,
            stableMs: Math.min(settings.settle.stableMs, RECORDED_STABLE_MS),
            signal,
          })
        ).frame
      : await desktop.captureFrame();
    // The screen counts as still for the next look only when this one passed at once: a look that
    // had to poll saw the screen changing.
    this.#acted = false;
    for (;;) {
      const live = await liveImage(frame);
      const result = await look(live);
      const waitedMs = performance.now() - started;
      if (result.ok || waitedMs >= settings.stepTimeoutMs) return { look: result, live, frame, waitedMs };
      this.#acted = true;
      await sleep(POLL_MS, signal);
      frame = await desktop.captureFrame();
    }
  }

  /**
   * Moves the pointer onto a point first, as the recording had it there: hover states then match.
   * It does not wait for the pointer to rest: the look polls until the screen matches, and the click
   * there waits out the rest (its own settle) before it presses.
   */
  async #hover(point: { x: number; y: number } | null): Promise<void> {
    if (!point || this.#ctx.settings.dryRun) return;
    const { width, height } = this.#ctx.desktop.screen.logical;
    if (point.x < 0 || point.y < 0 || point.x >= width || point.y >= height) return;
    await this.#ctx.desktop.movePointer(point, { rest: false });
  }

  /** The check before a step: the recorded screen around its target (or as a whole), waited for. */
  async #lookBefore(
    recorded: RecordedStep,
    turn: At,
    state: SubtaskState,
  ): Promise<Look<Located> & { screenshot: string; waitedMs: number; live: RgbaImage }> {
    const { step } = recorded;
    const pre = await recorded.pre();
    const box = step.source?.box ?? null;
    const point = step.source?.point ?? null;
    const expected = state.layout ?? RECORDED;
    if (box && point) await this.#hover(mapPoint(expected, point));
    const element = step.target.element;
    const a11y = element ? await this.#ctx.desktop.accessibility() : null;
    const watched = await this.#watch(async (live) => {
      if (a11y && element) {
        const byElement = await locateElement(a11y, element, box && point ? point : null);
        if (byElement) {
          const layout = byElement.layout ?? state.layout ?? RECORDED;
          const found = located(byElement.map, layout, 1, byElement.reason, 'accessibility');
          return found.ok ? { ...found, value: { ...found.value, element: byElement.element } } : found;
        }
      }
      if (pre.width !== live.width || pre.height !== live.height) {
        // Another screen size is no divergence by itself: a step found the app's layout on it.
        if (!(box && point) && state.layout !== null) {
          return located(identity, state.layout, null, 'the layout was found on this screen: checked after');
        }
        return this.#mode === 'auto' && box && point
          ? this.#reground(recorded, pre, live, state)
          : failed(step.i, 'before_step', 'the screen size differs from the recording', 0, 1, null, pre);
      }
      if (box && point) {
        return this.#mode === 'trace'
          ? checkAtRecordedPlace(step.i, pre, live, box)
          : this.#reground(recorded, pre, live, state);
      }
      // No target to look at (typing, a key): the screen as a whole, unless auto already found it moved.
      if (this.#mode === 'auto' && state.layout && isMoved(state.layout)) {
        return located((p) => p, state.layout, null, 'the layout was found moved: checked after');
      }
      const whole = similarity(pre, live);
      return whole >= TRACE_SCREEN_SIMILARITY
        ? located(identity, RECORDED, whole, `the screen matches the recording (${ratio(whole)} alike)`)
        : failed(
            step.i,
            'before_step',
            'the screen is not the one recorded before this step',
            whole,
            TRACE_SCREEN_SIMILARITY,
            null,
            pre,
          );
    });
    const screenshot = this.#ctx.journal.saveFrame(stepFrameName(turn.subtask_i, step.i), watched.frame);
    return { ...watched.look, screenshot, waitedMs: watched.waitedMs, live: watched.live };
  }

  /** Auto: the recorded target at its expected place, or re-found near it, or (first in a subtask) anywhere unique. */
  async #reground(
    recorded: RecordedStep,
    pre: RgbaImage,
    live: RgbaImage,
    state: SubtaskState,
  ): Promise<Look<Located>> {
    const { step } = recorded;
    const box = step.source?.box as Box;
    const point = step.source?.point as { x: number; y: number };
    const expected = state.layout ?? RECORDED;
    const sameSize = pre.width === live.width && pre.height === live.height;
    if (sameSize) {
      const atPlace = similarityAt(pre, live, box, expected);
      // A featureless target (an empty field) matches any blank place: its surroundings must match too.
      const featureless = greyContrast(pre, box) < AUTO_MATCH.contrast;
      const context = clampBox(boxAround(point, box.width * 4, box.height * 4), pre);
      if (
        atPlace >= TRACE_TARGET_SIMILARITY &&
        (!featureless || similarityAt(pre, live, context, expected) >= TRACE_TARGET_SIMILARITY)
      ) {
        const moved = isMoved(expected);
        const map = moved ? (p: { x: number; y: number }) => mapPoint(expected, p) : identity;
        const reason = moved
          ? `target where the layout was found, moved by (${expected.dx}, ${expected.dy}) (${ratio(atPlace)} alike)`
          : `target found where it was recorded (${ratio(atPlace)} alike)`;
        return located(map, expected, atPlace, reason, 'recorded-place');
      }
    }
    const search = async (
      context: number,
      within?: Box,
    ): Promise<{ match: TemplateMatch; wide: Box } | null> => {
      const wide = clampBox(boxAround(point, box.width * context, box.height * context), pre);
      const match = await findTemplate(live, crop(pre, wide), within ? { within } : {});
      return match ? { match, wide } : null;
    };
    let found = await search(2, this.#near(point, box, expected, live));
    if (found && found.match.contrast < AUTO_MATCH.contrast) {
      // A flat target (an empty text area, a field with a caret): its surroundings tell where it is.
      found = await search(4, this.#near(point, box, expected, live, 4));
    }
    const near = found && this.#consistent(found.match, found.wide, expected, point);
    if (
      found &&
      near &&
      found.match.score >= AUTO_MATCH.score &&
      found.match.contrast >= AUTO_MATCH.contrast
    ) {
      return this.#foundAt(found.match, found.wide, 'near where the layout was expected', 'template-near');
    }
    return this.#findAnywhere(recorded, pre, live, state, found, search);
  }

  /** Auto, when the target is not near its expected place: anywhere unique, for the first target of a subtask only. */
  async #findAnywhere(
    recorded: RecordedStep,
    pre: RgbaImage,
    live: RgbaImage,
    state: SubtaskState,
    near: { match: TemplateMatch; wide: Box } | null,
    search: (context: number) => Promise<{ match: TemplateMatch; wide: Box } | null>,
  ): Promise<Look<Located>> {
    const { step } = recorded;
    const box = step.source?.box as Box;
    const expected = state.layout ?? RECORDED;
    const atPlace =
      pre.width === live.width && pre.height === live.height ? similarityAt(pre, live, box, expected) : 0;
    const fail = (why: string) =>
      failed(step.i, 'before_step', why, atPlace, TRACE_TARGET_SIMILARITY, box, pre);
    if (state.layout !== null) {
      return fail(
        near
          ? `the recorded target was not found near where the previous step found the layout (best ${ratio(near.match.score)} at ${JSON.stringify(mapPoint(layoutOf(near.match, near.wide), step.source?.point ?? { x: 0, y: 0 }))}, expected ${JSON.stringify(mapPoint(expected, step.source?.point ?? { x: 0, y: 0 }))})`
          : 'the recorded target is larger than the screen',
      );
    }
    const anywhere = await search(2);
    const m = anywhere?.match;
    if (!anywhere || !m) return fail('the recorded target is larger than the screen');
    if (m.contrast < AUTO_MATCH.contrast) {
      return fail('the recorded target and its surroundings have too little detail to find');
    }
    if (m.score >= AUTO_MATCH.score && m.margin >= AUTO_MATCH.margin) {
      return this.#foundAt(m, anywhere.wide, 'unique on the screen', 'template-anywhere');
    }
    return fail(
      `the recorded target was not found with confidence (best ${ratio(m.score)}, ${ratio(m.margin)} ahead of the next place)`,
    );
  }

  /** The search window around the expected place of a target: its context and as much again around it. */
  #near(point: { x: number; y: number }, box: Box, layout: Layout, live: RgbaImage, context = 2): Box {
    const size = context * 2 * layout.scale;
    return clampBox(boxAround(mapPoint(layout, point), box.width * size, box.height * size), live);
  }

  /** Whether a match puts the recorded point where the expected layout does (a window does not jump within a subtask). */
  #consistent(match: TemplateMatch, wide: Box, expected: Layout, point: { x: number; y: number }): boolean {
    const found = mapPoint(layoutOf(match, wide), point);
    const want = mapPoint(expected, point);
    return (
      Math.abs(found.x - want.x) <= AUTO_MATCH.offsetTolerance &&
      Math.abs(found.y - want.y) <= AUTO_MATCH.offsetTolerance
    );
  }

  #foundAt(match: TemplateMatch, wide: Box, where: string, rung: LocatorRung): Look<Located> {
    const layout = layoutOf(match, wide);
    const moved = isMoved(layout);
    const by = { dx: match.box.x - wide.x, dy: match.box.y - wide.y };
    const reason = moved
      ? `target re-found ${where} (${ratio(match.score)} alike), moved by (${by.dx}, ${by.dy})${match.scale === 1 ? '' : ` at ${match.scale}x size`}`
      : `target found where it was recorded (${ratio(match.score)} alike)`;
    return located(moved ? (p) => mapPoint(layout, p) : identity, layout, match.score, reason, rung);
  }

  /** The element under a live point, when the accessibility tree names it. */
  async #elementAt(point: { x: number; y: number }): Promise<ElementIdentity | undefined> {
    const a11y = await this.#ctx.desktop.accessibility();
    const element = await a11y?.elementAt(point).catch(() => null);
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
    const element = recorded.step.target.element;
    if (!element || isSecretElement(element) || /\{[A-Za-z_]\w*\}/u.test(typed)) return null;
    const a11y = await this.#ctx.desktop.accessibility();
    if (!a11y) return null;
    let text: string | null | undefined = null;
    const watched = await this.#watch(async () => {
      const focused = await a11y.focused().catch(() => null);
      text = focused?.text;
      if (typeof text === 'string' && text.includes(typed)) {
        return located(identity, state.layout ?? RECORDED, 1, '');
      }
      return failed(
        recorded.step.i,
        'after_step',
        focused && typeof text === 'string'
          ? `after ${describeStep(recorded.step)}, the focused ${describeElement(focused)} holds ${JSON.stringify(text)}, not the typed text`
          : `after ${describeStep(recorded.step)}, no focused field holds the typed text`,
        0,
        1,
        null,
        await recorded.pre(),
      );
    });
    if (text === undefined && !watched.look.ok) return null;
    if (!watched.look.ok) {
      return this.#fail(
        { ...watched.look.failure, description: `type ${JSON.stringify(typed)}` },
        turn,
        watched.live,
      );
    }
    this.#ctx.journal.emit({
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

  /** After a typing or key step: the change the recording shows in the next frame must appear. */
  async #checkAfter(
    recorded: RecordedStep,
    turn: At,
    state: SubtaskState,
    liveBefore: RgbaImage,
    action: RunAction,
  ): Promise<string | null> {
    const [pre, post] = await Promise.all([recorded.pre(), recorded.post()]);
    if (!post) return null;
    const { event } = recorded;
    // Other text than recorded (a new param value) changes the screen in the same place, not the same way.
    const otherText =
      action.action === 'type' && event.action_type === 'type' && action.text !== event.action_details.text;
    return this.#verifyChange({
      liveBefore: otherText ? liveBefore : null,
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
    const sources = subtask.steps.flatMap((s) => (s.source ? [s.source] : []));
    const first = sources[0];
    if (!first) return null;
    const endFrame = this.#recording.frames.get(Math.max(...sources.map((s) => s.event_index)) + 1);
    if (!endFrame) return null;
    const before = await this.#steps.frame(first.screenshot);
    const after = await this.#steps.frame(endFrame);
    const turn = { subtask_i: entry.subtask_i, iteration: entry.record.iterations };
    const byContent = await this.#checkShown(subtask, before, after, state.layout ?? RECORDED, turn);
    if (byContent !== null) return byContent === VERIFIED ? null : byContent;
    return this.#verifyChange({
      check: 'subtask_outcome',
      step_i: null,
      before,
      after,
      layout: state.layout ?? RECORDED,
      turn,
      liveBefore: null,
      reason: `the screen does not show the outcome the recording shows at the end of subtask ${subtask.subtask_i}`,
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
    before: RgbaImage,
    after: RgbaImage,
    layout: Layout,
    turn: At,
  ): Promise<string | null> {
    const region = this.#recordedChange(before, after);
    const values = this.#shownValues();
    if (!region || values.length === 0) return null;
    const spots = await findExamples(this.#ctx.ocr, before, after, region, values);
    if (spots.length === 0) return null;
    const watched = await this.#watch(async (live) => {
      const verdict = await checkShownValues(this.#ctx.ocr, live, region, layout, spots);
      if (verdict.kind !== 'missing') return located(identity, layout, 1, '');
      const { value } = verdict;
      return failed(
        null,
        'subtask_outcome',
        `the screen does not show ${value.name} = ${JSON.stringify(value.value)} where the recording shows ${JSON.stringify(value.example)} at the end of subtask ${subtask.subtask_i} (that line reads ${JSON.stringify(verdict.read)})`,
        0,
        1,
        verdict.box,
        after,
      );
    });
    if (!watched.look.ok) return this.#fail({ ...watched.look.failure, layout }, turn, watched.live);
    this.#ctx.journal.emit({
      type: 'verify',
      ...turn,
      step_i: null,
      check: 'subtask_outcome',
      similarity: 1,
      threshold: 1,
      region: mapBox(layout, region),
    });
    return VERIFIED;
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
    /** Given: only where the screen changed since this frame is checked (it must be where the recording changed). */
    liveBefore: RgbaImage | null;
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
    const recordedCells = spec.liveBefore ? changedCellsIn(before, after, region).inside : 0;
    const watched = await this.#watch((live) => {
      // A layout found by a locator (not the recorded one) maps the compared region to any screen.
      const sameSize = (live.width === before.width && live.height === before.height) || layout !== RECORDED;
      const change = !sameSize
        ? { ok: false, toAfter: 0 }
        : spec.liveBefore
          ? checkPlace(spec.liveBefore, live, mapBox(layout, region), recordedCells)
          : checkChange(live, before, after, region, layout);
      return change.ok
        ? located(identity, layout, change.toAfter, '')
        : failed(
            spec.step_i,
            spec.check,
            sameSize ? spec.reason : 'the screen size differs from the recording',
            change.toAfter,
            CHANGE_CHECK.toAfter,
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
    this.#ctx.journal.emit({
      type: 'verify',
      ...turn,
      step_i: spec.step_i,
      check: spec.check,
      similarity: watched.look.score ?? 1,
      threshold: CHANGE_CHECK.toAfter,
      region: mapBox(layout, region),
    });
    return null;
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
    const { journal } = this.#ctx;
    const { step } = recorded;
    const description = `extract ${step.variable_name ?? ''}`.trim();
    // OCR reads whatever is on the screen: the change the recording shows since its previous event
    // (the value appearing after a click) must be there first, or the old value would be read.
    const previous = this.#recording.frames.get((step.source?.event_index ?? 0) - 1);
    if (previous !== undefined && !this.#ctx.settings.dryRun) {
      const failure = await this.#verifyChange({
        liveBefore: null,
        check: 'before_step',
        step_i: step.i,
        before: await this.#steps.frame(previous),
        after: await recorded.pre(),
        layout: state.layout ?? RECORDED,
        turn,
        reason: `before ${describeStep(step)}, the screen does not show the change the recording shows since the previous action`,
        description,
      });
      if (failure !== null) return failure;
    }
    const watched = await this.#watch(() => located(identity, RECORDED, null, ''));
    const screenshot = journal.saveFrame(stepFrameName(turn.subtask_i, step.i), watched.frame);
    const pre = await recorded.pre();
    const value =
      pre.width === watched.live.width && pre.height === watched.live.height
        ? await extractByOcr(this.#ctx.ocr, recorded.event, await recorded.prePng(), watched.live)
        : null;
    const report = (executed_by: 'trace' | 'agent' | 'skipped', reason: string) =>
      journal.emit({
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
      if (step.variable_name) journal.storeExtract(step.variable_name, step.action_value ?? '', value, turn);
      entry.recordStep({ i: step.i, executed_by: 'trace', reason });
      state.done.push({
        call: `extract ${step.variable_name} = ${JSON.stringify(value)}`,
        observation: '',
        result: 'stored',
      });
      return null;
    }
    if (this.#mode === 'auto') {
      const reason = 'the value could not be read without the model';
      report('agent', `handed to the agent: ${reason}`);
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
    const { journal } = this.#ctx;
    const area = failure.region ?? {
      x: 0,
      y: 0,
      width: failure.expected.width,
      height: failure.expected.height,
    };
    const [expectedPng, observedPng] = await Promise.all([
      encodeImage(crop(failure.expected, clampBox(area, failure.expected))),
      encodeImage(crop(live, clampBox(mapBox(failure.layout, area), live))),
    ]);
    const tag = failure.step_i === null ? `subtask_${turn.subtask_i}` : `step_${failure.step_i}`;
    const expected = journal.saveImage(`divergence_${tag}_expected.png`, expectedPng);
    const observed = journal.saveImage(`divergence_${tag}_observed.png`, observedPng);
    journal.emit({
      type: 'divergence',
      ...turn,
      step_i: failure.step_i,
      check: failure.check,
      expected,
      observed,
      similarity: failure.similarity,
      threshold: failure.threshold,
      region: failure.region,
    });
    const divergence = new ReplayDivergenceError({
      step: failure.step_i,
      description: failure.description,
      subtask: turn.subtask_i,
      check: failure.check,
      reason: failure.reason,
      similarity: failure.similarity,
      threshold: failure.threshold,
      crops: [expected, observed],
      regroundable: this.#mode === 'trace' && failure.regroundable,
    });
    if (this.#mode === 'trace') throw divergence;
    return this.#needModel(failure.reason, divergence);
  }

  /** Auto: the reason to hand over when a model is configured; else the divergence (or the reason) is thrown. */
  async #needModel(reason: string, divergence: ReplayDivergenceError | null): Promise<string> {
    const missing = await this.#ctx.model.client().then(
      () => null,
      (error: unknown) => (isMimeError(error) && error.exit === 'usage' ? error : Promise.reject(error)),
    );
    if (missing === null) return reason;
    throw divergence?.withoutModel(missing) ?? missing;
  }

  /** Auto: the rest of the subtask goes to the agent, which finishes it (or replans it) from the live screen. */
  async #handOver(
    subtask: PlannedSubtask,
    entry: SubtaskEntry,
    state: SubtaskState,
    reason: string,
    after: readonly PlannedSubtask[],
  ): Promise<void> {
    const { journal } = this.#ctx;
    journal.emit({
      type: 'handover',
      subtask_i: entry.subtask_i,
      reason,
      completed_steps: entry.record.executions.filter((e) => e.executed_by !== 'skipped').map((e) => e.i),
    });
    entry.handOver(reason);
    // The agent loop is loaded on the first hand-over: a run that needs no model never loads it.
    const { finishWithAgent } = await import('../agent/agent-executor.ts');
    await finishWithAgent(this.#ctx, { subtask, entry, done: state.done, after });
  }
}

/** A check passed (by content): nothing else to check. */
const VERIFIED = 'verified';

/** The identity mapping of recorded points (the target is where it was recorded). */
const identity = (p: { x: number; y: number }) => p;

/** The layout a template match found: where the recorded crop `wide` stands now, and at what size. */
function layoutOf(match: TemplateMatch, wide: Box): Layout {
  return {
    scale: match.scale,
    dx: match.box.x - wide.x * match.scale,
    dy: match.box.y - wide.y * match.scale,
  };
}

function located(
  map: Located['map'],
  layout: Layout,
  score: number | null,
  reason: string,
  rung?: LocatorRung,
): Look<Located> {
  return { ok: true, value: { map, layout, score: score ?? 1, reason, ...(rung ? { rung } : {}) }, score };
}

function failed(
  step_i: number | null,
  check: ScreenCheck,
  reason: string,
  value: number,
  threshold: number,
  region: Box | null,
  expected: RgbaImage,
): Look<never> {
  const regroundable = check === 'before_step' && region !== null;
  return {
    ok: false,
    failure: {
      check,
      step_i,
      reason,
      similarity: value,
      threshold,
      region,
      expected,
      layout: RECORDED,
      regroundable,
      description: '',
    },
  };
}

/** Trace's check of a step with a target: the region and the whole screen alike the recording. */
function checkAtRecordedPlace(step_i: number, pre: RgbaImage, live: RgbaImage, box: Box): Look<Located> {
  const target = similarity(pre, live, box);
  if (target < TRACE_TARGET_SIMILARITY) {
    return failed(
      step_i,
      'before_step',
      'the target does not look as recorded',
      target,
      TRACE_TARGET_SIMILARITY,
      box,
      pre,
    );
  }
  const whole = similarity(pre, live);
  if (whole < TRACE_SCREEN_SIMILARITY) {
    return failed(
      step_i,
      'before_step',
      'the screen is not the one recorded',
      whole,
      TRACE_SCREEN_SIMILARITY,
      null,
      pre,
    );
  }
  return located(
    identity,
    RECORDED,
    target,
    `the screen matches the recording around the target (${ratio(target)} alike)`,
    'recorded-place',
  );
}

function describeStep(step: WorkflowStep): string {
  return `step ${step.i} (${step.action_type.toLowerCase()}${step.action_value ? ` ${step.action_value}` : ''})`;
}

/** The trace-mode executor. */
export async function runTrace(context: RunContext): Promise<void> {
  await new RecordedRun(context, 'trace').run();
}

/** The auto-mode executor. */
export async function runAuto(context: RunContext): Promise<void> {
  await new RecordedRun(context, 'auto').run();
}
