/** What crosses between a host and its vision process (see vision-process.ts and vision-child.ts). */
import { MimeError } from '@mime-desktop/schema';
import { VisionProcessError } from './errors.ts';
import type { FindOptions, TemplateMatch } from './find.ts';
import type { RgbaImage } from './image.ts';
import type { OcrWord } from './ocr.ts';

/** What the vision process does: each call's name, its arguments and what it resolves. */
export interface VisionMethods {
  readWords(png: Buffer, options: { minConfidence?: number }): Promise<OcrWord[]>;
  readLine(png: Buffer): Promise<string>;
  start(): Promise<void>;
  findTemplate(screen: RgbaImage, template: RgbaImage, options: FindOptions): Promise<TemplateMatch | null>;
}

export type VisionMethod = keyof VisionMethods;

export interface VisionCall {
  id: number;
  method: VisionMethod;
  args: unknown[];
}

/** An error as it crosses: an Error's class name, message, stack and `code`/`exit`, or a thrown non-Error value. */
export type WireError =
  | { kind: 'error'; name: string; message: string; stack?: string; code?: unknown; exit?: unknown }
  | { kind: 'value'; value: unknown };

export type VisionReply =
  | { id: number; ok: true; value: unknown }
  | { id: number; ok: false; failure: WireError };

/** `error` as it crosses to the host. */
export function errorToWire(error: unknown): WireError {
  if (!(error instanceof Error)) return { kind: 'value', value: error };
  const { code, exit } = error as { code?: unknown; exit?: unknown };
  return { kind: 'error', name: error.name, message: error.message, stack: error.stack, code, exit };
}

/** The classes an error from the vision process is rebuilt as, by name. */
const BUILT_IN: Record<string, new (message: string) => Error> = {
  Error,
  RangeError,
  TypeError,
  SyntaxError,
  ReferenceError,
  EvalError,
  URIError,
};

/**
 * The error the host throws for one thrown in the vision process: the same built-in class, the
 * vision package's own class, or a `MimeError` with the same name, `code` and exit category; a thrown
 * non-Error value (OpenCV throws numbers) is thrown as it was.
 */
export function errorFromWire(failure: WireError): unknown {
  if (failure.kind === 'value') return failure.value;
  let error: Error;
  if (failure.name === VisionProcessError.name) error = new VisionProcessError(failure.message);
  else if (typeof failure.code === 'string' && failure.code.startsWith('MIME_')) {
    const exit = failure.exit === 'usage' || failure.exit === 'aborted' ? failure.exit : 'failed';
    error = new MimeError(failure.code, failure.message, { exit });
    error.name = failure.name;
  } else {
    error = new (BUILT_IN[failure.name] ?? Error)(failure.message);
    if (!(failure.name in BUILT_IN)) error.name = failure.name;
    if (failure.code !== undefined) Object.assign(error, { code: failure.code });
  }
  if (failure.stack) error.stack = `${failure.stack}\n    at (the vision process)`;
  return error;
}
