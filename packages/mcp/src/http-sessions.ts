/**
 * The sessions of `mime mcp --http` (Streamable HTTP, 2025-11-25): each with its server, its transport
 * and its event store (resumption with `Last-Event-ID`). A session with no request open for `idleMs`
 * ends as a DELETE would end it, and its memory goes with it; a request for it then gets 404, which
 * tells a client to initialize again. A cancelled request's stream is closed and cannot be resumed.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  CancelledNotificationSchema,
  isJSONRPCRequest,
  type JSONRPCMessage,
  type RequestId,
} from '@modelcontextprotocol/sdk/types.js';
import { BoundedEventStore } from './event-store.ts';
import type { MimeMcpServer } from './server.ts';

/** Default of {@link SessionOptions.idleMs}: 30 minutes. */
export const DEFAULT_SESSION_IDLE_MS = 30 * 60 * 1000;

export interface SessionOptions {
  /** A server for a new session. */
  createServer: () => MimeMcpServer;
  /** A session with no request open this long ends, ms. Default 30 minutes. */
  idleMs?: number;
  /** Host headers the transport accepts (DNS rebinding). */
  allowedHosts: () => string[];
  /** Origin headers the transport accepts. */
  allowedOrigins: () => string[];
}

interface Session {
  transport: StreamableHTTPServerTransport;
  events: BoundedEventStore;
  /** HTTP requests of the session still open (a replay's stream, a GET stream). */
  open: number;
  /** When the last of them ended or the last one started, ms since the epoch. */
  lastSeen: number;
}

/** The JSON-RPC requests (by id) of a POST body, one message or a batch. */
function requestIdsOf(body: unknown): RequestId[] {
  const messages = (Array.isArray(body) ? body : [body]) as JSONRPCMessage[];
  return messages.filter((m) => isJSONRPCRequest(m)).map((m) => m.id);
}

export class HttpSessions {
  readonly #options: SessionOptions;
  readonly #idleMs: number;
  readonly #sessions = new Map<string, Session>();
  readonly #sweeper: NodeJS.Timeout;

  constructor(options: SessionOptions) {
    this.#options = options;
    this.#idleMs = options.idleMs ?? DEFAULT_SESSION_IDLE_MS;
    this.#sweeper = setInterval(() => this.#sweep(), Math.min(Math.max(this.#idleMs / 4, 50), 60_000));
    this.#sweeper.unref();
  }

  /** How many sessions are open. */
  get size(): number {
    return this.#sessions.size;
  }

  has(id: string): boolean {
    return this.#sessions.has(id);
  }

  /** Hands an HTTP request to its session's transport (`body` parsed for a POST). */
  async handle(id: string, req: IncomingMessage, res: ServerResponse, body?: unknown): Promise<void> {
    const session = this.#sessions.get(id);
    if (!session) throw new Error(`no session ${id}`);
    await this.#serve(session, req, res, body);
  }

  /** Starts a session for an initialize request and answers it. */
  async start(req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
    const mime = this.#options.createServer();
    const events = new BoundedEventStore();
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      enableDnsRebindingProtection: true,
      allowedHosts: this.#options.allowedHosts(),
      allowedOrigins: this.#options.allowedOrigins(),
      eventStore: events,
      // A client whose stream dropped asks again after a second.
      retryInterval: 1000,
      onsessioninitialized: (id) => {
        this.#sessions.set(id, { transport, events, open: 0, lastSeen: Date.now() });
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) this.#sessions.delete(transport.sessionId);
      void mime.close();
    };
    await mime.server.connect(transport);
    // A cancelled request gets no response (the spec), so its stream would stay open: close it.
    const dispatch = transport.onmessage;
    transport.onmessage = (message, extra) => {
      dispatch?.(message, extra);
      const cancelled = CancelledNotificationSchema.safeParse(message);
      const request = cancelled.success ? cancelled.data.params.requestId : undefined;
      if (request === undefined) return;
      const stream = events.streamOf(request);
      transport.closeSSEStream(request);
      if (stream) events.end(stream);
    };
    await events.within(requestIdsOf(body), () => transport.handleRequest(req, res, body));
  }

  /** Ends every session. */
  async closeAll(): Promise<void> {
    clearInterval(this.#sweeper);
    await Promise.all([...this.#sessions.values()].map(({ transport }) => transport.close()));
  }

  async #serve(session: Session, req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
    session.open += 1;
    session.lastSeen = Date.now();
    res.once('close', () => {
      session.open -= 1;
      session.lastSeen = Date.now();
    });
    await session.events.within(requestIdsOf(body), () => session.transport.handleRequest(req, res, body));
  }

  /** Ends the sessions idle longer than `idleMs`. */
  #sweep(): void {
    const now = Date.now();
    for (const session of this.#sessions.values()) {
      if (session.open === 0 && now - session.lastSeen >= this.#idleMs) void session.transport.close();
    }
  }
}
