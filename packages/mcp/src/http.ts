/**
 * `mime mcp --http`: the server over Streamable HTTP on 127.0.0.1 only, at `/mcp`. Every request needs
 * the bearer token; its Host must be this server's and an Origin, when sent, this server's too (a web
 * page cannot reach it through DNS rebinding). Each client session gets a server of its own; the
 * catalog and the desktop lock are shared. A session with no request for `idleMs` (none in flight) is
 * closed and forgotten: a client that never says goodbye does not hold its memory for good.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sameAccessToken } from '@mime-desktop/schema';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { McpOptionError } from './errors.ts';
import type { MimeMcpServer } from './server.ts';

/** The largest request body read, bytes. */
const MAX_BODY = 4 * 1024 * 1024;

export interface HttpOptions {
  /** Port on 127.0.0.1; 0 picks a free one. */
  port: number;
  /** The bearer token every request must carry. */
  token: string;
  /** A server for a new session. */
  createServer: () => MimeMcpServer;
  /** How long a session may go without a request before it is closed, ms. Default 30 minutes. */
  idleMs?: number;
}

/** Sessions are closed after this long without a request, by default. */
export const DEFAULT_SESSION_IDLE_MS = 30 * 60 * 1000;

/** A client's session: its transport and server, when it was last used, and its requests in flight. */
interface Session {
  transport: StreamableHTTPServerTransport;
  mime: MimeMcpServer;
  lastUsed: number;
  inFlight: number;
}

export interface HttpServer {
  url: string;
  close(): Promise<void>;
}

function reply(
  res: ServerResponse,
  status: number,
  message: string,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}

/** A body past this is not read on: the connection is closed (a client streaming without end). */
const MAX_DRAINED = 64 * 1024 * 1024;

/** A request's JSON body, or why it is refused (413 too large, 400 not JSON). */
type Body = { ok: true; value: unknown } | { ok: false; status: 400 | 413; message: string };

/**
 * Reads a request body. One over {@link MAX_BODY} is read to its end without being kept, so the
 * answer (413) reaches the client on a connection that stays open; only a body past
 * {@link MAX_DRAINED} ends the connection.
 */
async function readBody(req: IncomingMessage): Promise<Body> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size <= MAX_BODY) chunks.push(chunk as Buffer);
    else if (size > MAX_DRAINED) {
      req.destroy();
      break;
    }
  }
  if (size > MAX_BODY) {
    return {
      ok: false,
      status: 413,
      message: `the request body is too large (${size} bytes or more; at most ${MAX_BODY} a message): send smaller messages`,
    };
  }
  try {
    return { ok: true, value: JSON.parse(Buffer.concat(chunks).toString('utf8')) };
  } catch (error) {
    return { ok: false, status: 400, message: `the request body is not JSON: ${(error as Error).message}` };
  }
}

/** Starts the HTTP server; resolves once it listens. */
export async function serveHttp(options: HttpOptions): Promise<HttpServer> {
  if (!Number.isInteger(options.port) || options.port < 0 || options.port > 65535) {
    throw new McpOptionError(`--http takes a port from 0 to 65535, got ${options.port}`);
  }
  if (options.token.length < 16) throw new McpOptionError('the token must have at least 16 characters');
  const sessions = new Map<string, Session>();
  const idleMs = options.idleMs ?? DEFAULT_SESSION_IDLE_MS;
  /** Closes the sessions idle for longer than `idleMs` (a request in flight, a replay, keeps one open). */
  const sweep = () => {
    const now = Date.now();
    for (const session of sessions.values()) {
      if (session.inFlight === 0 && now - session.lastUsed > idleMs) void session.transport.close();
    }
  };
  const sweeper = setInterval(sweep, Math.max(250, Math.min(idleMs / 2, 60_000)));
  sweeper.unref();
  /** Runs a request of a known session, counting it as in flight. */
  const within = async (session: Session, request: () => Promise<void>) => {
    session.inFlight += 1;
    session.lastUsed = Date.now();
    try {
      await request();
    } finally {
      session.inFlight -= 1;
      session.lastUsed = Date.now();
    }
  };
  let hosts: string[] = [];
  let origins: string[] = [];

  /** Host, Origin and token: true when the request may go on, else it was answered. */
  const admitted = (req: IncomingMessage, res: ServerResponse): boolean => {
    // DNS rebinding: only this server's own names, whatever the path or token.
    if (!hosts.includes(req.headers.host ?? '')) {
      reply(res, 403, `Invalid Host header: ${req.headers.host}`);
      return false;
    }
    const origin = req.headers.origin;
    if (origin !== undefined && !origins.includes(origin)) {
      reply(res, 403, `Invalid Origin header: ${origin}`);
      return false;
    }
    const auth = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    if (!sameAccessToken(auth, options.token)) {
      reply(res, 401, 'a bearer token is needed: the one `mime mcp --http` printed, or MIME_MCP_TOKEN', {
        'www-authenticate': 'Bearer',
      });
      return false;
    }
    return true;
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    if (!admitted(req, res)) return;
    if (new URL(req.url ?? '/', 'http://localhost').pathname !== '/mcp')
      return reply(res, 404, 'the endpoint is /mcp');
    const sessionId = req.headers['mcp-session-id'];
    const known = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined;
    // An unknown or expired session is 404, so the client starts a new one (the MCP spec's rule).
    if (req.method !== 'POST') {
      if (!known) return reply(res, 404, 'no such session (it may have expired): initialize again');
      return within(known, () => known.transport.handleRequest(req, res));
    }
    // A client that went away mid-body gets no answer.
    const read = await readBody(req).catch(() => null);
    if (read === null) return;
    if (!read.ok) return reply(res, read.status, read.message);
    const body = read.value;
    if (known) return within(known, () => known.transport.handleRequest(req, res, body));
    if (sessionId !== undefined)
      return reply(res, 404, 'no such session (it may have expired): initialize again');
    if (!isInitializeRequest(body)) return reply(res, 400, 'no session: initialize first');
    const mime = options.createServer();
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      enableDnsRebindingProtection: true,
      allowedHosts: hosts,
      allowedOrigins: origins,
      onsessioninitialized: (id) => {
        sessions.set(id, { transport, mime, lastUsed: Date.now(), inFlight: 0 });
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
      void mime.close();
    };
    await mime.server.connect(transport);
    await transport.handleRequest(req, res, body);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) reply(res, 500, error instanceof Error ? error.message : String(error));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        error.code === 'EADDRINUSE'
          ? new McpOptionError(`port ${options.port} on 127.0.0.1 is in use: give another with --http <port>`)
          : error,
      ),
    );
    server.listen(options.port, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  hosts = [`127.0.0.1:${port}`, `localhost:${port}`];
  origins = hosts.map((host) => `http://${host}`);
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    close: async () => {
      clearInterval(sweeper);
      await Promise.all([...sessions.values()].map(({ transport }) => transport.close()));
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
