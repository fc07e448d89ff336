import { MimeError } from '@mime-desktop/schema';

/** A folder that is not a replay run (`MIME_NOT_A_RUN`): the message names what is missing. */
export class NotARunError extends MimeError {
  readonly dir: string;

  constructor(dir: string, reason: string) {
    super(
      'MIME_NOT_A_RUN',
      `${dir} is not a replay run folder: ${reason}. A run folder is <workflow>/.replay/<run_id>/ and holds events.jsonl, summary.json and the screenshots of the run.`,
      { exit: 'usage' },
    );
    this.dir = dir;
  }
}

/** An option of `writeReport` out of range (`MIME_REPORT_OPTION_INVALID`). */
export class ReportOptionError extends MimeError {
  constructor(message: string) {
    super('MIME_REPORT_OPTION_INVALID', message, { exit: 'usage' });
  }
}
