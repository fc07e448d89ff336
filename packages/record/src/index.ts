export { ActionAggregator, type AggregatorOptions, type RecordedAction } from './aggregate.ts';
export {
  ControlRequest,
  ControlRequestError,
  type ControlStatus,
  controlAddress,
  RecorderNotRunningError,
  sendControl,
} from './control.ts';
export { LaunchError } from './launch.ts';
export {
  type Annotation,
  DEFAULT_HOTKEYS,
  type LaunchOptions,
  type RecorderEvent,
  type RecorderHotkeys,
  type RecordingResult,
  type RecordOptions,
  type StopReason,
} from './record-options.ts';
export { assertRecordableSession, RecordingUnsupportedError } from './recordable-session.ts';
export { record } from './recorder.ts';
export { DisplayReplayingError, ReplayWatch, type ReplayWatchOptions } from './replay-watch.ts';
export { createSessionDir, slugify } from './session.ts';
