export { acceptHeal, type HealReview, reviewHeal } from './heal-review.ts';
export { MessageLog } from './message-log.ts';
export { ReflectManager, type ReflectMessage, type StudioReflect } from './reflect-manager.ts';
export { RunManager, type RunMessage, RunRefusedError, type StudioRun } from './run-manager.ts';
export { type Studio, StudioListenError, type StudioOptions, startStudio, studioApp } from './server.ts';
export {
  addDependency,
  addParam,
  applyEdit,
  deleteParam,
  deleteStep,
  deleteSubtask,
  makeParam,
  moveStep,
  moveSubtask,
  removeDependency,
  renameParam,
  type StepFields,
  StudioEditError,
  setParam,
  setStep,
  setSubtaskText,
  upstreamExtracts,
  type WorkflowEdit,
} from './workflow-edits.ts';
export {
  type OpenedWorkflow,
  RecordingNotFoundError,
  type RecordingSummary,
  type RunListing,
  RunNotFoundError,
  WorkflowConflictError,
  WorkflowInvalidError,
  WorkflowNotFoundError,
  WorkflowStore,
  type WorkflowSummary,
} from './workflow-store.ts';
