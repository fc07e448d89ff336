import { MimeError } from '@mime-desktop/schema/errors';

/** The documented exit codes of every `mime` command. */
export const EXIT = {
  /** Everything asked for was done. */
  ok: 0,
  /** The command ran but its work failed (a replay that did not succeed, a failed doctor check). */
  failed: 1,
  /** Bad input or usage: fix the command line, a file or the configuration, then retry. */
  usage: 2,
  /** Aborted by the user (Ctrl+C, the fail-safe, a cancelled edit). */
  aborted: 130,
} as const;
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** Error codes that mean "fix your input and retry". */
const USAGE_CODES = new Set([
  'MIME_USAGE',
  'MIME_FILE_UNREADABLE',
  'MIME_INVALID_JSON',
  'MIME_INVALID_FILE',
  'MIME_BAD_KEY',
  'MIME_MODEL_NOT_CONFIGURED',
  'MIME_MODEL_CONFIG_INVALID',
  'MIME_MODEL_AUTH',
  'MIME_BAD_RECORDING',
  'MIME_NO_DISPLAY',
  'MIME_PARAMS_INVALID',
  'MIME_REPLAY_OPTION_INVALID',
  'MIME_NOT_A_RUN',
  'MIME_REPORT_OPTION_INVALID',
  'MIME_TRACE_UNAVAILABLE',
]);

/** The exit code for an error thrown by a command. */
export function exitCodeFor(error: unknown): ExitCode {
  if (!(error instanceof MimeError)) return EXIT.failed;
  if (error.code === 'MIME_ABORTED') return EXIT.aborted;
  return USAGE_CODES.has(error.code) ? EXIT.usage : EXIT.failed;
}

/** A bad command line (a missing or malformed argument commander cannot catch). */
export class UsageError extends MimeError {
  constructor(message: string) {
    super('MIME_USAGE', message);
  }
}
