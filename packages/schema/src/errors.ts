import { basename, dirname } from 'node:path';

/**
 * How an error ends a command, for the exit code: `usage` (bad input, usage or configuration: fix it
 * and retry, exit 2), `failed` (the work itself failed, exit 1), `aborted` (stopped by the person or
 * the fail-safe, exit 130).
 */
export type ExitCategory = 'usage' | 'failed' | 'aborted';

/**
 * Base class of every error mime raises on purpose. `code` is stable (tests, scripts and the CLI key
 * on it); `message` says what is wrong and how to fix it; `exit` says how it ends a command; the
 * original error, when there is one, is kept as `cause`.
 */
export class MimeError extends Error {
  readonly code: string;
  readonly exit: ExitCategory;

  constructor(code: string, message: string, options?: { cause?: unknown; exit?: ExitCategory }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.exit = options?.exit ?? (code === 'MIME_ABORTED' ? 'aborted' : 'failed');
  }
}

/**
 * Whether `error` is one mime raised on purpose: a MimeError, or (from another copy of this package
 * in a dependency tree) an Error with a `MIME_` code and an exit category.
 */
export function isMimeError(error: unknown): error is MimeError {
  if (error instanceof MimeError) return true;
  if (!(error instanceof Error)) return false;
  const { code, exit } = error as Partial<MimeError>;
  return (
    typeof code === 'string' &&
    code.startsWith('MIME_') &&
    (exit === 'usage' || exit === 'failed' || exit === 'aborted')
  );
}

/** A problem found in a file, reported as `path: message` (path empty for the whole document). */
export interface Problem {
  /** Dotted JSON path into the document, e.g. `plan.subtasks[1].steps[0].action_value`. */
  path: string;
  message: string;
}

/** A file that exists but cannot be read: missing, a directory, no permission. */
export class FileReadError extends MimeError {
  readonly file: string;

  constructor(file: string, reason: string, options?: { cause?: unknown }) {
    super('MIME_FILE_UNREADABLE', `${file}: ${reason}`, { ...options, exit: 'usage' });
    this.file = file;
  }
}

/** No space left where a file is written: the previous version of the file is kept as it was. */
export class DiskFullError extends MimeError {
  readonly file: string;

  constructor(file: string, options?: { cause?: unknown }) {
    super(
      'MIME_DISK_FULL',
      `no space left on the disk of ${dirname(file)} to write ${basename(file)}; the previous ${basename(file)} is kept as it was: free some space and run this again`,
      { ...options, exit: 'usage' },
    );
    this.file = file;
  }
}

/** A folder mime must write into is read-only or not writable by this user: nothing was written there. */
export class NotWritableError extends MimeError {
  readonly file: string;

  constructor(file: string, options?: { cause?: unknown }) {
    const code = (options?.cause as NodeJS.ErrnoException | undefined)?.code;
    const why =
      code === 'EROFS' ? 'is on a read-only file system' : 'is not writable by this user (permission denied)';
    super(
      'MIME_NOT_WRITABLE',
      `cannot write ${basename(file)}: ${dirname(file)} ${why}; nothing was changed there: make it writable (or copy the folder somewhere writable, or give another --home) and run this again`,
      { ...options, exit: 'usage' },
    );
    this.file = file;
  }
}

/**
 * A failed write (or folder creation) of `file` as a named error: a full disk, a read-only or
 * unwritable folder; any other error is returned as it is.
 */
export function namedWriteError(file: string, error: unknown): unknown {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ENOSPC' || code === 'EDQUOT') return new DiskFullError(file, { cause: error });
  if (code === 'EROFS' || code === 'EACCES' || code === 'EPERM')
    return new NotWritableError(file, { cause: error });
  return error;
}

/**
 * A path from a recording or workflow that points outside its folder, or a symbolic link mime was to
 * read or write through (`MIME_UNSAFE_PATH`).
 */
export class UnsafePathError extends MimeError {
  readonly path: string;

  constructor(what: string, path: string, reason: string) {
    super(
      'MIME_UNSAFE_PATH',
      `${what}: refusing ${JSON.stringify(path.slice(0, 200))}: ${reason}. Paths in recordings and workflows must name files inside their folder; this file may have been made to read or write elsewhere: do not use it.`,
      { exit: 'usage' },
    );
    this.path = path;
  }
}

/** A JSON or JSONL file whose text is not valid JSON; `line` and `column` are 1-based. */
export class JsonSyntaxError extends MimeError {
  readonly file: string;
  readonly line: number;
  readonly column: number;

  constructor(file: string, line: number, column: number, reason: string, options?: { cause?: unknown }) {
    super('MIME_INVALID_JSON', `${file}:${line}:${column}: invalid JSON: ${reason}`, {
      ...options,
      exit: 'usage',
    });
    this.file = file;
    this.line = line;
    this.column = column;
  }
}

/** A document that parsed as JSON but breaks its schema; every problem is listed at once. */
export class ValidationError extends MimeError {
  readonly file: string;
  readonly problems: readonly Problem[];

  constructor(file: string, what: string, problems: readonly Problem[]) {
    const lines = problems.map((p) => `  ${p.path || '(document)'}: ${p.message}`);
    const count = problems.length === 1 ? '1 problem' : `${problems.length} problems`;
    super('MIME_INVALID_FILE', `${file}: not a valid ${what} (${count}):\n${lines.join('\n')}`, {
      exit: 'usage',
    });
    this.file = file;
    this.problems = problems;
  }
}
