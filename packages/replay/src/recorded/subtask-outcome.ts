/**
 * At the end of a subtask, the screen must show the outcome the recording shows at that point: by
 * content where the recording shows a param's example or an extract's recorded value (this run's
 * value must be there, whatever its length), else by layout. The same readers check the model's claims in a subtask auto handed over.
 */
import { formatSubtask } from '@mime-desktop/schema';
import type { Box } from '@mime-desktop/vision';
import { checkCriteria } from '../actions/criteria-check.ts';
import { liveImage } from '../actions/screen-text.ts';
import { TraceUnavailableError } from '../errors.ts';
import type { ClaimVerdict, RecordedClaims } from '../kernel/claims.ts';
import type { PlannedSubtask } from '../kernel/plan.ts';
import type { SubtaskEntry } from '../kernel/plan-cursor.ts';
import type { At } from '../kernel/run-memory.ts';
import { verifyChange } from './change-check.ts';
import { failed, identity, located } from './checks.ts';
import { claimedExtract, claimedOutcome } from './claimed.ts';
import type { ExtractStep } from './extract-step.ts';
import { type Layout, mapBox, RECORDED } from './layout-map.ts';
import { type LoopParts, outcomeShots, type SubtaskState } from './loop-parts.ts';
import type { OutcomeFrames } from './recorded-frames.ts';
import {
  checkShownValues,
  type ExampleSpots,
  findExamples,
  type ShownValue,
  type ShownVerdict,
  spotsIn,
} from './shown-values.ts';

export class SubtaskOutcome {
  readonly #parts: LoopParts;
  readonly #extracts: ExtractStep;
  readonly #examples = new Map<PlannedSubtask, Promise<{ region: Box; spots: ExampleSpots } | null>>();

  constructor(parts: LoopParts, extracts: ExtractStep) {
    this.#parts = parts;
    this.#extracts = extracts;
  }

  /**
   * Finds where the recording shows params' examples at the end of a subtask while its steps run, so
   * its outcome check only reads the app once they are done (the OCR of two recorded crops, unless
   * the workflow's cache holds them, runs beside the steps, which mostly wait for the app). Where the
   * check will read the live screen by OCR (no tree answers), the OCR worker starts beside the steps
   * too: its start (about 1 s of CPU, 4-5 s on a busy machine) is otherwise the check's wait.
   */
  readAhead(subtask: PlannedSubtask): void {
    const { ctx } = this.#parts;
    if (ctx.settings.dryRun) return;
    this.#examplesOf(subtask)
      .then(async (examples) => {
        if (examples && !(await ctx.devices.desktop.accessibility().catch(() => null)))
          await ctx.devices.ocr.start();
      })
      .catch(() => undefined);
  }

  /**
   * Null when the outcome is shown (or the recording has no end frame) and the success criteria of
   * the Pass C steps this subtask ends hold; else why the subtask cannot go on.
   */
  async check(subtask: PlannedSubtask, entry: SubtaskEntry, state: SubtaskState): Promise<string | null> {
    if (this.#parts.ctx.settings.dryRun) return null;
    const frames = await this.#parts.frames.aroundSubtask(subtask);
    const layout = state.layout ?? RECORDED;
    const turn = { subtask_i: entry.subtask_i, iteration: entry.record.iterations };
    const recorded = frames && (await this.#checkRecorded(subtask, frames, layout, turn));
    return recorded ?? this.#checkCriteria(subtask, frames, turn);
  }

  /** The outcome the recording shows at the end of the subtask: by content where it can, else by layout. */
  async #checkRecorded(
    subtask: PlannedSubtask,
    frames: OutcomeFrames,
    layout: Layout,
    turn: At,
  ): Promise<string | null> {
    const started = performance.now();
    const { before, after, afterFrame } = frames;
    const byContent = await this.#checkShown(subtask, frames, layout, turn, started);
    if (byContent !== 'unknown') return byContent;
    return verifyChange(this.#parts, {
      recordedFrame: afterFrame,
      check: 'subtask_outcome',
      step_i: null,
      before,
      after,
      layout,
      turn,
      liveBefore: null,
      reason: `the screen does not show the outcome the recording shows at the end of ${formatSubtask(subtask.subtask_i)}`,
      description: '',
    });
  }

