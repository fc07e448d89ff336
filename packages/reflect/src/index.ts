export { markedPath, readRecording, refreshAssets } from './assets.ts';
export { RecordingError, ReflectAbortedError, ReflectPlanError, ReflectStepError } from './errors.ts';
export { type MergeResult, mergeWorkflow } from './merge.ts';
export { modelFreeStep } from './model-free.ts';
export { SECRET_MARK, type StepSummary } from './prompts.ts';
export {
  DRAFT_FILE,
  type ReflectEvent,
  type ReflectOptions,
  type ReflectResult,
  reflect,
  STEP_CARDS_FILE,
} from './reflect.ts';
export { StepCardStore } from './step-cards.ts';
export { buildSteps, describeStep, type ReflectStep } from './steps.ts';
