export { OcrEngine } from '@mime-desktop/vision';
export type { ResolvedAction } from './actions/computer-action.ts';
export { DEFAULT_SETTLE, type SettleOptions } from './actions/screen-settle.ts';
export { type AgentScopeSetting, DEFAULT_AGENT_SCOPE } from './agent/agent-scope.ts';
export {
  type AgentCall,
  type AgentTools,
  agentTools,
  COMPUTER_ACTIONS,
  type ComputerAction,
  RevisedPlan,
} from './agent/agent-tools.ts';
export {
  GRID_MAX,
  type GridPoint,
  gridToLogical,
  logicalToGrid,
  modelPointToLogical,
  type PointSpace,
} from './agent/coordinates.ts';
export { DEFAULT_MODEL_IMAGE, type ModelImageOptions } from './agent/model-image.ts';
export { type ProbeOptions, probeModel } from './agent/probe.ts';
export { DEFAULT_MAX_UNUSABLE_REPLIES } from './agent/unusable-replies.ts';
export {
  BUDGET_CODES,
  BudgetExhaustedError,
  type ParamProblems,
  ParamsError,
  ReplayDivergenceError,
  ReplayOptionError,
  RunStoppedError,
  SetupError,
  TraceUnavailableError,
} from './errors.ts';
export { applyHeal, HealError, type HealPlan, planHeal } from './heal/heal.ts';
export { type BudgetLimits, type BudgetName, type BudgetSnapshot, DEFAULT_BUDGETS } from './run/budgets.ts';
export type {
  ActionStatus,
  CallUsageSummary,
  ReplanTrigger,
  ReplayEvent,
  ReplayEventListener,
} from './run/events.ts';
export {
  checkParams,
  type MaterializedWorkflow,
  type MaterializeOptions,
  materializeWorkflow,
  type ParamSource,
  type ResolvedParam,
  secretEnvName,
} from './run/materialize.ts';
export { DEFAULT_PAUSE_HOTKEY } from './run/pause-gate.ts';
export { DEFAULT_STEP_TIMEOUT_MS, type ReplayOptions, type ReplayResult, replay } from './run/replay.ts';
export type { ConfirmAnswer, ConfirmRequest } from './run/run-context.ts';
export { formatRunSummary } from './run/run-summary.ts';
