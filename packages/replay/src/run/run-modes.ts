/**
 * The replay modes as descriptors, chosen once from the mode's name: what each needs (a recording,
 * a model), what it checks before the run starts, its executor, and what a run of it learns. Nothing
 * else in run/ asks which mode a run is in.
 */
import {
  formatStep,
  type HealFile,
  type ReplayMode,
  type Workflow,
  type WorkflowStep,
} from '@mime-desktop/schema';
import type { AgentRuntime } from '../agent/agent-runtime.ts';
import { ReplayOptionError, TraceUnavailableError } from '../errors.ts';
import { collectHeal, type HealContext, isUnrecorded } from '../heal/collect-heal.ts';
import type { EventLog } from '../kernel/event-log.ts';
import type { ModeExecutor } from '../kernel/run-context.ts';
import { checkRecording } from '../recorded/recorded-step.ts';
import { runAuto, runTrace } from '../recorded/step-executor.ts';
import { typedEvents } from './typed-events.ts';

/** What a mode checks before its run: the workflow's steps and folder, and whether a model may be called. */
export interface StartCheck {
  steps: readonly WorkflowStep[];
  workflowDir: string;
  /** The run may not call a model (its model calls budget is 0). */
  modelForbidden: boolean;
}

export interface RunMode {
  readonly name: ReplayMode;
  /**
   * Whether a step the recording does not carry (a divergence) goes to the model when the run may
   * call one, instead of ending the run: auto's hand-over.
   */
  readonly handsOverToModel: boolean;
  /** Throws for a run this mode cannot make (bad input), before anything touches the screen. */
  checkBeforeStart(check: StartCheck): Promise<void>;
  /** Whether the run will surely call the model: its configuration is then checked before the run. */
  needsModel(steps: readonly WorkflowStep[]): boolean;
  /** The executor; the agent's gets the agent's runtime. */
  executor(agent: AgentRuntime): ModeExecutor;
  /**
   * What a run that ended learned about an out-of-date workflow, or about one without a recording
   * (a heal), or null.
   */
  learned(log: EventLog, context: HealContext, workflow: Workflow): HealFile | null;
}

/** A hostile recording (a path out of the folder, a FIFO, a huge image) is refused before any run. */
const refuseHostileRecording = ({ workflowDir }: StartCheck) => checkRecording(workflowDir);

const learnsNothing = () => null;

/** Exactly as recorded; stops at a divergence. Needs every step recorded, never a model. */
export const TRACE: RunMode = {
  name: 'trace',
  handsOverToModel: false,
  async checkBeforeStart(check) {
    const unrecorded = check.steps.find((step) => step.source === null);
    if (unrecorded) {
      throw new TraceUnavailableError(
        `${formatStep(unrecorded.i)} has no recorded source (a hand-written or ai_mime workflow?); replay it in the auto or agent mode`,
      );
    }
    await refuseHostileRecording(check);
  },
  needsModel: () => false,
  executor: () => runTrace,
  learned: learnsNothing,
};

/**
 * Recorded steps re-found on the screen; the model only where the recording does not carry the run:
 * surely for a step without a recording (or a workflow without steps). Learns a heal.
 */
export const AUTO: RunMode = {
  name: 'auto',
  handsOverToModel: true,
  checkBeforeStart: refuseHostileRecording,
  needsModel: (steps) => steps.length === 0 || steps.some((step) => step.source === null),
  executor: () => runAuto,
  learned: (log, context) => collectHeal(typedEvents(log), context),
};

/** The model every turn: needs one, never reads the recording. */
export const AGENT: RunMode = {
  name: 'agent',
  // The model drives from the start: nothing is handed over.
  handsOverToModel: false,
  async checkBeforeStart({ modelForbidden }) {
    if (modelForbidden) {
      throw new ReplayOptionError(
        'the agent mode asks the model at every turn, and this run may not call one (its model calls budget is 0): replay in the auto mode (recorded steps re-found on the screen, no model; it stops at a divergence) or the trace mode, or allow some model calls',
      );
    }
  },
  needsModel: () => true,
  // The agent loop (and the model client it imports) is loaded when a run uses it.
  executor: (agent) => async (context) =>
    (await import('../agent/agent-executor.ts')).runAgent(context, agent),
  // A workflow without a recording learns its steps from the model's actions.
  learned: (log, context, workflow) =>
    isUnrecorded(workflow) ? collectHeal(typedEvents(log), context) : null,
};

const RUN_MODES: Readonly<Record<ReplayMode, RunMode>> = { agent: AGENT, trace: TRACE, auto: AUTO };

/** Replay modes available now. */
export const SUPPORTED_MODES = Object.keys(RUN_MODES) as ReplayMode[];

/** Default of `ReplayOptions.mode`. */
export const DEFAULT_MODE: ReplayMode = 'auto';

/** The descriptor of the mode named `name`; an unknown name (or not a string) throws `ReplayOptionError`. */
export function runModeOf(name: unknown): RunMode {
  if (typeof name !== 'string' || !Object.hasOwn(RUN_MODES, name)) {
    throw new ReplayOptionError(
      `mode must be one of ${SUPPORTED_MODES.join(', ')}, got ${JSON.stringify(name)}`,
    );
  }
  return RUN_MODES[name as ReplayMode];
}
