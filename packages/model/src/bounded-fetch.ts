/**
 * Every model request bounded in time and size, the body included: the SDK's timeout ends with the
 * response's headers, so an endless stream or a multi-gigabyte body would otherwise run (and fill
 * memory) without end. The body is cut at `maxBytes` and at the request's deadline, each with an error
 * that says which.
 */

import { ModelServerError, ModelTimeoutError } from './errors.ts';
import { redactURLCredentials } from './secret.ts';

/** The largest reply body mime reads from a model server (a reply with a long plan is a few KB). */
export const MAX_MODEL_REPLY_BYTES = 32 * 1024 * 1024;

export interface BoundedFetchOptions {
  /** The whole request, body included, must end within this, ms. */
  deadlineMs: number;
  maxBytes?: number;
  baseURL: string;
}

export function boundedFetch(base: typeof fetch, options: BoundedFetchOptions): typeof fetch {
  const { deadlineMs, maxBytes = MAX_MODEL_REPLY_BYTES } = options;
  const baseURL = redactURLCredentials(options.baseURL);
  return async (input, init) => {
    const started = performance.now();
    const response = await base(input, init);
    if (!response.body) {
      return new Response(null, {
        status: response.status,
        statusText: response.statusText,
        headers: cappedRetryAfter(response.headers),
      });
    }
    let seen = 0;
    let timer: NodeJS.Timeout | undefined;
    const body = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        start(controller) {
          const left = Math.max(0, deadlineMs - (performance.now() - started));
          timer = setTimeout(() => controller.error(new ModelTimeoutError(baseURL, deadlineMs, 1)), left);
          timer.unref();
        },
        transform(chunk, controller) {
          seen += chunk.byteLength;
          if (seen <= maxBytes) {
            controller.enqueue(chunk);
            return;
          }
          clearTimeout(timer);
          controller.error(
            new ModelServerError(
              baseURL,
              response.status,
              `The model server at ${baseURL} sent a reply larger than ${maxBytes} bytes; mime stopped reading it. Check that MIME_BASE_URL points at an OpenAI-compatible API.`,
            ),
          );
        },
        flush() {
          clearTimeout(timer);
        },
      }),
    );
    return new Response(body, {
      status: response.status,
      statusText: response.statusText,
      headers: cappedRetryAfter(response.headers),
    });
  };
}

/** The longest wait before a retry a server may ask for (the SDK waits whatever `Retry-After` says). */
export const MAX_RETRY_AFTER_S = 60;

/** The headers with `Retry-After` (seconds or a date) and `retry-after-ms` at most {@link MAX_RETRY_AFTER_S}. */
function cappedRetryAfter(headers: Headers): Headers {
  const capped = new Headers(headers);
  const ms = Number(capped.get('retry-after-ms'));
  if (Number.isFinite(ms) && ms > MAX_RETRY_AFTER_S * 1000) {
    capped.set('retry-after-ms', String(MAX_RETRY_AFTER_S * 1000));
  }
  const after = capped.get('retry-after');
  if (after !== null) {
    const seconds = /^\d+(\.\d+)?$/.test(after.trim())
      ? Number(after)
      : (Date.parse(after) - Date.now()) / 1000;
    if (!Number.isFinite(seconds) || seconds > MAX_RETRY_AFTER_S)
      capped.set('retry-after', String(MAX_RETRY_AFTER_S));
  }
  return capped;
}
