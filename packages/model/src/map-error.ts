import { isMimeError } from '@mime-desktop/schema';
import {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
  OpenAIError,
  RateLimitError,
} from 'openai';
import {
  ModelAbortedError,
  ModelAuthError,
  ModelRateLimitError,
  ModelServerError,
  ModelTimeoutError,
  ModelUnreachableError,
} from './errors.ts';
import { redactErrorInPlace, redactSecret, redactURLCredentials, type Secret } from './secret.ts';

/** What the error messages name. */
export interface ErrorContext {
  baseURL: string;
  model: string;
  timeoutMs: number;
  /** HTTP attempts made for the failed request. */
  attempts: number;
  apiKey: Secret | null;
  signal: AbortSignal | undefined;
}

const MAX_DETAIL = 300;

/**
 * Turns what the SDK (or `fetch`) threw into the matching mime error, with the API key removed from
 * the message and the kept `cause`. mime errors pass through; unknown errors (bugs) are rethrown as
 * they are, redacted.
 */
export function toModelError(error: unknown, ctx: ErrorContext): unknown {
  if (isMimeError(error)) return error;
  const cause = redactErrorInPlace(error, ctx.apiKey);
  const baseURL = redactURLCredentials(ctx.baseURL);
  if (ctx.signal?.aborted || error instanceof APIUserAbortError) return new ModelAbortedError({ cause });
  if (error instanceof APIConnectionTimeoutError) {
    return new ModelTimeoutError(baseURL, ctx.timeoutMs, ctx.attempts, { cause });
  }
  if (error instanceof APIConnectionError)
    return new ModelUnreachableError(baseURL, connectionReason(error), { cause });
  if (error instanceof APIError && error.status !== undefined) {
    const detail = describeApiError(error, ctx.apiKey);
    if (error.status === 401 || error.status === 403)
      return new ModelAuthError(baseURL, error.status, detail, { cause });
    if (error instanceof RateLimitError)
      return new ModelRateLimitError(baseURL, ctx.attempts, detail, { cause });
    return new ModelServerError(baseURL, error.status, describeStatus(error.status, detail, ctx), { cause });
  }
  if (error instanceof SyntaxError) {
    const message = `The model server at ${baseURL} sent a reply that is not valid JSON (${clip(error.message)}). Check that MIME_BASE_URL points at an OpenAI-compatible API (it usually ends in /v1).`;
    return new ModelServerError(baseURL, undefined, message, { cause });
  }
  if (error instanceof OpenAIError) {
    const message = `The model request to ${baseURL} failed: ${clip(redactURLCredentials(redactSecret(error.message, ctx.apiKey)))}`;
    return new ModelServerError(baseURL, undefined, message, { cause });
  }
  return cause;
}

function describeStatus(status: number, detail: string, ctx: ErrorContext): string {
  const { baseURL } = ctx;
  if (status >= 500) {
    return `The model server at ${baseURL} failed with HTTP ${status} on ${ctx.attempts} attempt${ctx.attempts === 1 ? '' : 's'}: ${detail}. Check the server's log; if it is overloaded, raise MIME_MODEL_MAX_RETRIES.`;
  }
  if (status === 404) {
    return `The model server at ${baseURL} answered HTTP 404: ${detail}. Check MIME_MODEL ("${ctx.model}" must be a model the server serves) and MIME_BASE_URL (it usually ends in /v1).`;
  }
  return `The model server at ${baseURL} rejected the request (HTTP ${status}): ${detail}. If the server lacks tool calling or JSON schemas, try MIME_TOOL_MODE=text or MIME_STRUCTURED_MODE=tool.`;
}

/** The server's own error message (the SDK prefixes its message with the status). */
function describeApiError(error: APIError, apiKey: Secret | null): string {
  const body = error.error as { message?: unknown } | undefined;
  const text = typeof body?.message === 'string' ? body.message : error.message.replace(/^\d{3} /, '');
  return clip(redactSecret(text, apiKey));
}

/** `ECONNREFUSED`, `ENOTFOUND` and the like, from the error's cause chain. */
function connectionReason(error: APIConnectionError): string {
  let current: unknown = error.cause;
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    const code = (current as NodeJS.ErrnoException).code;
    if (code === 'ECONNREFUSED') return 'connection refused: nothing listens there';
    if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'unknown host';
    if (code) return code;
    current = current.cause;
  }
  return clip(error.message);
}

function clip(text: string): string {
  return text.length > MAX_DETAIL ? `${text.slice(0, MAX_DETAIL)}...` : text;
}
