/**
 * The studio's HTTP server, on 127.0.0.1 unless told otherwise. Every request must name this server
 * in its Host (no DNS rebinding) and carry the token: the URL mime printed sets it as a strict,
 * HttpOnly cookie; scripts may send it as `x-mime-token`. A write must also come from this server's
 * own Origin and carry `x-mime-studio: 1`, which a foreign page cannot send without a preflight this
 * server never allows (CSRF).
 */
import { readFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { serve } from '@hono/node-server';
import {
  FileReadError,
  isMimeError,
  MimeError,
  newAccessToken,
  parseJsonText,
  readPngInside,
  readWorkflowContext,
  sameAccessToken,
} from '@mime-desktop/schema';
import { type Context, Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { getCookie, setCookie } from 'hono/cookie';
import { secureHeaders } from 'hono/secure-headers';
import { streamSSE } from 'hono/streaming';
import { StudioEditError } from './edit-error.ts';
import { acceptHeal, reviewHeal } from './heal-review.ts';
import type { MessageLog } from './message-log.ts';
import { ReflectManager } from './reflect-manager.ts';
import { RunManager, RunRefusedError } from './run-manager.ts';
import { checkDraft, editDraft } from './workflow-draft.ts';
import type { WorkflowEdit } from './workflow-edits.ts';
import {
  RecordingNotFoundError,
  RunNotFoundError,
  WorkflowConflictError,
  WorkflowInvalidError,
  WorkflowNotFoundError,
  WorkflowStore,
} from './workflow-store.ts';

const COOKIE = 'mime_studio';
/** The largest request body (a workflow being saved). */
const MAX_BODY_BYTES = 16 * 1024 * 1024;
const ASSETS = fileURLToPath(new URL('../assets/', import.meta.url));
/** The page's files: its modules (served as they are, no build step) and its style sheet. */
const ASSET_NAME = /^[a-z][a-z-]*\.(js|css)$/;
const ASSET_TYPES: Record<string, string> = {
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
};

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

function fail(
  c: Context,
  status: 400 | 401 | 403 | 404 | 409 | 413 | 422 | 500 | 507,
  code: string,
  message: string,
  extra = {},
) {
  return c.json({ error: { code, message, ...extra } }, status);
}

/**
 * A request's JSON body, read strictly as mime reads its files: a duplicate key (`"sensitive": true,
 * "sensitive": false`) or a syntax error is a 400 naming line and column, never silently the last
 * value. No body is null.
 */
async function strictJson(c: Context): Promise<unknown> {
  const text = await c.req.text();
  return text.trim() === '' ? null : parseJsonText(text, 'the request body');
}

/** Errors that say someone else changed or holds the workflow. */
const CONFLICTS = new Set(['MIME_HEAL_CONFLICT', 'MIME_WORKFLOW_LOCKED']);

/** An error as the page shows it, with the status that says what kind it is. */
function answerError(c: Context, error: unknown) {
  if (error instanceof WorkflowInvalidError)
    return fail(c, 422, error.code, error.message, { problems: error.problems });
  if (error instanceof WorkflowConflictError)
    return fail(c, 409, error.code, error.message, { version: error.version });
  if (
    error instanceof WorkflowNotFoundError ||
    error instanceof RunNotFoundError ||
    error instanceof RecordingNotFoundError
  )
    return fail(c, 404, error.code, error.message);
  if (error instanceof StudioEditError) return fail(c, 400, error.code, error.message);
  if (error instanceof RunRefusedError) return fail(c, 409, error.code, error.message);
  // A full disk is the server's storage, not the request: 507 Insufficient Storage, named.
  if (isMimeError(error) && error.code === 'MIME_DISK_FULL') return fail(c, 507, error.code, error.message);
  if (isMimeError(error)) return fail(c, CONFLICTS.has(error.code) ? 409 : 400, error.code, error.message);
  return fail(c, 500, 'MIME_INTERNAL', error instanceof Error ? error.message : String(error));
}

/**
 * A frame of a run by its path in the run folder: a step's event comes before its frame is written
 * (frames are written in the background), so a frame still missing is waited for a moment while the
 * run goes on.
 */
async function runFrame(dir: string, path: string, done: () => boolean): Promise<Buffer> {
  for (let waited = 0; ; waited += 100) {
    try {
      return await readPngInside(dir, path, 'the run screenshot');
    } catch (error) {
      const missing = error instanceof FileReadError && error.message.includes('the screenshot is missing');
      if (!missing || waited >= 3000 || done()) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/** A run's report is shown in a sandboxed frame of the page: its own inline style, data: images and script only. */
const REPORT_PATH = /^\/api\/workflows\/[^/]+\/runs\/[^/]+\/report$/;
const pageHeaders = secureHeaders({
  contentSecurityPolicy: {
    defaultSrc: ["'self'"],
    objectSrc: ["'none'"],
    baseUri: ["'none'"],
    frameAncestors: ["'none'"],
  },
  xFrameOptions: 'DENY',
  referrerPolicy: 'no-referrer',
});
const reportHeaders = secureHeaders({
  contentSecurityPolicy: {
    defaultSrc: ["'none'"],
    imgSrc: ['data:'],
    styleSrc: ["'unsafe-inline'"],
    // The report's own meta policy narrows this to its script's hash; the sandbox gives it no origin.
    scriptSrc: ["'unsafe-inline'"],
    frameAncestors: ["'self'"],
    sandbox: ['allow-scripts'],
  },
  xFrameOptions: 'SAMEORIGIN',
  referrerPolicy: 'no-referrer',
});

/**
 * The messages of a job as Server-Sent Events, from the first the page has not seen (a reconnecting
 * EventSource says the last it got) to the end.
 */
function streamMessages<M extends { kind: string }>(c: Context, log: MessageLog<M>) {
  const after = Number(c.req.header('last-event-id') ?? -1);
  return streamSSE(c, async (stream) => {
    let writes = Promise.resolve();
    let unsubscribe: () => void = () => undefined;
    await new Promise<void>((resolve) => {
      unsubscribe = log.listen(
        (message, index) => {
          writes = writes.then(() => stream.writeSSE({ id: String(index), data: JSON.stringify(message) }));
          if (message.kind === 'end') resolve();
        },
        Number.isInteger(after) ? after + 1 : 0,
      );
      stream.onAbort(resolve);
    });
    unsubscribe();
    // The end is written before the stream closes.
    await writes;
  });
}

/** The page's files, read once. */
const assets = new Map<string, Promise<string>>();
function asset(name: string): Promise<string> {
  let text = assets.get(name);
  if (!text) {
    text = readFile(`${ASSETS}${name}`, 'utf8');
    // A name that is no file is not kept.
    text.catch(() => assets.delete(name));
    assets.set(name, text);
  }
  return text;
}

/** The studio's routes for `store`, guarded for `hosts`/`origins` and `token`. */
export function studioApp(
  store: WorkflowStore,
  jobs: { runs: RunManager; reflects: ReflectManager },
  guard: { token: string; hosts: () => string[] },
): Hono {
  const { runs, reflects } = jobs;
  const app = new Hono();
  app.use('*', async (c, next) => {
    const host = c.req.header('host') ?? '';
    if (!guard.hosts().includes(host)) return fail(c, 403, 'MIME_FORBIDDEN', `Invalid Host header: ${host}`);
    if (c.req.method === 'GET' && c.req.path === '/' && sameAccessToken(c.req.query('token'), guard.token)) {
      setCookie(c, COOKIE, guard.token, { httpOnly: true, sameSite: 'Strict', path: '/' });
      return c.redirect('/', 303);
    }
    if (!sameAccessToken(getCookie(c, COOKIE) ?? c.req.header('x-mime-token'), guard.token)) {
      return fail(c, 401, 'MIME_UNAUTHORIZED', 'open the URL `mime studio` printed: it carries the token');
    }
    if (c.req.method !== 'GET' && c.req.method !== 'HEAD') {
      const origin = c.req.header('origin');
      if (origin === undefined || !guard.hosts().some((h) => origin === `http://${h}`)) {
        return fail(c, 403, 'MIME_FORBIDDEN', `Invalid Origin header: ${origin ?? '(none)'}`);
      }
      if (c.req.header('x-mime-studio') !== '1') {
        return fail(c, 403, 'MIME_FORBIDDEN', 'a write must carry the x-mime-studio header');
      }
    }
    await next();
  });
  // The page loads nothing from elsewhere, is never framed (a report only by the page), and never sends
  // its address (the token was in it) to anyone.
  app.use('*', (c, next) => (REPORT_PATH.test(c.req.path) ? reportHeaders : pageHeaders)(c, next));
  // A workflow is a few hundred KiB; a request body is bounded well above that.
  app.use(
    '*',
    bodyLimit({
      maxSize: MAX_BODY_BYTES,
      onError: (c) =>
        fail(c, 413, 'MIME_TOO_LARGE', `a request body is at most ${MAX_BODY_BYTES / 1024 / 1024} MiB`),
    }),
  );
  app.onError((error, c) => answerError(c, error));

  app.get('/', async (c) => c.html(await asset('index.html')));
  app.get('/assets/:name', async (c) => {
    const name = c.req.param('name');
    const type = ASSET_TYPES[ASSET_NAME.exec(name)?.[1] ?? ''];
    const text = type ? await asset(name).catch(() => null) : null;
    if (!type || text === null) return fail(c, 404, 'MIME_NOT_FOUND', `no asset ${name}`);
    return c.body(text, 200, { 'content-type': type, 'cache-control': 'private, max-age=300' });
  });
  app.get('/api/workflows', async (c) => c.json(await store.list()));
  app.get('/api/workflows/:id', async (c) => c.json(await store.open(c.req.param('id'))));
  app.get('/api/workflows/:id/file', async (c) => {
    const png = await store.frame(c.req.param('id'), c.req.query('path') ?? '');
    return c.body(new Uint8Array(png), 200, {
      'content-type': 'image/png',
      'cache-control': 'private, max-age=60',
    });
  });
  app.put('/api/workflows/:id', async (c) => {
    const body = (await strictJson(c)) as { workflow?: unknown; version?: unknown } | null;
    if (!body || typeof body.version !== 'string') {
      return fail(
        c,
        400,
        'MIME_BAD_REQUEST',
        'send {"workflow": {...}, "version": "<the version you opened>"}',
      );
    }
    return c.json(await store.save(c.req.param('id'), body.workflow, body.version));
  });
  app.post('/api/workflows/:id/edit', async (c) => {
    const body = (await strictJson(c)) as { workflow?: unknown; edit?: WorkflowEdit } | null;
    if (!body?.workflow || typeof body.edit?.kind !== 'string') {
      return fail(
        c,
        400,
        'MIME_BAD_REQUEST',
        'send {"workflow": {...}, "edit": {"kind": "make-param", ...}}',
      );
    }
    // Every edit goes into the draft, problems or not: they come back with it to be fixed.
    const context = await readWorkflowContext(await store.folder(c.req.param('id')));
    return c.json(editDraft(body.workflow, body.edit, context));
  });
  app.post('/api/workflows/:id/duplicate', async (c) => {
    const body = (await c.req.json().catch(() => null)) as { name?: unknown } | null;
    if (typeof body?.name !== 'string') {
      return fail(c, 400, 'MIME_BAD_REQUEST', 'send {"name": "<the name of the copy>"}');
    }
    return c.json({ id: await store.duplicate(c.req.param('id'), body.name) });
  });
  app.post('/api/workflows/:id/check', async (c) => {
    const body = (await c.req.json().catch(() => null)) as { workflow?: unknown } | null;
    if (!body?.workflow) return fail(c, 400, 'MIME_BAD_REQUEST', 'send {"workflow": {...}}');
    const context = await readWorkflowContext(await store.folder(c.req.param('id')));
    return c.json({ problems: checkDraft(body.workflow, context).problems });
  });
  app.post('/api/workflows/:id/runs', async (c) => {
    const id = c.req.param('id');
    const body = (await strictJson(c)) as { mode?: unknown; params?: unknown; fresh?: unknown } | null;
    const fresh = body?.fresh ?? false;
    if (typeof fresh !== 'boolean') {
      return fail(c, 400, 'MIME_BAD_REQUEST', `fresh must be true or false, got ${JSON.stringify(fresh)}`);
    }
    const { checkParams, DEFAULT_MODE, runModeOf } = await import('@mime-desktop/replay');
    // An unknown mode throws ReplayOptionError (400), naming the modes there are.
    const mode = runModeOf(body?.mode ?? DEFAULT_MODE);
    const values = (body?.params ?? {}) as Record<string, unknown>;
    const { workflow } = await store.open(id);
    if (fresh && !workflow.setup) {
      return fail(
        c,
        400,
        'MIME_BAD_REQUEST',
        "a fresh start needs the workflow's setup (the command that starts its app and its window), and this one has none: add one with mime edit, or reset the app yourself",
      );
    }
    const sensitive = new Set(workflow.task_params.filter((p) => p.sensitive).map((p) => p.name));
    const params: Record<string, string> = {};
    const secrets: Record<string, string> = {};
    for (const [name, value] of Object.entries(values)) {
      if (typeof value !== 'string' || value === '') continue;
      (sensitive.has(name) ? secrets : params)[name] = value;
    }
    // A required param left empty is refused here, naming it, before anything runs (no recorded example fills in).
    checkParams(workflow, params);
    const run = await runs.start({
      workflowId: id,
      workflowDir: await store.folder(id),
      mode: mode.name,
      params,
      secrets,
      fresh,
      setup: workflow.setup ?? null,
    });
    return c.json({ run: { id: run.id } });
  });
  // The run of this workflow going on now (started from another page, or before a reload), to watch.
  app.get('/api/workflows/:id/live', (c) => {
    const run = runs.running(c.req.param('id'));
    return c.json({ run: run && { id: run.id, ...run.request } });
  });
  // Each run of this workflow as it starts (from this page, another one, a Re-run), until the page goes.
  app.get('/api/workflows/:id/runs/live', (c) => {
    const id = c.req.param('id');
    return streamSSE(c, async (stream) => {
      let writes = Promise.resolve();
      const stop = runs.onStart((run) => {
        if (run.workflowId !== id) return;
        const data = JSON.stringify({ kind: 'start', run: { id: run.id, ...run.request } });
        writes = writes.then(() => stream.writeSSE({ data }));
      });
      await Promise.race([new Promise<void>((resolve) => stream.onAbort(resolve)), runs.closed]);
      stop();
      await writes;
    });
  });
  app.post('/api/runs/:run/rerun', async (c) => {
    const body = (await strictJson(c)) as { fresh?: unknown } | null;
    const fresh = body?.fresh;
    if (fresh !== undefined && typeof fresh !== 'boolean') {
      return fail(c, 400, 'MIME_BAD_REQUEST', `fresh must be true or false, got ${JSON.stringify(fresh)}`);
    }
    const run = await runs.rerun(c.req.param('run'), fresh === undefined ? {} : { fresh });
    return c.json({ run: { id: run.id } });
  });
  app.get('/api/runs/:run/events', (c) => {
    const run = runs.get(c.req.param('run'));
    if (!run) return fail(c, 404, 'MIME_NOT_FOUND', 'no such run in this studio');
    return streamMessages(c, run.messages);
  });
  app.post('/api/recordings/:id/reflect', async (c) => {
    const id = c.req.param('id');
    const body = (await strictJson(c)) as { model?: unknown } | null;
    const job = await reflects.start(id, await store.recording(id), { withModel: body?.model !== false });
    return c.json({ reflect: { id: job.id } });
  });
  app.get('/api/reflects/:job/events', (c) => {
    const job = reflects.get(c.req.param('job'));
    if (!job) return fail(c, 404, 'MIME_NOT_FOUND', 'no such reflect in this studio');
    return streamMessages(c, job.messages);
  });
  const RUN = '/api/workflows/:id/runs/:run';
  app.get(RUN, async (c) => {
    const { id, run } = c.req.param();
    const dir = await store.runFolder(id, run);
    const { runs: listed } = await store.open(id);
    const entry = listed.find((r) => r.run_id === run);
    if (!entry) throw new RunNotFoundError(id, run);
    return c.json({ run: entry, heal: await reviewHeal(dir) });
  });
  app.get(`${RUN}/report`, async (c) => {
    const { id, run } = c.req.param();
    const page = await store.report(id, run);
    if (!page) return fail(c, 404, 'MIME_NOT_FOUND', `run ${run} has no report (still running, or killed)`);
    return c.body(new Uint8Array(page), 200, { 'content-type': 'text/html; charset=utf-8' });
  });
  app.get(`${RUN}/file`, async (c) => {
    const { id, run } = c.req.param();
    const png = await store.runFrame(id, run, c.req.query('path') ?? '');
    return c.body(new Uint8Array(png), 200, {
      'content-type': 'image/png',
      'cache-control': 'private, max-age=60',
    });
  });
  app.post(`${RUN}/heal`, async (c) => {
    const { id, run } = c.req.param();
    const body = (await strictJson(c)) as { reject?: unknown } | null;
    const reject = body?.reject ?? [];
    if (!Array.isArray(reject) || !reject.every((r) => typeof r === 'string')) {
      return fail(c, 400, 'MIME_BAD_REQUEST', 'send {"reject": ["step-0", "subtask-1", ...]}');
    }
    return c.json(await acceptHeal(await store.runFolder(id, run), reject));
  });
  app.post('/api/runs/:run/stop', (c) => c.json({ stopped: runs.stop(c.req.param('run')) }));
  app.post('/api/runs/:run/pause', (c) => c.json({ paused: runs.pause(c.req.param('run'), true) }));
  app.post('/api/runs/:run/resume', (c) => c.json({ resumed: runs.pause(c.req.param('run'), false) }));
  app.get('/api/runs/:run/file', async (c) => {
    const run = runs.get(c.req.param('run'));
    if (!run?.dir) return fail(c, 404, 'MIME_NOT_FOUND', 'no such run in this studio');
    const png = await runFrame(run.dir, c.req.query('path') ?? '', () => run.done);
    return c.body(new Uint8Array(png), 200, { 'content-type': 'image/png' });
  });
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
