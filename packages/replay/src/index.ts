export {
  AGENT_TOOLS,
  type AgentCall,
  COMPUTER_ACTIONS,
  type ComputerAction,
  RevisedPlan,
} from './agent-tools.ts';
export { type BudgetLimits, type BudgetName, type BudgetSnapshot, DEFAULT_BUDGETS } from './budgets.ts';
export type { ResolvedAction } from './computer-action.ts';
export { GRID_MAX, type GridPoint, gridToLogical, logicalToGrid } from './coordinates.ts';
export {
  BUDGET_CODES,
  BudgetExhaustedError,
  type ParamProblems,
  ParamsError,
  ReplayOptionError,
  RunStoppedError,
} from './errors.ts';
export type {
  ActionStatus,
  CallUsageSummary,
  ReplanTrigger,
  ReplayEvent,
  ReplayEventListener,
} from './events.ts';
export {
  type MaterializedWorkflow,
  type MaterializeOptions,
  materializeWorkflow,
  type ParamSource,
  type ResolvedParam,
  secretEnvName,
} from './materialize.ts';
export { DEFAULT_MODEL_IMAGE, type ModelImageOptions } from './model-image.ts';
export { DEFAULT_PAUSE_HOTKEY } from './pause-gate.ts';
export { type ReplayOptions, type ReplayResult, replay } from './replay.ts';
export type { ConfirmAnswer, ConfirmRequest } from './run-context.ts';
export { RUN_FILES, RUNS_FOLDER } from './run-folder.ts';
export { formatRunSummary } from './run-summary.ts';
export { DEFAULT_SETTLE, type SettleOptions } from './screen-settle.ts';
