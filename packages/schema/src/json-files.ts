import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { appendFile, mkdir, open, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import indexToPosition from 'index-to-position';
import {
  findNodeAtLocation,
  type ParseError,
  parse,
  parseTree,
  printParseErrorCode,
  stripComments,
  visit,
} from 'jsonc-parser';
import writeFileAtomic from 'write-file-atomic';
import { type ReadPlaceOptions, readRegularFile } from './bounded-read.ts';
import { FileReadError, JsonSyntaxError, namedWriteError } from './errors.ts';
import { assertNoLinkOnTheWay } from './paths.ts';

const PARSE_REASONS: Record<string, string> = {
  InvalidSymbol: 'unexpected character',
  InvalidNumberFormat: 'malformed number',
  PropertyNameExpected: 'expected a property name in double quotes',
  ValueExpected: 'expected a value',
  ColonExpected: 'expected ":" after the property name',
  CommaExpected: 'expected "," between items (or a closing bracket)',
  CloseBraceExpected: 'expected "}" (an object is not closed)',
  CloseBracketExpected: 'expected "]" (an array is not closed)',
  EndOfFileExpected: 'unexpected text after the end of the document',
  InvalidCommentToken: 'comments are not allowed in JSON',
  UnexpectedEndOfComment: 'unterminated comment',
  UnexpectedEndOfString: 'unterminated string',
  UnexpectedEndOfNumber: 'malformed number',
  InvalidUnicode: 'invalid unicode escape',
  InvalidEscapeCharacter: 'invalid escape character',
  InvalidCharacter: 'invalid character in string',
};

/** The deepest nesting of arrays and objects accepted: mime's files nest a few levels, hostile ones thousands. */
export const MAX_JSON_DEPTH = 64;
/** The largest JSON or JSONL file mime reads (a long recording's manifest is a few MiB). */
export const MAX_JSON_BYTES = 64 * 1024 * 1024;

/** Where nesting first goes deeper than {@link MAX_JSON_DEPTH}, outside strings; -1 when it never does. */
function tooDeepAt(text: string): number {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i += 1;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      depth += 1;
      if (depth > MAX_JSON_DEPTH) return i;
    } else if (c === 0x5d || c === 0x7d) depth -= 1;
  }
  return -1;
}

export interface ParseJsonOptions {
  /** Accept `//` and `/* *\/` comments, as in the `mime edit` error header. Default false. */
  allowComments?: boolean;
  /** Added to the reported line number (for one line of a JSONL file). Default 0. */
  lineOffset?: number;
}

/**
 * Parses JSON text, reporting the first syntax error as a {@link JsonSyntaxError} with a 1-based line
 * and column. `file` names the source in messages.
 */
export function parseJsonText(input: string, file: string, options: ParseJsonOptions = {}): unknown {
  // A byte order mark is not JSON, but editors on some systems add one: it is ignored.
  const text = input.charCodeAt(0) === 0xfeff ? input.slice(1) : input;
  const offsetLine = options.lineOffset ?? 0;
  if (text.trim() === '') {
    throw new JsonSyntaxError(
      file,
      1 + (options.lineOffset ?? 0),
      1,
      'the file is empty; expected a JSON value',
    );
  }
  const deep = tooDeepAt(text);
  if (deep >= 0) {
    const { line, column } = indexToPosition(text, deep, { oneBased: true });
    throw new JsonSyntaxError(
      file,
      line + offsetLine,
      column,
      `nested deeper than ${MAX_JSON_DEPTH} levels of arrays and objects; mime's files never are`,
    );
  }
  const errors: ParseError[] = [];
  parse(text, errors, { disallowComments: !options.allowComments, allowTrailingComma: false });
  const first = errors[0];
  if (first) {
    const { line, column } = indexToPosition(text, Math.min(first.offset, text.length), { oneBased: true });
    const reason = PARSE_REASONS[printParseErrorCode(first.error)] ?? 'syntax error';
    throw new JsonSyntaxError(file, line + offsetLine, column, reason);
  }
  const duplicate = duplicateKeyAt(text);
  if (duplicate) {
    const { line, column } = indexToPosition(text, duplicate.offset, { oneBased: true });
    throw new JsonSyntaxError(
      file,
      line + offsetLine,
      column,
      `the key ${JSON.stringify(duplicate.key)} appears twice in one object, and JSON would keep only the last (a "sensitive": true could silently become false); remove one`,
    );
  }
  // JSON.parse makes `__proto__` an own property, as it is in the file; jsonc's values would set the prototype.
  return JSON.parse(options.allowComments ? stripComments(text) : text);
}

