/**
 * What the parts of the trace and auto step loop share: the run, the recording and its OCR, the
 * screen, the one verifier and the mode; and what a subtask has learned so far.
 */

import type { RawFrame } from '@mime-desktop/os-io';
import { formatStep, outcomeFrameName, type WorkflowStep } from '@mime-desktop/schema';
import type { HistoryEntry, RunContext } from '../kernel/run-context.ts';
import type { At } from '../kernel/run-memory.ts';
import type { Layout } from './layout-map.ts';
import type { RecordedFrames } from './recorded-frames.ts';
import type { RecordedMode } from './recorded-mode.ts';
import type { RecordedOcr } from './recorded-ocr.ts';
import type { ScreenWatcher } from './screen-watcher.ts';
import type { Verifier } from './verifier.ts';

export interface LoopParts {
  ctx: RunContext;
  frames: RecordedFrames;
  /** OCR of the recorded frames, kept in the workflow folder. */
  recordedOcr: RecordedOcr;
  screen: ScreenWatcher;
  verifier: Verifier;
  mode: RecordedMode;
}

/** What a subtask learned so far: where the layout is, and what was done (the agent's history on a hand-over). */
export interface SubtaskState {
  layout: Layout | null;
  done: HistoryEntry[];
}

export function describeStep(step: WorkflowStep): string {
  return `${formatStep(step.i)} (${step.action_type.toLowerCase()}${step.action_value ? ` ${step.action_value}` : ''})`;
}

/** A subtask outcome's evidence for the report: the live frame checked, beside the recorded one. */
export function outcomeShots(ctx: RunContext, turn: At, frame: RawFrame, recordedFrame: string) {
  const screenshot = ctx.journal.log.saveFrame(outcomeFrameName(turn.subtask_i), frame);
  return { screenshot, recorded_frame: recordedFrame };
}
