export { renderBatchPage, writeBatchFiles } from './batch-page.ts';
export { NotARunError, ReportOptionError } from './errors.ts';
export { batchJunit, runJunit, writeJunit } from './junit.ts';
export { type RunCause, type RunDivergence, runCause } from './run-cause.ts';
export {
  DEFAULT_MAX_IMAGE_WIDTH,
  keepRecordedImages,
  type ReportOptions,
  renderReport,
  writeReport,
} from './write-report.ts';
