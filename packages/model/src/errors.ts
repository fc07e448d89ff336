import { MimeError, type Problem } from '@mime-desktop/schema';

/** Where to set the model settings, named in the messages below. */
const SET_BASE_URL = 'MIME_BASE_URL (or "baseURL" in the config file)';
const SET_API_KEY = 'MIME_API_KEY (or OPENAI_API_KEY, or "apiKey" in the config file)';

/** A model setting that is missing (`MIME_MODEL_NOT_CONFIGURED`) or has a bad value (`MIME_MODEL_CONFIG_INVALID`). */
export class ModelConfigError extends MimeError {
  constructor(code: 'MIME_MODEL_NOT_CONFIGURED' | 'MIME_MODEL_CONFIG_INVALID', message: string) {
    super(code, message, { exit: 'usage' });
  }
}

/** The server refused the credentials (HTTP 401 or 403). */
export class ModelAuthError extends MimeError {
  readonly baseURL: string;
  readonly status: number;

  constructor(baseURL: string, status: number, detail: string, options?: { cause?: unknown }) {
    super(
      'MIME_MODEL_AUTH',
      `The model server at ${baseURL} refused the request (HTTP ${status}: ${detail}). Check ${SET_API_KEY}: the key must be valid for this server and allowed to use the model.`,
      { ...options, exit: 'usage' },
    );
    this.baseURL = baseURL;
    this.status = status;
  }
}

/** No connection to the server: refused, unknown host, reset. */
export class ModelUnreachableError extends MimeError {
  readonly baseURL: string;

  constructor(baseURL: string, reason: string, options?: { cause?: unknown }) {
    super(
      'MIME_MODEL_UNREACHABLE',
      `Cannot reach the model server at ${baseURL} (${reason}). Start the server (vLLM, Ollama, LM Studio, ...) or fix ${SET_BASE_URL}; run \`mime doctor\` to test the connection.`,
      options,
    );
    this.baseURL = baseURL;
  }
}

/** The server did not answer in time, on every attempt. */
export class ModelTimeoutError extends MimeError {
  readonly baseURL: string;
  readonly timeoutMs: number;

  constructor(baseURL: string, timeoutMs: number, attempts: number, options?: { cause?: unknown }) {
    super(
      'MIME_MODEL_TIMEOUT',
      `The model server at ${baseURL} did not answer within ${timeoutMs} ms (${plural(attempts, 'attempt')}). Raise MIME_MODEL_TIMEOUT_MS (or "timeoutMs" in the config file) for slow local models, or check the server's load.`,
      options,
    );
    this.baseURL = baseURL;
    this.timeoutMs = timeoutMs;
  }
}

/** HTTP 429 on every attempt. */
export class ModelRateLimitError extends MimeError {
  readonly baseURL: string;

  constructor(baseURL: string, attempts: number, detail: string, options?: { cause?: unknown }) {
    super(
      'MIME_MODEL_RATE_LIMITED',
      `The model server at ${baseURL} is rate limiting (HTTP 429 on ${plural(attempts, 'attempt')}: ${detail}). Wait and run again, or raise MIME_MODEL_MAX_RETRIES (or "maxRetries" in the config file).`,
      options,
    );
    this.baseURL = baseURL;
  }
}

/** A 5xx on every attempt, any other rejected request, or a reply that is not a chat completion. */
export class ModelServerError extends MimeError {
  readonly baseURL: string;
  /** HTTP status, or `undefined` when the reply itself was unusable. */
  readonly status: number | undefined;

  constructor(baseURL: string, status: number | undefined, message: string, options?: { cause?: unknown }) {
    super('MIME_MODEL_SERVER', message, options);
    this.baseURL = baseURL;
    this.status = status;
  }
}

/** The model kept answering with output that does not fit, after every repair attempt. */
export class ModelOutputError extends MimeError {
  /** What the model last sent, as text. */
  readonly raw: string;
  /** Why it was rejected, as `path: message` problems. */
  readonly problems: readonly Problem[];
  /** Replies the model gave, all unusable (the first and each repair). */
  readonly attempts: number;

  constructor(what: string, attempts: number, raw: string, problems: readonly Problem[]) {
    const lines = problems.map((p) => `  ${p.path || '(output)'}: ${p.message}`).join('\n');
    super(
      'MIME_MODEL_OUTPUT',
      `The model gave unusable output for ${what} on ${plural(attempts, 'attempt')}:\n${lines}\nTry a stronger model (MIME_MODEL), or MIME_TOOL_MODE=text / MIME_STRUCTURED_MODE=tool if the server handles tool calls or JSON schemas badly.`,
    );
    this.raw = raw;
    this.problems = problems;
    this.attempts = attempts;
  }
}

/** The caller's `signal` aborted the call. */
export class ModelAbortedError extends MimeError {
  constructor(options?: { cause?: unknown }) {
    super('MIME_ABORTED', 'The model call was aborted.', options);
  }
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}
