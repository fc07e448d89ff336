/**
 * `mime mcp --http`: the server over Streamable HTTP on 127.0.0.1 only, at `/mcp`. Every request needs
 * the bearer token; its Host must be this server's and an Origin, when sent, this server's too (a web
 * page cannot reach it through DNS rebinding). Each client session gets a server of its own (see
 * `HttpSessions`: idle expiry, resumption, cancelled streams closed); the catalog and the desktop lock
 * are shared. Answers follow the 2025-11-25 transport: 404 for a session that is not (or no longer)
 * there, 400 for a request without one, -32700 for a body that is not JSON.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sameAccessToken } from '@mime-desktop/schema';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { McpOptionError } from './errors.ts';
import { HttpSessions } from './http-sessions.ts';
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
  /** A session with no request open this long ends (a later request gets 404), ms. Default 30 minutes. */
  sessionIdleMs?: number;
}

export interface HttpServer {
  url: string;
  /** How many sessions are open. */
  readonly sessions: number;
  close(): Promise<void>;
}

/** JSON-RPC error codes of the transport's own answers. */
const PARSE_ERROR = -32700;
const SERVER_ERROR = -32000;
/** The SDK's code for a session it does not know. */
const SESSION_NOT_FOUND = -32001;

function reply(
  res: ServerResponse,
  status: number,
  message: string,
  { code = SERVER_ERROR, headers = {} }: { code?: number; headers?: Record<string, string> } = {},
): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}

/** A body past this is not read on: the connection is closed. */
const MAX_DRAINED = 64 * 1024 * 1024;

class BodyTooLargeError extends Error {}

/** The request body as text; throws {@link BodyTooLargeError} past `MAX_BODY`. */
async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  // A body over the limit is read on to its end without being kept, so the 413 reaches the client on a
  // connection that stays open; only one past MAX_DRAINED (a client streaming without end) is cut off.
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_DRAINED) break;
    if (size <= MAX_BODY) chunks.push(chunk as Buffer);
  }
  if (size > MAX_BODY) throw new BodyTooLargeError();
  return Buffer.concat(chunks).toString('utf8');
}

/** The request body parsed, or undefined once a body too large (413) or not JSON (-32700) was answered. */
async function jsonBody(req: IncomingMessage, res: ServerResponse): Promise<unknown> {
  let text: string;
  try {
    text = await readBody(req);
  } catch (error) {
    if (!(error instanceof BodyTooLargeError)) throw error;
    reply(res, 413, `the request body is too large: mime reads at most ${MAX_BODY} bytes a message`);
    return undefined;
  }
  try {
    return JSON.parse(text);
  } catch {
    reply(res, 400, 'Parse error: the body is not JSON', { code: PARSE_ERROR });
    return undefined;
  }
}

/** Starts the HTTP server; resolves once it listens. */
export async function serveHttp(options: HttpOptions): Promise<HttpServer> {
  if (!Number.isInteger(options.port) || options.port < 0 || options.port > 65535) {
    throw new McpOptionError(`--http takes a port from 0 to 65535, got ${options.port}`);
  }
  if (options.token.length < 16) throw new McpOptionError('the token must have at least 16 characters');
  let hosts: string[] = [];
  let origins: string[] = [];
  const sessions = new HttpSessions({
    createServer: options.createServer,
    idleMs: options.sessionIdleMs,
    allowedHosts: () => hosts,
    allowedOrigins: () => origins,
  });

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
        headers: { 'www-authenticate': 'Bearer' },
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
    const id = typeof sessionId === 'string' ? sessionId : undefined;
    if (id !== undefined && !sessions.has(id)) {
      return reply(res, 404, 'Session not found: it ended or expired; initialize a new one', {
        code: SESSION_NOT_FOUND,
      });
    }
    if (req.method !== 'POST') {
      if (id === undefined) return reply(res, 400, 'Bad Request: an Mcp-Session-Id header is needed');
      return sessions.handle(id, req, res);
    }
    const body = await jsonBody(req, res);
    if (body === undefined) return;
    if (id !== undefined) return sessions.handle(id, req, res, body);
    if (!isInitializeRequest(body)) {
      return reply(res, 400, 'Bad Request: no Mcp-Session-Id header; initialize first');
    }
    await sessions.start(req, res, body);
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
    get sessions() {
      return sessions.size;
    },
    close: async () => {
      await sessions.closeAll();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
