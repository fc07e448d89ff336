/**
 * The recording as the step loop reads it: each step's event and frames, decoded once, and where two
 * recorded frames differ (found once a pair: the same checks run in every poll). Without a recording
 * (a hand-written workflow) every step says why the recording does not carry it.
 */
import { formatStep, listSteps, type Workflow, type WorkflowStep } from '@mime-desktop/schema';
import { type Box, changedRegion, type RgbaImage } from '@mime-desktop/vision';
import { TraceUnavailableError } from '../errors.ts';
import type { PlannedSubtask } from '../kernel/plan.ts';
import {
  loadRecording,
  type RecordedStep,
  type RecordedSteps,
  type Recording,
  recordedSteps,
} from './recorded-step.ts';

/** The recorded frames around a subtask, and the end frame's file (relative to the workflow folder). */
export interface OutcomeFrames {
  before: RgbaImage;
  after: RgbaImage;
  afterFrame: string;
}

export class RecordedFrames {
  #recording: Recording = { events: new Map(), frames: new Map() };
  #steps: RecordedSteps = {
    of: (step) => new TraceUnavailableError(`${formatStep(step.i)}: the workflow has no recording`),
    frame: () => Promise.reject(new TraceUnavailableError('the workflow has no recording')),
  };
  readonly #regions = new WeakMap<RgbaImage, WeakMap<RgbaImage, Box | null>>();

  /** Reads the workflow's copy of the recording; throws TraceUnavailableError without one. */
  async load(workflowDir: string): Promise<void> {
    this.#recording = await loadRecording(workflowDir);
    this.#steps = recordedSteps(workflowDir, this.#recording);
  }

  /**
   * The extracts whose recorded value the recording shows (never a sensitive param's name): the
   * outcome check looks for this run's value where the recording shows that one.
   */
  extractExamples(workflow: Workflow): { name: string; example: string }[] {
    const sensitive = new Set(workflow.task_params.filter((p) => p.sensitive).map((p) => p.name));
    return listSteps(workflow).flatMap(({ step }) => {
      const recorded = step.variable_name && !sensitive.has(step.variable_name) ? this.of(step) : null;
      if (!recorded || recorded instanceof TraceUnavailableError) return [];
      const { event } = recorded;
      const example = event.action_type === 'extract' ? event.action_details.values[0]?.trim() : '';
      return step.variable_name && example ? [{ name: step.variable_name, example }] : [];
    });
  }

  /** A step with its recorded event and frames, or why the recording does not carry it. */
  of(step: WorkflowStep): RecordedStep | TraceUnavailableError {
    return this.#steps.of(step);
  }

  /** A recorded frame by its path in the workflow folder. */
  frame(name: string): Promise<RgbaImage> {
    return this.#steps.frame(name);
  }

  /** The recording's first frame, if any. */
  first(): Promise<RgbaImage> | null {
    const { frames } = this.#recording;
    if (frames.size === 0) return null;
    const name = frames.get(Math.min(...frames.keys()));
    return name === undefined ? null : this.frame(name);
  }

  /** The recorded frame before a step's event (the screen the previous action left), if any. */
  before(step: WorkflowStep): Promise<RgbaImage> | null {
    const previous = this.#recording.frames.get((step.source?.event_index ?? 0) - 1);
    return previous === undefined ? null : this.frame(previous);
  }

  /** The recorded frames before a subtask and after it, or null when the recording has no end frame for it. */
  async aroundSubtask(subtask: Pick<PlannedSubtask, 'steps'>): Promise<OutcomeFrames | null> {
    const first = subtask.steps.find((s) => s.source)?.source;
    const afterFrame = this.#afterFrame(subtask);
    if (!first || !afterFrame) return null;
    const [before, after] = await Promise.all([this.frame(first.screenshot), this.frame(afterFrame)]);
    return { before, after, afterFrame };
  }

  /**
   * The recorded frames a run's report shows beside its own (paths in the workflow folder): each
   * step's, and the one after each subtask, its outcome check's.
   */
  shownFrames(workflow: Workflow): string[] {
    return [
      ...listSteps(workflow).flatMap(({ step }) => (step.source ? [step.source.screenshot] : [])),
      ...workflow.plan.subtasks.flatMap((subtask) => this.#afterFrame(subtask) ?? []),
    ];
  }

  /** The recorded frame after a subtask's last recorded event, if the recording has one. */
  #afterFrame(subtask: Pick<PlannedSubtask, 'steps'>): string | undefined {
    const sources = subtask.steps.flatMap((s) => (s.source ? [s.source] : []));
    if (sources.length === 0) return undefined;
    return this.#recording.frames.get(Math.max(...sources.map((s) => s.event_index)) + 1);
  }

  /** Where two recorded frames differ (computed once a pair); null when they do not or differ in size. */
  change(before: RgbaImage, after: RgbaImage): Box | null {
    if (before.width !== after.width || before.height !== after.height) return null;
    let byAfter = this.#regions.get(before);
    if (!byAfter) {
      byAfter = new WeakMap();
      this.#regions.set(before, byAfter);
    }
    if (!byAfter.has(after)) byAfter.set(after, changedRegion(before, after));
    return byAfter.get(after) ?? null;
  }

  /** Decodes a step's recorded frames and finds where they differ, ahead of its checks; best effort. */
  warm(recorded: RecordedStep | TraceUnavailableError | undefined): void {
    if (!recorded || recorded instanceof TraceUnavailableError) return;
    Promise.all([recorded.pre(), recorded.post()])
      .then(([pre, post]) => {
        if (post) this.change(pre, post);
      })
      .catch(() => undefined);
  }
}