  /**
   * The success criteria of the Pass C steps this subtask ends (actions/criteria-check.ts): each text
   * one names must be shown, watched until the step's timeout.
   */
  async #checkCriteria(
    subtask: PlannedSubtask,
    frames: OutcomeFrames | null,
    turn: At,
  ): Promise<string | null> {
    const criteria = subtask.criteria ?? [];
    if (criteria.length === 0) return null;
    const { ctx } = this.#parts;
    const started = performance.now();
    let verdict: ClaimVerdict | null = null;
    return this.#parts.verifier.verify({
      turn,
      description: '',
      look: async (live) => {
        verdict = await checkCriteria(criteria, ctx.devices.desktop, ctx.devices.ocr, live);
        if (verdict?.verdict !== 'refused') return located(identity, RECORDED, 1, '');
        const { failure } = failed(
          null,
          'subtask_outcome',
          verdict.detail,
          0,
          1,
          null,
          frames?.after ?? live,
        );
        return { ok: false, failure: { ...failure, read: verdict.read } };
      },
      // Free prose checks nothing: the run's start journals it as unchecked (run_start.criteria).
      verdict: (watched) => {
        const read = verdict?.read;
        if (!read) return null;
        const { screenshot } = outcomeShots(ctx, turn, watched.frame, '');
        return {
          step_i: null,
          check: 'subtask_outcome',
          similarity: 1,
          threshold: 1,
          region: null,
          read,
          took_ms: Math.round(performance.now() - started),
          screenshot,
          ...(frames ? { recorded_frame: frames.afterFrame } : {}),
        };
      },
    });
  }

  /**
   * Whether the subtask's outcome is checked by content in `region` of its end frame: the recording
   * shows a param's example there.
   */
  async readsIn(subtask: PlannedSubtask, region: Box): Promise<boolean> {
    if (this.#parts.ctx.settings.dryRun) return false;
    const examples = await this.#examplesOf(subtask).catch(() => null);
    return examples !== null && spotsIn(examples.spots, region);
  }

  /**
   * By content: where the recording shows a param's example as the subtask's outcome, the screen must
   * show this run's value. 'unknown' when content cannot tell (no example shown): layout decides then.
   */
  async #checkShown(
    subtask: PlannedSubtask,
    { after, afterFrame }: OutcomeFrames,
    layout: Layout,
    turn: At,
    started: number,
  ): Promise<string | null | 'unknown'> {
    const examples = await this.#examplesOf(subtask);
    const spots = examples && this.#withRunValues(examples.spots);
    if (!examples || !spots || spots.length === 0) return 'unknown';
    const { region } = examples;
    const { ctx } = this.#parts;
    const a11y = await ctx.devices.desktop.accessibility().catch(() => null);
    let verdict: ShownVerdict = { kind: 'unknown' };
    return this.#parts.verifier.verify({
      turn,
      description: '',
      layout,
      look: async (live) => {
        verdict = await checkShownValues(ctx.devices.ocr, a11y, live, region, layout, spots);
        if (verdict.kind !== 'missing') return located(identity, layout, 1, '');
        const { value, read, by } = verdict;
        const there =
          by === 'app'
            ? `the app says ${JSON.stringify(read)} there`
            : `that line reads ${JSON.stringify(read)}`;
        const { failure } = failed(
          null,
          'subtask_outcome',
          `the app does not show ${value.name} = ${JSON.stringify(value.value)} where the recording shows ${JSON.stringify(value.example)} at the end of ${formatSubtask(subtask.subtask_i)} (${there})`,
          0,
          1,
          verdict.box,
          after,
        );
        return { ok: false, failure: { ...failure, read: by } };
      },
      verdict: (watched) => ({
        step_i: null,
        check: 'subtask_outcome',
        similarity: 1,
        threshold: 1,
        region: mapBox(layout, region),
        ...(verdict.kind === 'shown' ? { read: verdict.read } : {}),
        took_ms: Math.round(performance.now() - started),
        ...outcomeShots(ctx, turn, watched.frame, afterFrame),
      }),
    });
  }

  /**
   * Where the recording shows params' examples as a subtask's outcome, read by OCR once a subtask
   * (from its start: see readAhead), and once a workflow (the reads are cached in its folder). Null
   * when none is shown.
   */
  #examplesOf(subtask: PlannedSubtask): Promise<{ region: Box; spots: ExampleSpots } | null> {
    let examples = this.#examples.get(subtask);
    if (!examples) {
      const { frames, recordedOcr } = this.#parts;
      examples = (async () => {
        const values = this.#shownValues();
        const around = values.length > 0 ? await frames.aroundSubtask(subtask) : null;
        const region = around && frames.change(around.before, around.after);
        if (!around || !region) return null;
        const spots = await findExamples(recordedOcr.readCrop, around.before, around.after, region, values);
        return spots.length > 0 ? { region, spots } : null;
      })();
      this.#examples.set(subtask, examples);
    }
    return examples;
  }

  /**
   * The run's values of the params the workflow has an example of (never a sensitive one's), and the
   * extracts the recording shows a value of (their values filled in once read: see #withRunValues).
   */
  #shownValues(): ShownValue[] {
    const { ctx, frames } = this.#parts;
    const { workflow, params } = ctx;
    const fromParams = workflow.task_params.flatMap((p) => {
      const value = params.find((r) => r.name === p.name);
      return !p.sensitive && p.example && value && !value.sensitive && value.display.trim()
        ? [{ name: p.name, example: p.example, value: value.display }]
        : [];
    });
    const fromExtracts = frames.extractExamples(workflow).map((e) => ({ ...e, value: '', extracted: true }));
    return [...fromParams, ...fromExtracts];
  }

  /**
   * The spots with this run's values: an extract's as read so far in this run (a spot of one not read,
   * skipped or left to the model without a value, is left out: nothing to compare with).
   */
  #withRunValues(spots: ExampleSpots): ExampleSpots {
    const { extracts } = this.#parts.ctx.journal.memory;
    return spots.flatMap((spot) => {
      if (!spot.value.extracted) return [spot];
      const value = extracts.get(spot.value.name)?.trim();
      return value ? [{ ...spot, value: { ...spot.value, value } }] : [];
    });
  }

  /**
   * The checks the recording makes of the model's claims in a subtask handed over: its outcome, and
   * each value it extracts, read on the live screen where the recording shows them (one look each).
   */
  claims(subtask: PlannedSubtask, state: SubtaskState): RecordedClaims {
    const { ctx, frames } = this.#parts;
    const live = () => ctx.devices.desktop.captureFrame().then(liveImage);
    const layout = () => state.layout ?? RECORDED;
    return {
      outcome: async () => {
        const examples = await this.#examplesOf(subtask);
        if (!examples) return null;
        const { region } = examples;
        const spots = this.#withRunValues(examples.spots);
        const a11y = await ctx.devices.desktop.accessibility().catch(() => null);
        return claimedOutcome(
          await checkShownValues(ctx.devices.ocr, a11y, await live(), region, layout(), spots),
        );
      },
      extract: async (variable, value) => {
        const step = subtask.steps.find((s) => s.variable_name === variable);
        const recorded = step ? frames.of(step) : null;
        if (!recorded || recorded instanceof TraceUnavailableError) return null;
        if (recorded.event.action_type !== 'extract') return null;
        const [example, reading] = await Promise.all([
          this.#extracts.exampleOf(recorded),
          live().then((screen) => this.#extracts.read(recorded, screen, layout())),
        ]);
        if (!example) return null;
        return claimedExtract(value, reading?.value ?? null, example.label, reading?.read ?? 'ocr');
      },
    };
  }
}