/** The first key that an object of the text has twice, and where; null when none. */
function duplicateKeyAt(text: string): { key: string; offset: number } | null {
  const open: Array<Set<string>> = [];
  let found: { key: string; offset: number } | null = null;
  visit(
    text,
    {
      onObjectBegin: () => {
        open.push(new Set());
      },
      onObjectEnd: () => {
        open.pop();
      },
      onObjectProperty: (key, offset) => {
        const keys = open.at(-1);
        if (!keys || found) return;
        if (keys.has(key)) found = { key, offset };
        keys.add(key);
      },
    },
    { disallowComments: false, allowTrailingComma: false },
  );
  return found;
}

const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/**
 * Reads a UTF-8 text file of at most {@link MAX_JSON_BYTES} (a regular file inside its folder, see
 * {@link readRegularFile}); failures (missing, a directory, a FIFO, too large, not UTF-8) become a
 * {@link FileReadError} that says why. A byte order mark is dropped.
 */
export async function readTextFile(file: string, options: ReadPlaceOptions = {}): Promise<string> {
  return (await readTextFileWithDigest(file, options)).text;
}

/**
 * {@link readTextFile}, with the SHA-256 (hex) of the bytes read: a file that is read and fingerprinted
 * is read once, so the fingerprint is of the very text that was used.
 */
export async function readTextFileWithDigest(
  file: string,
  options: ReadPlaceOptions = {},
): Promise<{ text: string; sha256: string }> {
  const bytes = await readRegularFile(file, MAX_JSON_BYTES, undefined, options);
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  try {
    return { text: UTF8.decode(bytes), sha256 };
  } catch (error) {
    const at = firstInvalidUtf8(bytes);
    throw new FileReadError(file, `not valid UTF-8 text (bad byte at offset ${at}); save it as UTF-8`, {
      cause: error,
    });
  }
}

/** Length of the UTF-8 sequence a lead byte starts; 0 for a byte that cannot start one. */
function sequenceLength(lead: number): number {
  if (lead < 0x80) return 1;
  if (lead >= 0xc2 && lead <= 0xdf) return 2;
  if (lead >= 0xe0 && lead <= 0xef) return 3;
  return lead >= 0xf0 && lead <= 0xf4 ? 4 : 0;
}

/** Offset of the first byte sequence that is not UTF-8. */
function firstInvalidUtf8(bytes: Buffer): number {
  let i = 0;
  while (i < bytes.length) {
    const length = sequenceLength(bytes[i] as number);
    if (length === 0 || i + length > bytes.length) return i;
    for (let k = 1; k < length; k += 1) {
      const next = bytes[i + k] as number;
      if (next < 0x80 || next > 0xbf) return i;
    }
    i += length;
  }
  return i;
}

/** Reads and parses a JSON file. */
export async function readJsonFile(file: string, options: ReadPlaceOptions = {}): Promise<unknown> {
  return parseJsonText(await readTextFile(file, options), file);
}

/** One parsed line of a JSONL file, with its 1-based line number. */
export interface JsonlLine {
  line: number;
  value: unknown;
}

/**
 * Reads a JSONL file. Blank lines are skipped. A line that is not JSON throws a
 * {@link JsonSyntaxError} naming it, except a final line with no newline, which a killed writer can
 * leave behind: with `tolerateTornTail` (default true) it is dropped.
 */
export async function readJsonlFile(
  file: string,
  options: { tolerateTornTail?: boolean } & ReadPlaceOptions = {},
): Promise<JsonlLine[]> {
  const text = await readTextFile(file, options);
  const rows = text.split('\n');
  const torn = !text.endsWith('\n');
  const lines: JsonlLine[] = [];
  for (const [index, row] of rows.entries()) {
    if (row.trim() === '') continue;
    const isTail = index === rows.length - 1 && torn;
    try {
      lines.push({ line: index + 1, value: parseJsonText(row, file, { lineOffset: index }) });
    } catch (error) {
      if (isTail && (options.tolerateTornTail ?? true)) break;
      throw error;
    }
  }
  return lines;
}

/** File modes and place: private data (recordings, runs) is created 0700/0600. */
export interface WriteOptions {
  /** File mode. Default 0o600. */
  mode?: number;
  /** Mode of directories created on the way. Default 0o700. */
  dirMode?: number;
  /**
   * The folder the write stays in: no symbolic link between it and the file, the file included
   * ({@link assertNoLinkOnTheWay}). Default: the file's own folder (the file itself is not a link);
   * `false` for a file the user keeps as a link on purpose (an MCP client's config in a dotfiles repo).
   */
  inside?: string | false;
}

/**
 * Makes `dir` and its parents. Node's recursive mkdir says ENOENT when a parent is read-only: the first
 * missing folder is then made alone, which fails with the real reason (EROFS, EACCES).
 */
