/**
 * The trace and auto modes: replay the recorded steps one by one, without a model.
 *
 * - trace (seed 002): before each action, compare the live screen with the recorded PRE frame around
 *   the target (and as a whole); stop at the first divergence with both crops saved.
 * - auto: re-find each target on the live screen (the recorded crop matched at several sizes) and
 *   act there when the match is confident; when it is not, hand the subtask to the agent loop, then
 *   go on trace-first with the next subtask.
 *
 * An EXTRACT step is read by OCR: where the recorded example value stood (after its label, e.g.
 * "Now playing:"), the live screen is read; without an example, auto asks the agent, trace skips it.
 */
import type { ActionManifestEvent } from '@mime-desktop/schema';
import {
  type Box,
  closeOcr,
  crop,
  encodeImage,
  findPhrase,
  findTemplate,
  type OcrWord,
  type RgbaImage,
  readWords,
  similarity,
  wordsLeftOf,
  wordsRightOf,
} from '@mime-desktop/vision';
import { describeAction, type ResolvedAction } from '../actions/computer-action.ts';
import { executeAction } from '../actions/execute-action.ts';
import { waitForSettle } from '../actions/screen-settle.ts';
import { runAgent } from '../agent/agent-executor.ts';
import { ReplayDivergenceError } from '../errors.ts';
import { type PlannedSubtask, planFromWorkflow } from '../run/plan.ts';
import type { RunContext, StepExecutionRecord } from '../run/run-context.ts';
import { RUN_FILES } from '../run/run-folder.ts';
import { type SubtaskRecord, startSubtaskRecord } from '../run/run-summary.ts';
import {
  boxAround,
  liveImage,
  loadRecordedEvents,
  type RecordedStep,
  recordedAction,
  recordedStep,
} from './recorded-step.ts';

/** Trace: the target region must be at least this alike the recording (pixels that pixelmatch finds equal). */
export const TRACE_TARGET_SIMILARITY = 0.9;
/** Trace: the whole screen must be at least this alike (other text may differ with new params). */
export const TRACE_SCREEN_SIMILARITY = 0.7;
/** Auto: a re-found target needs this correlation, this lead over the next best place, and this contrast. */
export const AUTO_MATCH = { score: 0.8, margin: 0.05, contrast: 8 } as const;
/** Auto: the crop matched is this many times the recorded target box, for context that makes it unique. */
const MATCH_CONTEXT = 2;

type Mode = 'trace' | 'auto';

/** A step's outcome before it is executed. */
type Decision =
  | {
      kind: 'act';
      action: ResolvedAction | null;
      execution: StepExecutionRecord;
      score: number | null;
      extract?: string;
    }
  | { kind: 'agent'; reason: string; score: number | null };

const ratio = (n: number) => `${Math.round(n * 100)}%`;

function matchBox(recorded: RecordedStep, image: RgbaImage): Box | null {
  const box = recorded.step.source?.box;
  const point = recorded.step.source?.point;
  if (!box || !point) return null;
  const wide = boxAround(point, box.width * MATCH_CONTEXT, box.height * MATCH_CONTEXT);
  const x = Math.max(0, Math.min(wide.x, image.width - wide.width));
  const y = Math.max(0, Math.min(wide.y, image.height - wide.height));
  return { x, y, width: Math.min(wide.width, image.width), height: Math.min(wide.height, image.height) };
}

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
  event: ActionManifestEvent,
  prePng: Buffer,
  live: RgbaImage,
): Promise<string | null> {
  if (event.action_type !== 'extract' || event.action_details.values.length === 0) return null;
  const example = locateExample(await readWords(prePng), event.action_details.values);
  if (!example?.label) return null;
  const liveWords = await readWords(await encodeImage(live));
  const anchor = findPhrase(liveWords, example.label)[0];
  if (!anchor) return null;
  const value = wordsRightOf(liveWords, anchor)
    .map((w) => w.text)
    .join(' ')
    .trim();
  return value || null;
}

class StepRun {
  readonly #ctx: RunContext;
  readonly #mode: Mode;
  #acted = false;

