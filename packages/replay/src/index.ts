export { OcrEngine, useVisionProcess } from '@mime-desktop/vision';
export type { ResolvedAction } from './actions/computer-action.ts';
export {
  type ConfirmAnswer,
  type ConfirmRequest,
  DEFAULT_HISTORY_LIMIT,
  DEFAULT_NO_PROGRESS_REPEATS,
} from './agent/agent-runtime.ts';
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
  ModelForbiddenError,
  type ParamProblems,
  ParamsError,
  ReplayDivergenceError,
  ReplayOptionError,
  RunStoppedError,
  SetupError,
  TraceUnavailableError,
} from './errors.ts';
export {
  applyHeal,
  type HealChange,
  HealError,
  type HealOptions,
  type HealPlan,
  type HealStepView,
  hasRecording,
  planHeal,
} from './heal/heal.ts';
export {
  type BudgetLimits,
  type BudgetName,
  type BudgetSnapshot,
  DEFAULT_BUDGETS,
} from './kernel/budgets.ts';
export type {
  ActionStatus,
  CallUsageSummary,
  ReplanTrigger,
  ReplayEvent,
  ReplayEventListener,
} from './kernel/events.ts';
export {
  checkParams,
  type MaterializedWorkflow,
  type MaterializeOptions,
  materializeParams,
  materializeWorkflow,
  type ParamSource,
  type ResolvedParam,
  type RunParams,
  secretEnvName,
} from './kernel/materialize.ts';
export { DEFAULT_PAUSE_HOTKEY, PauseControl } from './kernel/pause-gate.ts';
export { type RunParamsData, runParamsData, runParamsFromData } from './kernel/run-params-data.ts';
export { DEFAULT_SETTLE, DEFAULT_STEP_TIMEOUT_MS, type SettleOptions } from './kernel/settings.ts';
export { prepareRecordedChecks } from './recorded/prepare-checks.ts';
export { prepareRecorded } from './run/prepare-recorded.ts';
export {
  DEFAULT_MODE,
  executeReplay,
  finishReplay,
  type PreparedReplay,
  prepareReplay,
  type ReplayOptions,
  type ReplayResult,
  type RunMode,
  type RunOutcome,
  replay,
  runModeOf,
  SUPPORTED_MODES,
} from './run/replay.ts';
export { formatRunSummary } from './run/run-summary.ts';
