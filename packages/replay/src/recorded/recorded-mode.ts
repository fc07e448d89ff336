/**
 * What trace and auto do where the recording alone does not carry a step: trace stops there (seed
 * 002: a divergence, an error), auto hands the subtask to the agent, which finishes it from the live
 * screen; auto without a model (none configured, or `--max-model-calls 0`) stops like trace and says
 * why. Each mode also says the rungs it climbs to find a step's target. The step loop asks its mode
 * and never branches on which one it is.
 */
import type { Accessibility } from '@mime-desktop/os-io';
import { isMimeError, type StepExecution } from '@mime-desktop/schema';
import type { OcrEngine } from '@mime-desktop/vision';
import { ModelForbiddenError, type ReplayDivergenceError } from '../errors.ts';
import type { RunContext } from '../kernel/run-context.ts';
import type { Rung } from './locator.ts';
import {
  accessibilityLocator,
  autoPlaceLocator,
  screenLocator,
  templateLocator,
  tracePlaceLocator,
} from './locators.ts';
import { textLocator } from './text-locator.ts';
import type { WindowPlacer } from './window-placer.ts';

/**
 * The rungs a mode climbs to find a step's target, first to last (the element's only with an
 * accessibility tree; `placer` measures where windows are where the desktop does not tell).
 */
export type Ladder = (
  a11y: Accessibility | null,
  ocr: OcrEngine | null,
  placer?: WindowPlacer | null,
) => Rung[];

const byElement = (a11y: Accessibility | null, placer: WindowPlacer | null = null) =>
  a11y ? [accessibilityLocator(a11y, placer)] : [];

/** Trace: the element, the recorded pixels at their place, else the screen as a whole. */
export const traceLadder: Ladder = (a11y, _ocr, placer) => [
  ...byElement(a11y, placer),
  tracePlaceLocator,
  screenLocator,
];

/**
 * Auto: the element, the target at its expected place, its crop near the expected layout or anywhere,
 * its words (where an OCR engine is given), else the screen as a whole. In both modes a step without a
 * target, once a step found the layout moved, is checked after (screenLocator).
 */
export const autoLadder: Ladder = (a11y, ocr, placer) => [
  ...byElement(a11y, placer),
  autoPlaceLocator,
  templateLocator,
  ...(ocr ? [textLocator(ocr)] : []),
  screenLocator,
];

/** What a step the recording cannot carry becomes: how it is reported, and whether the subtask goes on. */
export interface Unread {
  executed_by: 'agent' | 'skipped';
  reason: string;
  /** The reason to hand the subtask over (auto), or null: the step is skipped and the subtask goes on. */
  handOver(): Promise<string | null>;
}

export interface RecordedMode {
  /** The rungs that find a step's target. */
  readonly ladder: Ladder;
  /** Whether a divergence may suggest the auto mode (which would have re-found the target). */
  readonly suggestsReground: boolean;
  /** A workflow without a recording: trace cannot replay it (throws); auto gives its steps to the agent. */
  withoutRecording(error: unknown): void;
  /** A step the recording does not carry at all (no source event): trace throws `error`. */
  unrecorded(error: Error, reason: string): Promise<string>;
  /** How a step whose look failed is reported. */
  missed(reason: string): { executed_by: StepExecution; reason: string };
  /** A failed check whose divergence is recorded: trace throws it; auto returns the reason to hand over. */
  diverged(reason: string, divergence: ReplayDivergenceError): Promise<string>;
  /** An extract the recording cannot read without the model. */
  unreadExtract(): Unread;
  /** A field to type into holds text where the recording's was empty: auto clears it, trace stops. */
  prefilled<T>(ways: { clear: () => Promise<T>; stop: () => Promise<T> }): Promise<T>;
}

export const TRACE: RecordedMode = {
  ladder: traceLadder,
  suggestsReground: true,
  withoutRecording(error) {
    throw error;
  },
  unrecorded(error) {
    return Promise.reject(error);
  },
  missed: (reason) => ({ executed_by: 'skipped', reason: `stopped here: ${reason}` }),
  diverged(_reason, divergence) {
    return Promise.reject(divergence);
  },
  unreadExtract: () => ({
    executed_by: 'skipped',
    reason: 'trace mode reads values only by OCR next to a recorded example; none matched',
    handOver: () => Promise.resolve(null),
  }),
  prefilled: ({ stop }) => stop(),
};

/** Auto for one run: whether a model may take over is asked once, at the start. */
export async function autoMode(context: RunContext): Promise<RecordedMode> {
  const withModel = await context.devices.model.client().then(
    () => true,
    () => false,
  );
  /** The reason to hand over when a model may take over; else the divergence (or the reason) is thrown. */
  const needModel = async (reason: string, divergence: ReplayDivergenceError | null): Promise<string> => {
    const missing = await context.devices.model.client().then(
      () => null,
      (error: unknown) =>
        error instanceof ModelForbiddenError || (isMimeError(error) && error.exit === 'usage')
          ? error
          : Promise.reject(error),
    );
    if (missing === null) return reason;
    if (divergence) throw divergence.withoutModel(missing);
    throw missing instanceof ModelForbiddenError ? new ModelForbiddenError(reason) : missing;
  };
  const verdict = (reason: string) =>
    withModel
      ? { executed_by: 'agent' as const, reason: `handed to the agent: ${reason}` }
      : { executed_by: 'skipped' as const, reason: `stopped here: ${reason}` };
  return {
    ladder: autoLadder,
    suggestsReground: false,
    withoutRecording: () => undefined,
    unrecorded: (_error, reason) => needModel(reason, null),
    missed: verdict,
    diverged: (reason, divergence) => needModel(reason, divergence),
    unreadExtract() {
      const reason = 'the value could not be read without the model';
      return { ...verdict(reason), handOver: () => needModel(reason, null) };
    },
    prefilled: ({ clear }) => clear(),
  };
}
