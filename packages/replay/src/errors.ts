import {
  formatStep,
  formatSubtask,
  MimeError,
  type Problem,
  type RunEventData,
  type ScreenCheck,
} from '@mime-desktop/schema';

/** The budgets of a run; each has a stable code in summary.json when it runs out (see `BUDGET_CODES`). */
export type BudgetName = RunEventData<'budget_exhausted'>['budget'];

/** What is wrong with the params given for a run; every problem is listed at once. */
export interface ParamProblems {
  /** Required params with no value: no override, no `default`, no `MIME_PARAM_<NAME>` (nor an example asked for). */
  missing: string[];
  /** Overrides naming no param of the workflow. */
  unknown: string[];
  /** `name: reason` for values of the wrong type (a number param given `abc`). */
  invalid: string[];
  /** Names of the workflow's params, for the message. */
  known: string[];
}

function describeParamProblems(problems: ParamProblems): string {
  const lines: string[] = [];
  if (problems.missing.length > 0) {
    lines.push(
      `  missing: ${problems.missing.join(', ')} (give each a value; a recorded example is used only when asked, with --use-examples; sensitive params come from MIME_PARAM_<NAME> or the prompt)`,
    );
  }
  if (problems.unknown.length > 0) {
    const known = problems.known.length > 0 ? problems.known.join(', ') : 'none';
    lines.push(`  unknown: ${problems.unknown.join(', ')} (this workflow's params: ${known})`);
  }
  for (const invalid of problems.invalid) lines.push(`  invalid: ${invalid}`);
  return `The params for this run are not usable:\n${lines.join('\n')}`;
}

/** Params missing, unknown or of the wrong type (`MIME_PARAMS_INVALID`). */
export class ParamsError extends MimeError {
  readonly problems: ParamProblems;

  constructor(problems: ParamProblems) {
    super('MIME_PARAMS_INVALID', describeParamProblems(problems), { exit: 'usage' });
    this.problems = problems;
  }
}

/** An option of `replay()` out of its range (`MIME_REPLAY_OPTION_INVALID`); the message names it. */
export class ReplayOptionError extends MimeError {
  constructor(message: string) {
    super('MIME_REPLAY_OPTION_INVALID', message, { exit: 'usage' });
  }
}

/** The person stopped the run at a `--confirm` prompt (`MIME_ABORTED`, like the fail-safe). */
export class RunStoppedError extends MimeError {
  constructor() {
    super('MIME_ABORTED', 'The run was stopped at the confirmation prompt.');
  }
}

/** The stable code of each budget, as written to summary.json. */
export const BUDGET_CODES = {
  iterations: 'MIME_BUDGET_ITERATIONS',
  model_calls: 'MIME_BUDGET_MODEL_CALLS',
  replans: 'MIME_BUDGET_REPLANS',
  wall_time: 'MIME_BUDGET_WALL_TIME',
} as const satisfies Record<BudgetName, string>;

const BUDGET_FIXES: Record<BudgetName, string> = {
  iterations: 'raise the iterations budget, or make the subtask text and its expected outcome clearer',
  model_calls: 'raise the model calls budget',
  replans: 'raise the replans budget, or check that the workflow still fits the app',
  wall_time: 'raise the wall time budget',
};

/** A budget ran out; the run stops cleanly and the summary names the budget by its code. */
export class BudgetExhaustedError extends MimeError {
  readonly budget: BudgetName;
  readonly used: number;
  readonly limit: number;

  constructor(budget: BudgetName, used: number, limit: number, what: string) {
    super(BUDGET_CODES[budget], `${what} (${used} of ${limit}); ${BUDGET_FIXES[budget]}.`);
    this.budget = budget;
    this.used = used;
    this.limit = limit;
  }
}

/** What a failed screen check found (trace, and auto without a model to take over). */
export interface DivergenceDetails {
  /** The step checked; null for a subtask's outcome. */
  step: number | null;
  /** What the step does, e.g. `left_click at (240, 120)`; empty for a subtask's outcome. */
  description: string;
  subtask: number;
  check: ScreenCheck;
  /** What did not look as recorded, in words. */
  reason: string;
  similarity: number;
  threshold: number;
  /** Expected and observed crops, file names in the run folder. */
  crops: readonly [string, string];
  /** The target of a step before it ran, which the auto mode may re-find elsewhere. */
  regroundable: boolean;
  /** The run's first step, on a screen that is not the recording's first frame. */
  notAtStart?: boolean;
}

