import { formatStep, MimeError } from '@mime-desktop/schema';

/** The recording cannot be reflected as it is (empty, missing screenshots). */
export class RecordingError extends MimeError {
  constructor(message: string) {
    super('MIME_BAD_RECORDING', message, { exit: 'usage' });
  }
}

/** A step's Pass A card could not be made, even after repairs. */
export class ReflectStepError extends MimeError {
  readonly step: number;

  constructor(step: number, what: string, cause: unknown) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    super('MIME_REFLECT_STEP', `${formatStep(step)} (${what}): ${reason}`, { cause });
    this.step = step;
  }
}

/** Pass B's result did not make a valid workflow, even after repairs. */
export class ReflectPlanError extends MimeError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('MIME_REFLECT_PLAN', message, options);
  }
}

/** The caller's signal stopped the reflect; checkpoints written so far are kept. */
export class ReflectAbortedError extends MimeError {
  constructor() {
    super('MIME_ABORTED', 'reflect was stopped; run it again to resume from the checkpoints');
  }
}
