import { MimeError } from '@mime-desktop/schema';

/** A heal that cannot be planned or applied: none to apply, a workflow changed since, an invalid result. */
export class HealError extends MimeError {
  constructor(code: 'MIME_HEAL_NOTHING' | 'MIME_HEAL_CONFLICT' | 'MIME_HEAL_INVALID', message: string) {
    super(code, message, { exit: 'usage' });
  }
}
