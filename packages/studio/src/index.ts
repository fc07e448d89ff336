export { RunManager, type RunMessage, RunRefusedError, type StudioRun } from './run-manager.ts';
export { type Studio, StudioListenError, type StudioOptions, startStudio, studioApp } from './server.ts';
export {
  addDependency,
  applyEdit,
  deleteParam,
  makeParam,
  removeDependency,
  renameParam,
  StudioEditError,
  setParam,
  setSubtaskText,
  upstreamExtracts,
  type WorkflowEdit,
} from './workflow-edits.ts';
export {
  type OpenedWorkflow,
  WorkflowConflictError,
  WorkflowInvalidError,
  WorkflowNotFoundError,
  WorkflowStore,
  type WorkflowSummary,
} from './workflow-store.ts';
