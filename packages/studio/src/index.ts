export { StudioEditError } from './edit-error.ts';
export {
  acceptHeal,
  type HealChangeShown,
  type HealReview,
  type HealStepShown,
  reviewHeal,
} from './heal-review.ts';
export { MessageLog } from './message-log.ts';
export {
  ADDED_STEP_ACTIONS,
  addStep,
  addSubtask,
  deleteStep,
  deleteSubtask,
  duplicateStep,
  duplicateSubtask,
  moveStep,
  moveSubtask,
  type NewStep,
} from './plan-edits.ts';
export { ReflectManager, type ReflectMessage, type StudioReflect } from './reflect-manager.ts';
export { RunManager, type RunMessage, RunRefusedError, type StudioRun } from './run-manager.ts';
export { type Studio, StudioListenError, type StudioOptions, startStudio, studioApp } from './server.ts';
export {
  addDependency,
  addParam,
  applyEdit,
  deleteParam,
  makeParam,
  removeDependency,
  renameParam,
  type StepFields,
  setParam,
  setStep,
  setSubtaskText,
  setWorkflow,
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
