import type { ReplayMode } from '@mime-desktop/schema';
import type { AgentRuntime } from '../agent/agent-runtime.ts';
import type { ModeExecutor } from '../kernel/run-context.ts';
import { runAuto, runTrace } from '../recorded/step-executor.ts';
import type { ReplayOptions } from './replay-options.ts';

/** The executor of each mode; the agent's gets the agent's runtime. */
export const EXECUTORS: Record<ReplayMode, (agent: AgentRuntime) => ModeExecutor> = {
  // The agent loop (and the model client it imports) is loaded when a run uses it.
  agent: (agent) => async (context) => (await import('../agent/agent-executor.ts')).runAgent(context, agent),
  trace: () => runTrace,
  auto: () => runAuto,
};

/** Replay modes available now. */
export const SUPPORTED_MODES = Object.keys(EXECUTORS) as ReplayMode[];

/** Default of {@link ReplayOptions.mode}. */
export const DEFAULT_MODE: ReplayMode = 'auto';