  constructor(context: RunContext, mode: Mode) {
    this.#ctx = context;
    this.#mode = mode;
  }

  async run(): Promise<void> {
    // Auto mode replays what it can: a workflow with no recording (hand-written) goes to the agent.
    const events = await loadRecordedEvents(this.#ctx.workflowDir).catch((error: unknown) => {
      if (this.#mode === 'trace') throw error;
      return new Map<number, ActionManifestEvent>();
    });
    const plan = planFromWorkflow(this.#ctx.workflow);
    try {
      for (const [index, subtask] of plan.entries()) {
        this.#ctx.state.pending = plan.slice(index + 1);
        await this.#runSubtask(subtask, index, plan.length, events);
      }
      this.#ctx.state.pending = [];
    } finally {
      // The OCR worker thread would keep the process alive.
      await closeOcr();
    }
  }

  async #runSubtask(
    subtask: PlannedSubtask,
    index: number,
    count: number,
    events: ReadonlyMap<number, ActionManifestEvent>,
  ): Promise<void> {
    const { emit } = this.#ctx;
    const executions: StepExecutionRecord[] = [];
    const { record, started } = startSubtaskRecord(this.#ctx, subtask, { index, count }, executions);
    let handedOver: string | null = null;
    let finished = false;
    try {
      for (const step of subtask.steps) {
        handedOver = await this.#runStep(step, subtask.subtask_i, record, executions, events);
        if (handedOver) break;
      }
      finished = true;
    } catch (error) {
      const next = subtask.steps[executions.length];
      if (next)
        executions.push({
          i: next.i,
          executed_by: 'skipped',
          reason: `stopped here: ${(error as Error).message}`,
        });
      throw error;
    } finally {
      if (!handedOver) {
        for (const step of subtask.steps.slice(executions.length)) {
          executions.push({
            i: step.i,
            executed_by: 'skipped',
            reason: 'not reached: the run stopped before it',
          });
        }
        record.duration_ms = performance.now() - started;
        record.outcome = finished ? 'success' : 'failed';
        emit({
          type: 'subtask_end',
          subtask_i: subtask.subtask_i,
          outcome: finished ? 'success' : 'failed',
          iterations: record.iterations,
          duration_ms: Math.round(record.duration_ms),
        });
      }
    }
    if (handedOver) await this.#handOver(subtask, record, handedOver);
  }

  /** Checks and executes one step; returns why the subtask goes to the agent, or null. */
  async #runStep(
    step: RecordedStep['step'],
    subtask_i: number,
    record: SubtaskRecord,
    executions: StepExecutionRecord[],
    events: ReadonlyMap<number, ActionManifestEvent>,
  ): Promise<string | null> {
    const { budgets, settings } = this.#ctx;
    budgets.checkWallTime();
    budgets.chargeIteration(`subtask ${subtask_i}`);
    const iteration = record.iterations;
    record.iterations += 1;
    const recorded =
      this.#mode === 'trace'
        ? recordedStep(this.#ctx.workflowDir, step, events)
        : this.#tryRecorded(step, events);
    if (!recorded) return `step ${step.i} has no recorded source`;
    const decision = await this.#decide(recorded, subtask_i, iteration);
    if (decision.kind === 'agent') return decision.reason;
    if (decision.action && !settings.dryRun) {
      await this.#ctx.pause.wait(this.#ctx.signal);
      await executeAction(this.#ctx.desktop, decision.action, this.#ctx.secrets);
      this.#acted = true;
    }
    if (decision.extract !== undefined && step.variable_name) {
      this.#storeExtract(step.variable_name, decision.extract, subtask_i, iteration, step.action_value ?? '');
    }
    executions.push(decision.execution);
    return null;
  }

  #tryRecorded(
    step: RecordedStep['step'],
    events: ReadonlyMap<number, ActionManifestEvent>,
  ): RecordedStep | null {
    try {
      return recordedStep(this.#ctx.workflowDir, step, events);
    } catch {
      return null;
    }
  }

  /** Auto mode: the rest of the subtask goes to the agent loop; its steps are reported as the agent's. */
  async #handOver(subtask: PlannedSubtask, partial: SubtaskRecord, reason: string): Promise<void> {
    const { state } = this.#ctx;
    state.records.pop();
    const done = partial.executions ?? [];
    const pending = state.pending;
    state.pending = [subtask];
    try {
      await runAgent(this.#ctx);
    } finally {
      const agentRecord = state.records.at(-1);
      if (agentRecord) {
        agentRecord.executions = [
          ...done,
          ...subtask.steps.slice(done.length).map((step) => ({
            i: step.i,
            executed_by: 'agent' as const,
            reason: `handed to the agent: ${reason}`,
          })),
        ];
      }
      state.pending = pending;
    }
  }

  #storeExtract(variable: string, value: string, subtask_i: number, iteration: number, query: string): void {
    const { state, folder, emit, redact } = this.#ctx;
    state.extracts.set(variable, value);
    emit({ type: 'extract', subtask_i, iteration, variable, query, value });
    folder.writeJson(RUN_FILES.extracts, redact.value(Object.fromEntries(state.extracts)));
  }

  async #capture(subtask_i: number, step_i: number): Promise<{ live: RgbaImage; screenshot: string }> {
    const { desktop, settings, folder, signal } = this.#ctx;
    const settled = await waitForSettle(() => desktop.captureFrame(), {
      ...settings.settle,
      afterAction: this.#acted,
      signal,
    });
    this.#acted = false;
    // Named by step, not iteration: an agent handed the subtask numbers its own iterations from 0.
    const screenshot = `subtask_${subtask_i}_step_${step_i}.png`;
    folder.saveFrame(screenshot, settled.frame);
    return { live: await liveImage(settled.frame), screenshot };
  }

