export { type MakeParamRequest, makeParam, StudioEditError } from './make-param.ts';
export { RunManager, type RunMessage, RunRefusedError, type StudioRun } from './run-manager.ts';
export { type Studio, StudioListenError, type StudioOptions, startStudio, studioApp } from './server.ts';
export {
  type OpenedWorkflow,
  WorkflowConflictError,
  WorkflowInvalidError,
  WorkflowNotFoundError,
  WorkflowStore,
  type WorkflowSummary,
} from './workflow-store.ts';
