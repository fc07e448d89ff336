import { MimeError } from '@mime-desktop/schema';

/** No usable display: DISPLAY unset or unreachable, or a Wayland session without XWayland. */
export class DisplayNotFoundError extends MimeError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('MIME_NO_DISPLAY', message, { ...options, exit: 'usage' });
  }
}

/** What stopped mime's input: a pointer slammed into a screen corner, the hotkey, or the caller's signal. */
export type AbortReason = 'corner' | 'hotkey' | 'signal';

/** Input was stopped by the fail-safe or by the caller; every input call after it rejects too. */
export class AbortedError extends MimeError {
  readonly reason: AbortReason;

  constructor(reason: AbortReason, message: string, options?: { cause?: unknown }) {
    super('MIME_ABORTED', message, options);
    this.reason = reason;
  }
}

/** Something this platform or session cannot do (e.g. global input hooks under Wayland). */
export class UnsupportedPlatformError extends MimeError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('MIME_UNSUPPORTED_PLATFORM', message, options);
  }
}

/** An input request mime cannot carry out as asked (point off screen, character it cannot type). */
export class InvalidInputError extends MimeError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('MIME_BAD_INPUT', message, options);
  }
}

/** A native desktop call failed (capture, pointer, keyboard, clipboard); the original error is `cause`. */
export class DesktopFailureError extends MimeError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('MIME_DESKTOP_FAILED', message, options);
  }
}

/** Who holds a display, as a busy error names it. */
export interface DisplayHolderFacts {
  pid: number;
  command: string;
  workflow: string | null;
  since: string;
  display: string;
}

/** Another replay holds the display (in this process or another); one replay runs on a display at a time. */
export class DisplayBusyError extends MimeError {
  readonly holder: DisplayHolderFacts;

  constructor(holder: DisplayHolderFacts) {
    const workflow = holder.workflow === null ? '' : `, workflow ${JSON.stringify(holder.workflow)}`;
    super(
      'MIME_DESKTOP_BUSY',
      `the display ${holder.display} is busy: ${holder.command} (pid ${holder.pid}${workflow}) has been replaying on it since ${holder.since}, and one replay runs on a display at a time; run again when it ends, or queue (mime replay --queue, mime mcp --queue) to wait your turn`,
    );
    this.holder = holder;
  }
}

/** The folder of the display locks cannot be trusted or used. */
export class DisplayLockError extends MimeError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('MIME_DISPLAY_LOCK', message, { ...options, exit: 'usage' });
  }
}
