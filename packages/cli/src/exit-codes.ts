import { isMimeError, MimeError } from '@mime-desktop/schema/errors';

/** The documented exit codes of every `mime` command. */
export const EXIT = {
  /** Everything asked for was done. */
  ok: 0,
  /** The command ran but its work failed (a replay that did not succeed, a failed doctor check). */
  failed: 1,
  /** Bad input or usage: fix the command line, a file or the configuration, then retry. */
  usage: 2,
  /**
   * The display is busy: another replay (any process) holds it. Run again later, or with --queue
   * (75 is EX_TEMPFAIL of sysexits.h: a temporary failure, worth retrying).
   */
  busy: 75,
  /** Aborted by the user (Ctrl+C, the fail-safe, a cancelled edit). */
  aborted: 130,
} as const;
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** The code of a busy display (`DisplayBusyError` of @mime-desktop/os-io), which exits 75. */
const BUSY_CODE = 'MIME_DESKTOP_BUSY';

/** The exit code for an error thrown by a command: its category when it is one of mime's, else failed. */
export function exitCodeFor(error: unknown): ExitCode {
  if (!isMimeError(error)) return EXIT.failed;
  return error.code === BUSY_CODE ? EXIT.busy : EXIT[error.exit];
}

/** A bad command line (a missing or malformed argument commander cannot catch). */
export class UsageError extends MimeError {
  constructor(message: string) {
    super('MIME_USAGE', message, { exit: 'usage' });
  }
}