async function makeFolders(dir: string, mode: number): Promise<void> {
  try {
    await mkdir(dir, { recursive: true, mode });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    let missing = dir;
    while (dirname(missing) !== missing && !existsSync(dirname(missing))) missing = dirname(missing);
    await mkdir(missing, { mode });
    throw error;
  }
}

/** Refuses a write through a link, then runs it; a full disk or a read-only folder becomes a named error. */
async function guardedWrite<T>(file: string, options: WriteOptions, write: () => Promise<T>): Promise<T> {
  const inside = options.inside ?? dirname(file);
  if (inside !== false) await assertNoLinkOnTheWay(inside, file);
  try {
    return await write();
  } catch (error) {
    // The temporary file is gone and the previous file untouched: say where and why.
    throw namedWriteError(file, error);
  }
}

/**
 * Makes a folder (and its parents) for mime's files, mode 0700: refused when it or a folder between
 * `inside` and it is a symbolic link (a `.replay` or row folder that links out); a full disk or a
 * read-only place is a named error.
 */
export async function makeFolder(dir: string, options: WriteOptions = {}): Promise<void> {
  await guardedWrite(dir, { ...options, inside: options.inside ?? dirname(dir) }, () =>
    makeFolders(dir, options.dirMode ?? 0o700),
  );
}

/**
 * Writes JSON atomically (temp file, fsync, rename): a reader sees the old file or the new one, never
 * half of it. Two-space indentation and a final newline.
 */
export async function writeJsonAtomic(
  file: string,
  value: unknown,
  options: WriteOptions = {},
): Promise<void> {
  await writeFileAtomically(file, `${JSON.stringify(value, null, 2)}\n`, options);
}

/**
 * Writes text or bytes atomically (temp file, fsync, rename), creating parent directories; never
 * through a symbolic link (see {@link WriteOptions.inside}).
 */
export async function writeFileAtomically(
  file: string,
  data: string | Buffer,
  options: WriteOptions = {},
): Promise<void> {
  await guardedWrite(file, options, async () => {
    await makeFolders(dirname(file), options.dirMode ?? 0o700);
    await writeFileAtomic(file, data, { mode: options.mode ?? 0o600, fsync: true });
  });
}

/** A time stamp for the copies kept of replaced files: `20261125T080000123Z`. */
export function backupStamp(now: Date = new Date()): string {
  return now.toISOString().replace(/[-:]/g, '').replace('.', '');
}

/**
 * Copies `from` (a regular file inside its folder, at most {@link MAX_JSON_BYTES}: a workflow's
 * `schema.json` or `manifest.jsonl`) to `to`, or to `to` with `-2`, `-3`... before its extension when
 * that is taken (never over a file or a link); returns the copy.
 */
export async function copyFileUnique(from: string, to: string): Promise<string> {
  const data = await readRegularFile(from, MAX_JSON_BYTES);
  for (let n = 1; ; n += 1) {
    const target = n === 1 ? to : to.replace(/(\.\w+)$/, `-${n}$1`);
    try {
      // O_EXCL: a name already taken, by a file or a link (never followed), moves on to the next.
      await guardedWrite(target, { inside: false }, () =>
        writeFile(target, data, { mode: 0o600, flag: 'wx' }),
      );
      return target;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
}

/**
 * Appends one JSON value as one complete line and flushes it to disk, so a killed process leaves a
 * valid prefix.
 */
export async function appendJsonl(file: string, value: unknown, options: WriteOptions = {}): Promise<void> {
  const line = `${JSON.stringify(value)}\n`;
  await guardedWrite(file, options, async () => {
    await makeFolders(dirname(file), options.dirMode ?? 0o700);
    const handle = await open(file, 'a', options.mode ?? 0o600);
    try {
      await appendFile(handle, line, 'utf8');
      await handle.datasync();
    } finally {
      await handle.close();
    }
  });
}

/** `plan.subtasks[1].text` -> `['plan', 'subtasks', 1, 'text']`. */
function splitPath(path: string): Array<string | number> {
  return Array.from(path.matchAll(/([^.[\]]+)|\[(\d+)\]/g), (m) =>
    m[2] === undefined ? (m[1] as string) : Number(m[2]),
  );
}

/**
 * Where a dotted path (as in a {@link Problem}) stands in a JSON text, 1-based; the nearest existing
 * parent when the path itself is missing; null when the text does not parse.
 */
export function locateJsonPath(text: string, path: string): { line: number; column: number } | null {
  const root = parseTree(text);
  if (!root) return null;
  const segments = splitPath(path);
  for (let n = segments.length; n >= 0; n -= 1) {
    const node = findNodeAtLocation(root, segments.slice(0, n));
    if (node) {
      const offset = node.parent?.type === 'property' ? node.parent.offset : node.offset;
      return indexToPosition(text, offset, { oneBased: true });
    }
  }
  return null;
}
