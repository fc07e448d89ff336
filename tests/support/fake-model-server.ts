/**
 * A scriptable OpenAI-compatible server for tests, on 127.0.0.1 with an ephemeral port (node:http only).
 *
 * It answers `POST /v1/chat/completions` (non-streaming) and `GET /v1/models`. Each chat request takes
 * the next queued reply ({@link FakeModelServer.enqueue}); when the queue is empty it asks the handler
 * ({@link FakeModelServer.setHandler}); with neither it answers 500 saying the test did not script a
 * reply (with `x-should-retry: false`, so the SDK fails at once instead of backing off).
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Token counts to report; missing ones are estimated from the text sizes (about 4 characters a token). */
export interface FakeUsage {
  promptTokens?: number;
  completionTokens?: number;
}

interface ReplyTiming {
  /** Wait this long before answering (to provoke client timeouts). Default 0. */
  delayMs?: number;
}

/** One scripted answer to a chat completion request. */
export type FakeReply =
  /** Assistant text content. */
  | ({ type: 'text'; content: string; usage?: FakeUsage } & ReplyTiming)
  /** Assistant content that is `JSON.stringify(value)` (right or wrong shape: the server does not care). */
  | ({ type: 'json'; value: unknown; usage?: FakeUsage } & ReplyTiming)
  /** One or several tool calls; `arguments` that are not strings are JSON-encoded. */
  | ({
      type: 'tool-calls';
      calls: ReadonlyArray<{ name: string; arguments: unknown }>;
      content?: string;
      usage?: FakeUsage;
    } & ReplyTiming)
  /**
   * The assistant message exactly as given, for replies as real servers send them: tool calls without
   * `type`, arguments as an object, a call left in `content`.
   */
  | ({
      type: 'message';
      message: { content: string | null; tool_calls?: unknown[] };
      usage?: FakeUsage;
    } & ReplyTiming)
  /** An HTTP error with an OpenAI-style error body; `headers` e.g. `{ 'retry-after': '0.1' }`. */
  | ({
      type: 'error';
      status: number;
      message?: string;
      headers?: Readonly<Record<string, string>>;
    } & ReplyTiming)
  /** Status 200 with `content-type: application/json` and a body that is not JSON. Default body `{"choices": [`. */
  | ({ type: 'malformed'; body?: string } & ReplyTiming);

/** A request as the server received it. */
export interface FakeRequest {
  method: string;
  /** Path without the query, e.g. `/v1/chat/completions`. */
  path: string;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body, or `undefined` for an empty or non-JSON body. */
  body: FakeChatBody | undefined;
}

/** The parts of a chat completion request body tests look at; everything else is kept as sent. */
export interface FakeChatBody {
  model?: string;
  messages?: FakeMessage[];
  response_format?: { type: string; json_schema?: { name: string; strict?: boolean; schema: unknown } };
  tools?: Array<{ type: string; function: { name: string; description?: string; parameters?: unknown } }>;
  tool_choice?: unknown;
  [key: string]: unknown;
}

/** A message as sent by the client: content is a string or an array of parts. */
export interface FakeMessage {
  role: string;
  content?:
    | string
    | Array<{ type: string; text?: string; image_url?: { url: string; detail?: string } }>
    | null;
  tool_calls?: Array<{ id: string; type: string; function: { name: string; arguments: string } }>;
  tool_call_id?: string;
}

/** Answers a chat request that found the queue empty. */
export type FakeHandler = (request: FakeRequest) => FakeReply | Promise<FakeReply>;

export interface FakeModelServerOptions {
  /** When false, a request with `response_format` of type `json_schema` gets a 400, like servers without it. Default true. */
  supportsResponseFormat?: boolean;
  /** When false, a request with `tools` gets a 400. Default true. */
  supportsTools?: boolean;
  /** When set, requests must send `Authorization: Bearer <apiKey>`; others get a 401 whose body echoes the key sent. Default: no check. */
  apiKey?: string;
  /** Model ids listed by `GET /v1/models`. Default `['fake-model']`. */
  models?: readonly string[];
  /** Wait this long before answering `GET /v1/models`, ms. Default 0. */
  modelsDelayMs?: number;
}

