export { type BatchMeta, collectBatch, readRowRecords } from './collect.ts';
export { BatchOptionError, RowsError } from './errors.ts';
export type { WorkerReplayOptions } from './row-job.ts';
export { checkRows, MAX_ROWS, type Rows, readRows } from './rows.ts';
export { type BatchEvent, type BatchOptions, type BatchResult, runBatch } from './run-batch.ts';
