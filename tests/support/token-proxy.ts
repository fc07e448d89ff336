/**
 * A loopback proxy that adds `Authorization: Bearer <token>` to every request it passes on, for
 * clients that cannot send a header (the MCP conformance suite has no option for one). It listens on
 * 127.0.0.1 and forwards each request to `target` as it came, streaming both ways (SSE answers
 * included). A Host or Origin naming the proxy itself (127.0.0.1 or localhost with its port) is
 * rewritten to name the target, as if the client had talked to the target directly; any other Host
 * or Origin goes through unchanged, so the target's own DNS-rebinding checks still see it.
 * (A few lines of node:http: the Host/Origin mapping is the whole point, and a proxy library would
 * need the same code around it.)
 */
import { createServer, type IncomingHttpHeaders, request } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface TokenProxy {
  /** The proxy's URL for the target's path, `http://127.0.0.1:<port>/mcp`. */
  url: string;
  close(): Promise<void>;
}

/** Starts a proxy to `target` (an http://127.0.0.1 URL) adding the bearer `token`. */
export async function startTokenProxy(target: string, token: string): Promise<TokenProxy> {
  const to = new URL(target);
  let port = 0;
  const headersFor = (incoming: IncomingHttpHeaders): IncomingHttpHeaders => {
    const headers: IncomingHttpHeaders = { ...incoming, authorization: `Bearer ${token}` };
    for (const name of ['127.0.0.1', 'localhost']) {
      if (headers.host === `${name}:${port}`) headers.host = `${name}:${to.port}`;
      if (headers.origin === `http://${name}:${port}`) headers.origin = `http://${name}:${to.port}`;
    }
    return headers;
  };
  const server = createServer((req, res) => {
    const upstream = request(
      {
        host: to.hostname,
        port: to.port,
        method: req.method,
        path: req.url,
        headers: headersFor(req.headers),
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', (error) => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(`token proxy: ${error.message}`);
    });
    // A client that goes away (a dropped SSE stream) drops the request to the target too.
    res.on('close', () => upstream.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}${to.pathname}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
