import { performance } from 'node:perf_hooks';
import { inspect } from 'node:util';
import { APIError, NotFoundError, OpenAI } from 'openai';
import type {
  ChatCompletion,
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionMessage,
  ChatCompletionMessageParam,
} from 'openai/resources/chat/completions';
import type { z } from 'zod';
import { boundedFetch } from './bounded-fetch.ts';
import type { ModelConfig } from './config.ts';
import { ModelConfigError, ModelOutputError, ModelServerError } from './errors.ts';
import type { CallKind, ModelEventListener } from './events.ts';
import { toModelError } from './map-error.ts';
import type { ReplyVerdict } from './output.ts';
import { redactSecret, redactURLCredentials } from './secret.ts';
import {
  buildStructuredBody,
  judgeStructuredReply,
  type StructuredTarget,
  type StructuredWireMode,
} from './structured.ts';
import { addToolDescription, judgeTextToolReply, judgeUiTarsReply, withSystemText } from './text-protocol.ts';
import { buildToolBody, type CheckedToolCall, judgeToolReply, listNames, type ToolSpec } from './tools.ts';
import type { UiTarsDialect } from './ui-tars.ts';
import { type CallUsage, UsageMeter } from './usage.ts';

/** Sent as the API key to local servers that need none. */
const NO_KEY_PLACEHOLDER = 'none';

export interface ModelClientOptions {
  /** Receives typed events (calls, retries, repairs, mode changes). Default: none. */
  onEvent?: ModelEventListener;
  /** Meter to add usage to; pass one to several clients to total a run. Default: a new meter. */
  meter?: UsageMeter;
  /** `fetch` under the SDK (a proxy agent, a test double). Default: the global `fetch`. */
  fetch?: typeof fetch;
}

interface CallOptions {
  /** The conversation so far (system, user with text and `imagePart`s, ...); not modified. */
  messages: ChatCompletionMessageParam[];
  /** Aborts the call (an error with code `MIME_ABORTED`), even while the SDK waits to retry. Default: none. */
  signal?: AbortSignal;
  /** How many times unusable output is sent back to the model with the problems. Default 2. */
  repairAttempts?: number;
}

export interface StructuredOptions<T> extends CallOptions {
  /** Names the output for the server and in messages: letters, digits, `_`, `-`. */
  name: string;
  /** The output's shape; the JSON Schema sent is built from it and the reply is validated with it. */
  schema: z.ZodType<T>;
}

export interface ToolCallOptions<T extends readonly ToolSpec[]> extends CallOptions {
  /** The tools offered; the model must call exactly one. */
  tools: T;
  /**
   * The tools in UI-TARS's grammar, for `toolMode: 'ui-tars'`; a caller without one cannot be driven
   * by a UI-TARS model (the call throws `MIME_MODEL_NOT_CONFIGURED`).
   */
  uiTars?: UiTarsDialect;
}

/** What `structured` returns. */
export interface StructuredResult<T> {
  value: T;
  usage: CallUsage;
}

/** What `toolCall` returns: the chosen tool, its validated arguments, and the model's raw output. */
export type ToolCallResult<T extends readonly ToolSpec[]> = CheckedToolCall<T> & {
  /** The reply as the model wrote it: JSON of `{content, tool_calls}` (native) or the text (text mode). */
  raw: string;
  usage: CallUsage;
};

export interface PingOptions {
  /** Aborts the ping (an error with code `MIME_ABORTED`). Default: none. */
  signal?: AbortSignal;
  /** Timeout of the one attempt, in ms. Default 10000 (or the configured timeout, if shorter). */
  timeoutMs?: number;
}

/** What `ping` resolves to; failures throw the typed errors instead. */
export interface PingResult {
  ok: true;
  latencyMs: number;
  /** Model ids the server lists, when it implements `GET /models`. */
  models?: string[];
}