/** What to do when the screen did not start as the recording does. */
const NOT_AT_START =
  "The screen already differed from the recording's first frame before the first action: if the app is not in its recorded starting state (a value left by an earlier run, another page or dialog), reset it, or replay with --fresh (option fresh), which restarts the app from the workflow's setup or runs its setup.reset command.";

const pct = (n: number) => `${Math.round(n * 100)}%`;
/** A failed check's figure, rounded down: a figure below its threshold never prints as the threshold. */
const pctBelow = (n: number) => `${Math.floor(n * 100 + 1e-9)}%`;

/** Replay found the live screen unlike the recording; it stops there, with both crops saved. */
export class ReplayDivergenceError extends MimeError {
  readonly details: DivergenceDetails;

  constructor(details: DivergenceDetails, note?: string) {
    const where =
      details.step === null
        ? `end of ${formatSubtask(details.subtask)}`
        : `${formatStep(details.step)} (${details.description})`;
    const advice = details.regroundable
      ? 'If the app only moved or resized, the auto mode re-finds the target.'
      : 'The app is not in the state the recording shows (a dialog that did not open, another window in front): check it, or let the model work from the screen in the agent mode.';
    super(
      'MIME_REPLAY_DIVERGENCE',
      `${where}: ${details.reason} (${pctBelow(details.similarity)} where ${pct(details.threshold)} is needed; expected and observed crops: ${details.crops.join(', ')}). ${note ?? advice}${details.notAtStart ? ` ${NOT_AT_START}` : ''}`,
    );
    this.details = details;
  }

  /** The same divergence in auto mode when no model could take over. */
  withoutModel(missing: MimeError): ReplayDivergenceError {
    const notes: Record<string, string> = {
      MIME_MODEL_NOT_CONFIGURED:
        'Auto mode stops here: no model is configured to take over (set MIME_BASE_URL and MIME_MODEL, or a config file, and auto hands such a step to a vision model).',
      [MODEL_FORBIDDEN]: `Auto mode stops here: ${FORBIDDEN}, which would have taken over this subtask.`,
    };
    return new ReplayDivergenceError(
      { ...this.details, regroundable: false },
      notes[missing.code] ??
        `Auto mode stops here: the model cannot take over (${missing.code}: ${missing.message}).`,
    );
  }
}

const MODEL_FORBIDDEN = 'MIME_MODEL_FORBIDDEN';
const FORBIDDEN = 'this run may not call a model (its model calls budget is 0)';

/**
 * The run may not call a model (a model calls budget of 0) where it would need one: auto mode at a
 * step the recording cannot carry (no recorded source, a value it cannot read). At a divergence the
 * run stops with the divergence instead (`ReplayDivergenceError.withoutModel`).
 */
export class ModelForbiddenError extends MimeError {
  constructor(reason = 'the model was asked for') {
    super(
      MODEL_FORBIDDEN,
      `${reason}: ${FORBIDDEN}. Allow some model calls (budgets.modelCalls, --max-model-calls), or fix the workflow so it needs none.`,
    );
  }
}

/** The workflow's app window never appeared (`MIME_SETUP_FAILED`). */
export class SetupError extends MimeError {
  constructor(message: string) {
    super('MIME_SETUP_FAILED', message);
  }
}

/** A step cannot be replayed from the recording (no recorded source, or the manifest does not match). */
export class TraceUnavailableError extends MimeError {
  constructor(message: string) {
    super('MIME_TRACE_UNAVAILABLE', message, { exit: 'usage' });
  }
}

/** The longest part of a model's last reply an error quotes. */
const QUOTED_REPLY_CHARS = 600;

/**
 * The model gave `count` unusable replies in a row (`MIME_MODEL_OUTPUT`): a model that cannot speak
 * the tool protocol is stopped, not asked again and again or replanned around. `raw` is its last
 * reply, already redacted.
 */
export class ModelProtocolError extends MimeError {
  readonly raw: string;
  readonly problems: readonly Problem[];

  constructor(count: number, raw: string, problems: readonly Problem[]) {
    const why = problems.map((p) => `  ${p.path || '(reply)'}: ${p.message}`).join('\n');
    const quoted = raw.length > QUOTED_REPLY_CHARS ? `${raw.slice(0, QUOTED_REPLY_CHARS)}…` : raw;
    super(
      'MIME_MODEL_OUTPUT',
      `The model gave ${count} unusable replies in a row, so the run stopped:\n${why}\nIts last reply: ${quoted}\nCheck that this model can drive mime with \`mime doctor --model\`: it says which tool mode (MIME_TOOL_MODE) and coordinates (MIME_COORDINATES) fit it.`,
    );
    this.raw = raw;
    this.problems = problems;
  }
}
