/**
 * The studio's HTTP server, on 127.0.0.1 unless told otherwise. Every request must name this server
 * in its Host (no DNS rebinding) and carry the token: the URL mime printed sets it as a strict,
 * HttpOnly cookie; scripts may send it as `x-mime-token`. A write must also come from this server's
 * own Origin and carry `x-mime-studio: 1`, which a foreign page cannot send without a preflight this
 * server never allows (CSRF).
 */
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { MimeError, newAccessToken } from '@mime-desktop/schema';
import { Hono } from 'hono';
import { ReflectManager } from './reflect-manager.ts';
import { answerError } from './routes/answers.ts';
import { assetRoutes } from './routes/assets.ts';
import { guardRoutes } from './routes/guard.ts';
import { healRoutes } from './routes/heal.ts';
import { reflectRoutes } from './routes/reflects.ts';
import { runRoutes } from './routes/runs.ts';
import { workflowRoutes } from './routes/workflows.ts';
import { RunManager } from './run-manager.ts';
import { WorkflowStore } from './workflow-store.ts';

export interface StudioOptions {
  /** The mime home whose workflows the studio shows. */
  home: string;
  /** Port to listen on; 0 (the default) picks a free one. */
  port?: number;
  /** Address to listen on. Default 127.0.0.1; anything else lets other machines in (with the token). */
  host?: string;
  /** The token requests must carry. Default: 32 random bytes. */
  token?: string;
}

export interface Studio {
  /** The URL to open: it carries the token. */
  url: string;
  origin: string;
  token: string;
  close(): Promise<void>;
}

/** The studio cannot listen where it was asked to (a port in use, an address not on this machine). */
export class StudioListenError extends MimeError {
  constructor(message: string, cause: unknown) {
    super('MIME_STUDIO_LISTEN', message, { cause, exit: 'usage' });
  }
}

/** The studio's routes for `store`, guarded for `hosts`/`origins` and `token`. */
export function studioApp(
  store: WorkflowStore,
  jobs: { runs: RunManager; reflects: ReflectManager },
  guard: { token: string; hosts: () => string[] },
): Hono {
  const app = new Hono();
  guardRoutes(app, guard);
  app.onError((error, c) => answerError(c, error));
  assetRoutes(app);
  workflowRoutes(app, store);
  runRoutes(app, store, jobs.runs);
  healRoutes(app, store);
  reflectRoutes(app, store, jobs.reflects);
  return app;
}

/** Starts the studio on `home`; resolves once it listens. */
export async function startStudio(options: StudioOptions): Promise<Studio> {
  const token = options.token ?? newAccessToken();
  const hostname = options.host ?? '127.0.0.1';
  let hosts: string[] = [];
  const runs = new RunManager();
  const reflects = new ReflectManager();
  const app = studioApp(new WorkflowStore(options.home), { runs, reflects }, { token, hosts: () => hosts });
  const server = await new Promise<ReturnType<typeof serve>>((resolve, reject) => {
    const listening = serve({ fetch: app.fetch, port: options.port ?? 0, hostname }, () =>
      resolve(listening),
    );
    listening.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        new StudioListenError(
          error.code === 'EADDRINUSE'
            ? `port ${options.port} on ${hostname} is in use: choose another with --port, or leave it out for a free one`
            : `cannot listen on ${hostname}:${options.port ?? 0} (${error.message}): check --host and --port`,
          error,
        ),
      ),
    );
  });
  const { port } = server.address() as AddressInfo;
  hosts = [
    `127.0.0.1:${port}`,
    `localhost:${port}`,
    ...(hostname === '127.0.0.1' ? [] : [`${hostname}:${port}`]),
  ];
  const origin = `http://127.0.0.1:${port}`;
  return {
    url: `${origin}/?token=${token}`,
    origin,
    token,
    close: async () => {
      await Promise.all([runs.close(), reflects.close()]);
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