/** Per-call bookkeeping. */
interface CallTrace {
  readonly callId: number;
  requests: number;
  /** HTTP attempts of the current request, to number retries. */
  attempts: number;
  /** What ended the previous attempt, for the retry event. */
  lastOutcome: string;
  repairs: number;
  inputTokens: number;
  outputTokens: number;
}

type Send = (body: ChatCompletionCreateParamsNonStreaming) => Promise<ChatCompletionMessage>;

/**
 * The OpenAI-compatible client that reflect and replay use. HTTP retries (429, 5xx, timeouts,
 * connection errors; `retry-after` honoured) are the SDK's own; this class adds structured output,
 * tool calls, repair of unusable output, typed errors without the API key, and usage accounting.
 */
export class ModelClient {
  readonly config: ModelConfig;
  readonly meter: UsageMeter;
  readonly #sdk: OpenAI;
  readonly #fetch: typeof fetch;
  readonly #onEvent: ModelEventListener;
  /** `json_schema` until a server in `auto` mode rejects it. */
  #structuredMode: StructuredWireMode;
  #lastCallId = 0;

  constructor(config: ModelConfig, options: ModelClientOptions = {}) {
    this.config = config;
    this.meter = options.meter ?? new UsageMeter();
    this.#onEvent = options.onEvent ?? (() => {});
    this.#fetch = boundedFetch(options.fetch ?? globalThis.fetch, {
      deadlineMs: config.timeoutMs,
      baseURL: config.baseURL,
    });
    this.#structuredMode = config.structuredMode === 'tool' ? 'tool' : 'json_schema';
    this.#sdk = new OpenAI({
      baseURL: config.baseURL,
      apiKey: config.apiKey?.reveal() ?? NO_KEY_PLACEHOLDER,
      timeout: config.timeoutMs,
      maxRetries: config.maxRetries,
      fetch: this.#fetch,
      logLevel: 'off',
    });
  }

  /** Asks for JSON matching `schema`; repairs unusable output, then throws {@link ModelOutputError}. */
  async structured<T>(options: StructuredOptions<T>): Promise<StructuredResult<T>> {
    const target = { name: options.name, schema: options.schema };
    const { value, usage } = await this.#run('structured', options.name, options, (messages, send, trace) =>
      this.#askStructured(target, messages, send, trace),
    );
    return { value, usage };
  }

  /**
   * Asks the model to call exactly one of `tools` (natively, or by the `<tool_call>` text protocol when
   * `toolMode` is `text`); repairs zero, several, unknown or invalid calls, then throws
   * {@link ModelOutputError}.
   */
  async toolCall<const T extends readonly ToolSpec[]>(
    options: ToolCallOptions<T>,
  ): Promise<ToolCallResult<T>> {
    const { tools } = options;
    const { value, raw, usage } = await this.#run(
      'tool-call',
      listNames(tools),
      options,
      async (messages, send) => {
        switch (this.config.toolMode) {
          case 'text':
            return judgeTextToolReply(
              tools,
              await send({ model: this.config.model, messages: addToolDescription(tools, messages) }),
            );
          case 'ui-tars': {
            const dialect = uiTarsDialectOf(options);
            const body = { model: this.config.model, messages: withSystemText(dialect.prompt, messages) };
            return judgeUiTarsReply(tools, dialect, await send(body));
          }
          default:
            return judgeToolReply(tools, await send(buildToolBody(this.config.model, tools, messages)));
        }
      },
    );
    return { ...value, raw, usage };
  }

  /**
   * Checks the server for `mime doctor` with one quick `GET /models` (no retries, not metered). A server
   * without that route (404) is reachable all the same; any other failure throws the typed error.
   */
  async ping(options: PingOptions = {}): Promise<PingResult> {
    const { signal } = options;
    const timeoutMs = options.timeoutMs ?? Math.min(10_000, this.config.timeoutMs);
    const started = performance.now();
    const latency = () => Math.round(performance.now() - started);
    try {
      const page = await linkedCall(signal, (own) =>
        this.#sdk.models.list({ timeout: timeoutMs, maxRetries: 0, signal: own }),
      );
      return { ok: true, latencyMs: latency(), models: page.data.map((m) => m.id) };
    } catch (error) {
      if (error instanceof NotFoundError) return { ok: true, latencyMs: latency() };
      throw this.#toModelError(error, { timeoutMs, attempts: 1, signal });
    }
  }

  /** Never shows the SDK client (it holds the key in clear). */
  [inspect.custom](): string {
    return `ModelClient { model: ${this.config.model}, baseURL: ${redactURLCredentials(this.config.baseURL)} }`;
  }

  async #run<V>(
    kind: CallKind,
    name: string,
    options: CallOptions,
    attempt: (
      messages: ChatCompletionMessageParam[],
      send: Send,
      trace: CallTrace,
    ) => Promise<ReplyVerdict<V>>,
  ): Promise<{ value: V; raw: string; usage: CallUsage }> {
    const { signal } = options;
    const repairAttempts = options.repairAttempts ?? 2;
    const trace: CallTrace = {
      callId: ++this.#lastCallId,
      requests: 0,
      attempts: 0,
      lastOutcome: '',
      repairs: 0,
      inputTokens: 0,
      outputTokens: 0,
    };
    const started = performance.now();
    const usage = (): CallUsage => ({
      requests: trace.requests,
      repairs: trace.repairs,
      inputTokens: trace.inputTokens,
      outputTokens: trace.outputTokens,
      durationMs: Math.round(performance.now() - started),
    });
    const base = { callId: trace.callId, kind, name };
    this.#onEvent({ ...base, type: 'call-start', model: this.config.model });
    const sdk = this.#sdk.withOptions({ fetch: this.#countingFetch(trace) });
    const send: Send = (body) => this.#send(sdk, body, trace, signal);
    const messages = [...options.messages];
    try {
      for (let round = 0; ; round++) {
        signal?.throwIfAborted();
        const verdict = await attempt(messages, send, trace);
        if (verdict.ok) {
          const done = usage();
          this.meter.recordCall(done);
          this.#onEvent({ ...base, type: 'call-end', errorCode: null, usage: done });
          return { value: verdict.value, raw: verdict.raw, usage: done };
        }
        if (round >= repairAttempts)
          throw new ModelOutputError(describeCall(kind, name), round + 1, verdict.raw, verdict.problems);
        trace.repairs += 1;
        this.#onEvent({ type: 'repair', callId: trace.callId, round: round + 1, problems: verdict.problems });
        messages.push(...verdict.repair);
      }
    } catch (error) {
      const mapped = this.#toModelError(error, {
        timeoutMs: this.config.timeoutMs,
        attempts: trace.attempts,
        signal,
      });
      const done = usage();
      this.meter.recordCall(done);
      this.#onEvent({ ...base, type: 'call-end', errorCode: errorCode(mapped), usage: done });
      throw mapped;
    }
  }

  /** One structured request; in `auto` mode a rejected json_schema switches this client to tool mode. */
  async #askStructured<T>(
    target: StructuredTarget<T>,
    messages: ChatCompletionMessageParam[],
    send: Send,
    trace: CallTrace,
  ): Promise<ReplyVerdict<T>> {
    const ask = async (wire: StructuredWireMode) =>
      judgeStructuredReply(
        wire,
        target,
        await send(buildStructuredBody(wire, this.config.model, target, messages)),
      );
    const mode = this.#structuredMode;
    try {
      return await ask(mode);
    } catch (error) {
      if (mode !== 'json_schema' || this.config.structuredMode !== 'auto' || !isRejection(error)) throw error;
      this.#structuredMode = 'tool';
      const reason = `HTTP ${error.status}: ${error.message.replace(/^\d{3} /, '')}`;
      this.#onEvent({
        type: 'mode-fallback',
        callId: trace.callId,
        from: 'json_schema',
        to: 'tool',
        reason: redactSecret(reason, this.config.apiKey),
      });
      return ask('tool');
    }
  }

  async #send(
    sdk: OpenAI,
    body: ChatCompletionCreateParamsNonStreaming,
    trace: CallTrace,
    signal: AbortSignal | undefined,
  ): Promise<ChatCompletionMessage> {
    trace.attempts = 0;
    const completion: ChatCompletion | string = await linkedCall(signal, (own) =>
      sdk.chat.completions.create(body, { signal: own }),
    );
    const message =
      typeof completion === 'object' && completion ? completion.choices?.[0]?.message : undefined;
    if (!message) {
      throw new ModelServerError(
        this.config.baseURL,
        undefined,
        `The model server at ${redactURLCredentials(this.config.baseURL)} sent a reply that is not a chat completion (no choices[0].message). Check that MIME_BASE_URL points at an OpenAI-compatible API (it usually ends in /v1).`,
      );
    }
    trace.inputTokens += completion.usage?.prompt_tokens ?? 0;
    trace.outputTokens += completion.usage?.completion_tokens ?? 0;
    return message;
  }

  /** Wraps `fetch` to count HTTP attempts (SDK retries included) and report retries. */
  #countingFetch(trace: CallTrace): typeof fetch {
    return async (input, init) => {
      trace.requests += 1;
      trace.attempts += 1;
      if (trace.attempts > 1) {
        this.#onEvent({
          type: 'retry',
          callId: trace.callId,
          attempt: trace.attempts,
          reason: trace.lastOutcome,
        });
      }
      try {
        const response = await this.#fetch(input, init);
        trace.lastOutcome = `HTTP ${response.status}`;
        return response;
      } catch (error) {
        trace.lastOutcome = init?.signal?.aborted
          ? `no answer within ${this.config.timeoutMs} ms`
          : 'connection failed';
        throw error;
      }
    };
  }

  #toModelError(
    error: unknown,
    details: { timeoutMs: number; attempts: number; signal: AbortSignal | undefined },
  ): unknown {
    return toModelError(error, {
      ...details,
      baseURL: this.config.baseURL,
      model: this.config.model,
      apiKey: this.config.apiKey,
    });
  }
}

