import { MimeError } from '@mime-desktop/schema';

/** The vision process (OCR and template matching out of the host's process) could not answer a call. */
export class VisionProcessError extends MimeError {
  constructor(message: string, cause?: unknown) {
    super('MIME_VISION_PROCESS', message, cause === undefined ? undefined : { cause });
  }
}