  async #decide(recorded: RecordedStep, subtask_i: number, iteration: number): Promise<Decision> {
    const { step, event } = recorded;
    const { live, screenshot } = await this.#capture(subtask_i, step.i);
    const pre = await recorded.pre();
    const at = { subtask_i, iteration, step_i: step.i, screenshot };
    const report = (decision: Decision) => {
      const action = decision.kind === 'act' ? decision.action : null;
      const execution =
        decision.kind === 'act'
          ? decision.execution
          : { i: step.i, executed_by: 'agent' as const, reason: `handed to the agent: ${decision.reason}` };
      this.#ctx.emit({
        type: 'step',
        ...at,
        executed_by: execution.executed_by,
        reason: execution.reason,
        action,
        description: action
          ? describeAction(action)
          : `${step.action_type.toLowerCase()} ${step.variable_name ?? ''}`.trim(),
        score: decision.score,
      });
      return decision;
    };
    if (event.action_type === 'extract') return report(await this.#decideExtract(recorded, pre, live));
    if (this.#mode === 'trace') return report(await this.#checkTrace(recorded, pre, live, at));
    return report(await this.#reground(recorded, pre, live));
  }

  async #decideExtract(recorded: RecordedStep, pre: RgbaImage, live: RgbaImage): Promise<Decision> {
    const value =
      pre.width === live.width && pre.height === live.height
        ? await extractByOcr(recorded.event, await recorded.prePng(), live)
        : null;
    const i = recorded.step.i;
    if (value !== null) {
      const reason = 'read by OCR after the label the recorded example value stood by';
      return {
        kind: 'act',
        action: null,
        execution: { i, executed_by: 'trace', reason },
        score: null,
        extract: value,
      };
    }
    if (this.#mode === 'auto')
      return { kind: 'agent', reason: 'the value could not be read without the model', score: null };
    return {
      kind: 'act',
      action: null,
      execution: {
        i,
        executed_by: 'skipped',
        reason: 'trace mode reads values only by OCR next to a recorded example; none matched',
      },
      score: null,
    };
  }

  /** Trace: the screen must still look like the recording around the target and as a whole. */
  async #checkTrace(
    recorded: RecordedStep,
    pre: RgbaImage,
    live: RgbaImage,
    at: { subtask_i: number; iteration: number; step_i: number },
  ): Promise<Decision> {
    const { step } = recorded;
    const action = recordedAction(recorded);
    const description = action ? describeAction(action) : step.action_type;
    const sameSize = pre.width === live.width && pre.height === live.height;
    const box = step.source?.box ?? null;
    const checks: Array<{ region: Box | null; value: number; threshold: number }> = [];
    if (sameSize) {
      if (box)
        checks.push({ region: box, value: similarity(pre, live, box), threshold: TRACE_TARGET_SIMILARITY });
      checks.push({ region: null, value: similarity(pre, live), threshold: TRACE_SCREEN_SIMILARITY });
    }
    const failed = sameSize
      ? checks.find((c) => c.value < c.threshold)
      : { region: null, value: 0, threshold: 1 };
    if (failed) {
      const region = failed.region ?? {
        x: 0,
        y: 0,
        width: Math.min(pre.width, live.width),
        height: Math.min(pre.height, live.height),
      };
      const expected = `divergence_step_${step.i}_expected.png`;
      const observed = `divergence_step_${step.i}_observed.png`;
      const [expectedPng, observedPng] = await Promise.all([
        encodeImage(crop(pre, region)),
        encodeImage(crop(live, region)),
      ]);
      this.#ctx.folder.writeFile(expected, expectedPng);
      this.#ctx.folder.writeFile(observed, observedPng);
      this.#ctx.emit({
        type: 'divergence',
        ...at,
        expected,
        observed,
        similarity: failed.value,
        threshold: failed.threshold,
        region: failed.region,
      });
      throw new ReplayDivergenceError(
        step.i,
        description,
        failed.value,
        failed.threshold,
        `${expected}, ${observed}`,
      );
    }
    const score = checks[0]?.value ?? null;
    const reason = `the screen matches the recording${box ? ` around the target (${ratio(score ?? 1)} alike)` : ''}`;
    return { kind: 'act', action, execution: { i: step.i, executed_by: 'trace', reason }, score };
  }

  /** Auto: act where the recorded target is found now; hand over when it is not found with confidence. */
  async #reground(recorded: RecordedStep, pre: RgbaImage, live: RgbaImage): Promise<Decision> {
    const { step } = recorded;
    const region = matchBox(recorded, pre);
    const action = recordedAction(recorded);
    if (!region) {
      return {
        kind: 'act',
        action,
        execution: { i: step.i, executed_by: 'trace', reason: 'no target to find: replayed as recorded' },
        score: null,
      };
    }
    const match = await findTemplate(live, crop(pre, region));
    const confident =
      match !== null &&
      match.score >= AUTO_MATCH.score &&
      match.score - match.runnerUp >= AUTO_MATCH.margin &&
      match.contrast >= AUTO_MATCH.contrast;
    if (!match || !confident) {
      const why = !match
        ? 'the recorded target is larger than the screen'
        : match.contrast < AUTO_MATCH.contrast
          ? 'the recorded target has too little detail to find'
          : `the recorded target was not found with confidence (best ${ratio(match.score)}, next ${ratio(match.runnerUp)})`;
      return { kind: 'agent', reason: why, score: match?.score ?? null };
    }
    const dx = match.box.x - region.x;
    const dy = match.box.y - region.y;
    const moved = Math.abs(dx) > 2 || Math.abs(dy) > 2 || match.scale !== 1;
    const map = (p: { x: number; y: number }) => ({
      x: Math.round(match.box.x + (p.x - region.x) * match.scale),
      y: Math.round(match.box.y + (p.y - region.y) * match.scale),
    });
    const reason = moved
      ? `target re-found ${ratio(match.score)} alike, moved by (${dx}, ${dy})${match.scale === 1 ? '' : ` at ${match.scale}x size`}`
      : `target found where it was recorded (${ratio(match.score)} alike)`;
    return {
      kind: 'act',
      action: recordedAction(recorded, moved ? map : undefined),
      execution: { i: step.i, executed_by: moved ? 'regrounded' : 'trace', reason },
      score: match.score,
    };
  }
}

/** The trace-mode executor. */
export async function runTrace(context: RunContext): Promise<void> {
  await new StepRun(context, 'trace').run();
}

/** The auto-mode executor. */
export async function runAuto(context: RunContext): Promise<void> {
  await new StepRun(context, 'auto').run();
}