/** A 400/422 to a json_schema request: the server does not take `response_format`. */
function isRejection(error: unknown): error is APIError & { status: number } {
  return error instanceof APIError && (error.status === 400 || error.status === 422);
}

function describeCall(kind: CallKind, name: string): string {
  return kind === 'structured' ? `"${name}"` : `a tool call (tools: ${name})`;
}

function errorCode(error: unknown): string {
  return typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : 'UNKNOWN';
}

/**
 * Runs one SDK call on a signal of its own, linked to `signal`: the SDK adds a listener to the signal
 * it is given at every attempt, so a long-lived run signal would pile them up (and Node would warn).
 * Rejects as soon as `signal` aborts: the SDK checks its signal only when it sends, not while it
 * sleeps before a retry (which `retry-after` can make long).
 */
function linkedCall<T>(
  signal: AbortSignal | undefined,
  call: (own: AbortSignal | undefined) => Promise<T>,
): Promise<T> {
  if (!signal) return call(undefined);
  const own = new AbortController();
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      own.abort(signal.reason);
      reject(signal.reason);
    };
    if (signal.aborted) {
      onAbort();
      return;
    }
    signal.addEventListener('abort', onAbort, { once: true });
    call(own.signal)
      .then(resolve, reject)
      .finally(() => signal.removeEventListener('abort', onAbort));
  });
}

function uiTarsDialectOf(options: { uiTars?: UiTarsDialect }): UiTarsDialect {
  if (options.uiTars) return options.uiTars;
  throw new ModelConfigError(
    'MIME_MODEL_NOT_CONFIGURED',
    'tool mode ui-tars: this call offers no UI-TARS grammar (only the agent loop of replay has one); use tool mode native or text',
  );
}
