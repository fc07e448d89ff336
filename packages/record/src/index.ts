export { ActionAggregator, type AggregatorOptions, type RecordedAction } from './aggregate.ts';
export {
  ControlRequest,
  ControlRequestError,
  type ControlStatus,
  controlAddress,
  RecorderNotRunningError,
  sendControl,
} from './control.ts';
export { assertRecordableSession, RecordingUnsupportedError } from './recordable-session.ts';
export {
  type Annotation,
  DEFAULT_HOTKEYS,
  LaunchError,
  type LaunchOptions,
  type RecorderEvent,
  type RecorderHotkeys,
  type RecordingResult,
  type RecordOptions,
  record,
  type StopReason,
} from './recorder.ts';
export { DisplayReplayingError, ReplayWatch, type ReplayWatchOptions } from './replay-watch.ts';
export { createSessionDir, slugify } from './session.ts';