export interface FakeModelServer {
  /** Base URL to give the client, e.g. `http://127.0.0.1:41234/v1`. */
  url: string;
  /** Every request received, in order (chat and models, including rejected ones). */
  requests: FakeRequest[];
  /** Only the chat completion requests, in order. */
  chatRequests(): FakeRequest[];
  /** Queues replies; each chat request takes the first one. */
  enqueue(...replies: FakeReply[]): void;
  /** Sets the function that answers chat requests once the queue is empty (`undefined` removes it). */
  setHandler(handler: FakeHandler | undefined): void;
  /** Back as started for the next test: no queued reply, no handler, no request seen. */
  reset(): void;
  /** Closes the server and every open connection; pending delayed replies are dropped. */
  close(): Promise<void>;
}

const CHAT_PATH = '/v1/chat/completions';
const MODELS_PATH = '/v1/models';

/** Starts a fake OpenAI-compatible server on 127.0.0.1 with an ephemeral port. */
export async function startFakeModelServer(options: FakeModelServerOptions = {}): Promise<FakeModelServer> {
  const queue: FakeReply[] = [];
  const requests: FakeRequest[] = [];
  let handler: FakeHandler | undefined;
  let completionCount = 0;

  const server = createServer((req, res) => {
    void answer(req, res).catch((error: unknown) => {
      sendJson(res, 500, errorBody(`fake model server crashed: ${String(error)}`, 'server_error'), {
        'x-should-retry': 'false',
      });
    });
  });

  async function answer(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const request: FakeRequest = {
      method: req.method ?? 'GET',
      path: (req.url ?? '/').split('?')[0] ?? '/',
      headers: req.headers,
      body: parseBody(await readBody(req)),
    };
    requests.push(request);
    const early = answerWithoutReply(request, options);
    if (early) {
      if (request.path === MODELS_PATH) await waitUnlessClosed(req, options.modelsDelayMs ?? 0);
      if (res.destroyed) return;
      sendJson(res, early.status, early.body, early.headers);
      return;
    }
    const reply = queue.shift() ?? (handler ? await handler(request) : undefined);
    if (!reply) {
      const index = requests.filter((r) => r.path === CHAT_PATH).length;
      const message = `fake model server: the test did not script a reply for chat request #${index} (enqueue one or set a handler)`;
      sendJson(res, 500, errorBody(message, 'server_error'), { 'x-should-retry': 'false' });
      return;
    }
    completionCount += 1;
    await waitUnlessClosed(req, reply.delayMs ?? 0);
    if (res.destroyed) return;
    sendReply(res, reply, request.body, completionCount);
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    chatRequests: () => requests.filter((r) => r.path === CHAT_PATH),
    enqueue: (...replies) => {
      queue.push(...replies);
    },
    setHandler: (next) => {
      handler = next;
    },
    reset: () => {
      queue.length = 0;
      requests.length = 0;
      handler = undefined;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}

interface EarlyAnswer {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

/** The answer to a request that takes no scripted reply: auth failures, the models list, unknown routes, unsupported features. */
function answerWithoutReply(request: FakeRequest, options: FakeModelServerOptions): EarlyAnswer | undefined {
  if (options.apiKey !== undefined) {
    const sent = /^Bearer (.*)$/.exec(request.headers.authorization ?? '')?.[1] ?? '';
    if (sent !== options.apiKey) {
      const message = `Incorrect API key provided: ${sent}. You can find your API key in your account.`;
      return { status: 401, body: errorBody(message, 'invalid_request_error', 'invalid_api_key') };
    }
  }
  if (request.method === 'GET' && request.path === MODELS_PATH) {
    const models = options.models ?? ['fake-model'];
    const data = models.map((id) => ({ id, object: 'model', created: 0, owned_by: 'fake' }));
    return { status: 200, body: { object: 'list', data } };
  }
  if (request.method !== 'POST' || request.path !== CHAT_PATH) {
    return {
      status: 404,
      body: errorBody(`fake model server: no route for ${request.method} ${request.path}`, 'not_found'),
    };
  }
  const rejection = findUnsupportedFeature(request.body, options);
  return rejection ? { status: 400, body: errorBody(rejection, 'invalid_request_error') } : undefined;
}

function findUnsupportedFeature(
  body: FakeChatBody | undefined,
  options: FakeModelServerOptions,
): string | undefined {
  if (options.supportsResponseFormat === false && body?.response_format?.type === 'json_schema') {
    return "fake model server: 'response_format' of type 'json_schema' is not supported";
  }
  if (options.supportsTools === false && body?.tools !== undefined) {
    return "fake model server: 'tools' are not supported by this model";
  }
  return undefined;
}

function sendReply(res: ServerResponse, reply: FakeReply, body: FakeChatBody | undefined, n: number): void {
  switch (reply.type) {
    case 'error':
      sendJson(res, reply.status, errorBody(reply.message ?? `fake error ${reply.status}`, 'server_error'), {
        ...reply.headers,
      });
      return;
    case 'malformed':
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(reply.body ?? '{"choices": [');
      return;
    case 'text':
      sendJson(res, 200, completion(body, n, { role: 'assistant', content: reply.content }, reply.usage));
      return;
    case 'json':
      sendJson(
        res,
        200,
        completion(body, n, { role: 'assistant', content: JSON.stringify(reply.value) }, reply.usage),
      );
      return;
    case 'message':
      sendJson(res, 200, completion(body, n, { role: 'assistant', ...reply.message }, reply.usage));
      return;
    case 'tool-calls': {
      const toolCalls = reply.calls.map((call, index) => ({
        id: `call_${n}_${index}`,
        type: 'function',
        function: {
          name: call.name,
          arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments),
        },
      }));
      const message = { role: 'assistant', content: reply.content ?? null, tool_calls: toolCalls };
      sendJson(res, 200, completion(body, n, message, reply.usage));
      return;
    }
  }
}

function completion(
  body: FakeChatBody | undefined,
  n: number,
  message: { role: string; content: string | null; tool_calls?: unknown[] },
  usage: FakeUsage | undefined,
): unknown {
  const promptTokens = usage?.promptTokens ?? estimatePromptTokens(body?.messages ?? []);
  const completionTokens =
    usage?.completionTokens ??
    estimateTokens((message.content ?? '') + JSON.stringify(message.tool_calls ?? ''));
  return {
    id: `chatcmpl-fake-${n}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: body?.model ?? 'fake-model',
    choices: [
      { index: 0, message, finish_reason: message.tool_calls ? 'tool_calls' : 'stop', logprobs: null },
    ],
    usage: {
      prompt_tokens: promptTokens,
      completion_tokens: completionTokens,
      total_tokens: promptTokens + completionTokens,
    },
  };
}

/**
 * Text at about 4 characters a token; each image as a vision model counts it: one token per 28x28
 * patch (Qwen2.5-VL), read from the PNG header, instead of its base64 length.
 */
function estimatePromptTokens(messages: readonly FakeMessage[]): number {
  let tokens = 0;
  for (const message of messages) {
    if (typeof message.content === 'string' || !message.content) {
      tokens +=
        estimateTokens(message.content ?? '') + estimateTokens(JSON.stringify(message.tool_calls ?? ''));
      continue;
    }
    for (const part of message.content) {
      const url = part.image_url?.url;
      if (!url) {
        tokens += estimateTokens(part.text ?? '');
        continue;
      }
      const png = Buffer.from(url.slice(url.indexOf(',') + 1, url.indexOf(',') + 1 + 44), 'base64');
      const known = png.toString('latin1', 1, 4) === 'PNG';
      tokens += known ? Math.ceil(png.readUInt32BE(16) / 28) * Math.ceil(png.readUInt32BE(20) / 28) : 1000;
    }
  }
  return Math.max(1, tokens);
}

function estimateTokens(text: string): number {
  return Math.max(1, Math.ceil(text.length / 4));
}

function errorBody(message: string, type: string, code: string | null = null): unknown {
  return { error: { message, type, param: null, code } };
}

function sendJson(
  res: ServerResponse,
  status: number,
  value: unknown,
  headers: Record<string, string> = {},
): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(value));
}

function parseBody(text: string): FakeChatBody | undefined {
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as FakeChatBody;
  } catch {
    return undefined;
  }
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Waits `ms`, returning early when the client goes away (its timeout fired or it aborted). */
function waitUnlessClosed(req: IncomingMessage, ms: number): Promise<void> {
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      req.socket.off('close', done);
      resolve();
    }
    req.socket.once('close', done);
  });
}
