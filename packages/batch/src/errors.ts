import { MimeError } from '@mime-desktop/schema';

/** A rows file that cannot drive a batch: unreadable, malformed, or not fitting the workflow's params. */
export class RowsError extends MimeError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('MIME_ROWS_INVALID', message, { ...options, exit: 'usage' });
  }
}

/** A batch option out of range, or a folder that is not a batch. */
export class BatchOptionError extends MimeError {
  constructor(message: string) {
    super('MIME_BATCH_OPTION_INVALID', message, { exit: 'usage' });
  }
}
