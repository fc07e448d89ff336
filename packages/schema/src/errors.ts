/**
 * Base class of every error mime raises on purpose. `code` is stable (tests, scripts and the CLI's
 * exit-code table key on it); `message` says what is wrong and how to fix it; the original error,
 * when there is one, is kept as `cause`.
 */
export class MimeError extends Error {
  readonly code: string;

  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }
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
    super('MIME_FILE_UNREADABLE', `${file}: ${reason}`, options);
    this.file = file;
  }
}

/** A JSON or JSONL file whose text is not valid JSON; `line` and `column` are 1-based. */
export class JsonSyntaxError extends MimeError {
  readonly file: string;
  readonly line: number;
  readonly column: number;

  constructor(file: string, line: number, column: number, reason: string, options?: { cause?: unknown }) {
    super('MIME_INVALID_JSON', `${file}:${line}:${column}: invalid JSON: ${reason}`, options);
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
    super('MIME_INVALID_FILE', `${file}: not a valid ${what} (${count}):\n${lines.join('\n')}`);
    this.file = file;
    this.problems = problems;
  }
}
