/** The error of an edit the workflow cannot take. */
import { MimeError } from '@mime-desktop/schema';

/** A change the workflow cannot take: no such step, nothing to make a param of, a bad name. */
export class StudioEditError extends MimeError {
  constructor(message: string) {
    super('MIME_STUDIO_EDIT', message);
  }
}
