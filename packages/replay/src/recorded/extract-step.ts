/**
 * An EXTRACT step, read by OCR: where the recorded example value stood (after its label, e.g. "Now
 * playing:"), the live screen is read; without an example, auto asks the agent, trace skips it. Each
 * extract's example is read off its recorded frame once, ahead of the step where the OCR worker runs.
 */
import { stepFrameName, type WorkflowStep } from '@mime-desktop/schema';
import type { RgbaImage } from '@mime-desktop/vision';
import { TraceUnavailableError } from '../errors.ts';
import type { PlannedSubtask } from '../kernel/plan.ts';
import type { SubtaskEntry } from '../kernel/plan-cursor.ts';
import type { At } from '../kernel/run-memory.ts';
import { verifyChange } from './change-check.ts';
import { identity, located } from './checks.ts';
import { type RecordedExample, readExample, readExtract, readExtractFromApp } from './extract-reading.ts';
import { type Layout, RECORDED } from './layout-map.ts';
import { describeStep, type LoopParts, type SubtaskState } from './loop-parts.ts';
import type { RecordedStep } from './recorded-step.ts';

export class ExtractStep {
  readonly #parts: LoopParts;
  /** Each extract's recorded example, read once a step. */
  readonly #examples = new WeakMap<WorkflowStep, Promise<RecordedExample | null>>();

  constructor(parts: LoopParts) {
    this.#parts = parts;
  }

  /**
   * Reads each extract's example off its recorded frame while the steps before it run, once the OCR
   * worker runs: starting it (about 1 s of CPU) beside the steps would slow them on two cores.
   */
  readAhead(subtask: PlannedSubtask): void {
    const { ctx, frames } = this.#parts;
    if (ctx.settings.dryRun || !ctx.devices.ocr.started) return;
    for (const step of subtask.steps) {
      const recorded = frames.of(step);
      if (!(recorded instanceof TraceUnavailableError) && recorded.event.action_type === 'extract') {
        this.exampleOf(recorded).catch(() => undefined);
      }
    }
  }

  /** An extract's recorded example (read once a step). */
  exampleOf(recorded: RecordedStep): Promise<RecordedExample | null> {
    let example = this.#examples.get(recorded.step);
    if (!example) {
      const { event } = recorded;
      const { frames, recordedOcr } = this.#parts;
      example =
        event.action_type === 'extract'
          ? Promise.all([recorded.pre(), frames.before(recorded.step)]).then(([pre, before]) =>
              readExample(
                recordedOcr.readCrop,
                pre,
                event.action_details.values,
                before ? frames.change(before, pre) : null,
              ),
            )
          : Promise.resolve(null);
      this.#examples.set(recorded.step, example);
    }
    return example;
  }

  /**
   * The value on the live screen where the recording shows the example: the app's words first, OCR
   * where its tree does not answer there; null when the recording has no example or the label is gone.
   */
  async read(
    recorded: RecordedStep,
    live: RgbaImage,
    layout: Layout,
  ): Promise<{ value: string; read: 'app' | 'ocr' } | null> {
    const { ctx } = this.#parts;
    const [example, pre] = await Promise.all([this.exampleOf(recorded), recorded.pre()]);
    if (!example || pre.width !== live.width || pre.height !== live.height) return null;
    const a11y = await ctx.devices.desktop.accessibility().catch(() => null);
    const fromApp = a11y && (await readExtractFromApp(a11y, example, layout));
    if (fromApp) return { value: fromApp, read: 'app' };
    const byOcr = await readExtract(ctx.devices.ocr, example, live, layout);
    return byOcr === null ? null : { value: byOcr, read: 'ocr' };
  }

  /** Runs the step; null when the subtask goes on, else why it cannot without the model. */
  async run(
    recorded: RecordedStep,
    entry: SubtaskEntry,
    turn: At,
    state: SubtaskState,
  ): Promise<string | null> {
    const { ctx, frames, screen, mode } = this.#parts;
    const { log, memory } = ctx.journal;
    const { step } = recorded;
    const description = `extract ${step.variable_name ?? ''}`.trim();
    // OCR reads whatever is on the screen: the change the recording shows since its previous event
    // (the value appearing after a click) must be there first, or the old value would be read.
    const previous = ctx.settings.dryRun ? null : frames.before(step);
    if (previous !== null) {
      const failure = await verifyChange(this.#parts, {
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
    const watched = await screen.watch(() => located(identity, RECORDED, null, ''));
    const screenshot = log.saveFrame(stepFrameName(turn.subtask_i, step.i), watched.frame);
    const reading = await this.read(recorded, watched.live, state.layout ?? RECORDED);
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
    if (reading !== null) {
      const { value } = reading;
      const how = reading.read === 'app' ? 'read from the app' : 'read by OCR';
      const reason = `${how} after the label the recorded example value stood by`;
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
    const unread = mode.unreadExtract();
    report(unread.executed_by, unread.reason);
    const handOver = await unread.handOver();
    if (handOver === null) entry.recordStep({ i: step.i, executed_by: 'skipped', reason: unread.reason });
    return handOver;
  }
}
