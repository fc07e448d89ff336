/**
 * A workflow's runs: starting one (or a re-run), following it live (its events, the runs as they
 * start), pausing and stopping it, and a finished run's entry, report and frames.
 */
import { basename } from 'node:path';
import { FileReadError, readPngInside } from '@mime-desktop/schema';
import type { Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import { reviewHeal } from '../heal-review.ts';
import type { RunManager, StudioRun } from '../run-manager.ts';
import { readRunTrace } from '../run-steps.ts';
import { RunsListing } from '../runs-listing.ts';
import { watchRuns } from '../runs-watch.ts';
import { type RunListing, RunNotFoundError, type WorkflowStore } from '../workflow-store.ts';
import { fail, strictJson } from './answers.ts';
import { answerFrame } from './frame-images.ts';
import { streamMessages } from './messages.ts';

/** How often the runs of a workflow are read again while one goes on. */
const GOING_ON_MS = 500;

/** A finished run of a workflow. */
export const RUN = '/api/workflows/:id/runs/:run';

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

export function runRoutes(app: Hono, store: WorkflowStore, runs: RunManager): void {
  app.post('/api/workflows/:id/runs', async (c) => {
    const id = c.req.param('id');
    const body = (await strictJson(c)) as { mode?: unknown; params?: unknown; fresh?: unknown } | null;
    const fresh = body?.fresh ?? false;
    if (typeof fresh !== 'boolean') {
      return fail(c, 400, 'MIME_BAD_REQUEST', `fresh must be true or false, got ${JSON.stringify(fresh)}`);
    }
    const { DEFAULT_MODE, runModeOf } = await import('@mime-desktop/replay');
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
    const run = await runs.start({
      workflowId: id,
      workflowDir: await store.folder(id),
      mode: mode.name,
      params,
      secrets,
      fresh,
    });
    return c.json({ run: { id: run.id } });
  });
  // The run of this workflow going on now (started from another page, or before a reload), to watch.
  app.get('/api/workflows/:id/live', (c) => {
    const run = runs.running(c.req.param('id'));
    return c.json({ run: run && { id: run.id, ...run.request } });
  });
  // Each run of this workflow as it starts (from this page, another one, a Re-run), and its runs as on
  // disk each time one starts or ends (`mime replay` in another process too), until the page goes.
  app.get('/api/workflows/:id/runs/live', async (c) => {
    const id = c.req.param('id');
    // Watched before the answer starts: a run that starts once the page has the answer is seen (the
    // stream's first listing is read once it starts).
    let onChange: (runIds: ReadonlySet<string> | null) => void = () => undefined;
    const unwatch = await watchRuns(await store.folder(id), (runIds) => onChange(runIds));
    return streamSSE(c, async (stream) => {
      const left = new Promise<void>((resolve) => stream.onAbort(resolve));
      let writes = Promise.resolve();
      const send = (message: () => Promise<object | null>) => {
        writes = writes.then(async () => {
          const data = await message();
          if (data) await stream.writeSSE({ data: JSON.stringify(data) });
        });
      };
      // This studio's runs of the workflow: each told as it starts, and its run read again the moment
      // it ends (its summary written) rather than at the next moment's read.
      const unlisten = new Set<() => void>();
      const followEnd = (run: StudioRun) =>
        unlisten.add(
          run.messages.listen((message) => {
            if (message.kind === 'end' && message.dir) onChange(new Set([basename(message.dir)]));
          }),
        );
      const stop = runs.onStart((run) => {
        if (run.workflowId !== id) return;
        send(async () => ({ kind: 'start', run: { id: run.id, ...run.request } }));
        followEnd(run);
      });
      // A listing that fails (the folder went) is not sent: the page keeps the list it has; nor is
      // one the page has already. The runs are read whole once, then only those the watch names (made,
      // removed) and, every moment while any goes on, the runs going on: a run's journal's step moves
      // on, its summary is written at its end, and a run killed (its process gone) writes nothing a
      // watch would see. This studio's own run is followed by its events instead: its step is not sent.
      const listing = new RunsListing(store, id);
      const ours = (run: RunListing) => {
        const dir = runs.running(id)?.dir;
        return dir !== null && dir !== undefined && basename(dir) === run.run_id;
      };
      let ended = false;
      let sent = '';
      let again: NodeJS.Timeout | undefined;
      onChange = (runIds) =>
        send(async () => {
          clearTimeout(again);
          const read = await listing.read(runIds).then(
            () => true,
            () => false,
          );
          if (!read) return null;
          if (!ended && listing.running().length > 0) {
            again = setTimeout(() => onChange(new Set(listing.running())), GOING_ON_MS);
          }
          const listed = listing.list().map((run) => (ours(run) ? { ...run, step: null } : run));
          const text = JSON.stringify(listed);
          if (text === sent) return null;
          sent = text;
          return { kind: 'runs', runs: listed };
        });
      // The runs as the stream starts: one may have started, or be going on in another process.
      const going = runs.running(id);
      if (going) followEnd(going);
      onChange(null);
      await Promise.race([left, runs.closed]);
      ended = true;
      clearTimeout(again);
      stop();
      for (const stopListening of unlisten) stopListening();
      await unwatch();
      await writes;
      clearTimeout(again);
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
  app.get(`${RUN}/file`, (c) => {
    const { id, run } = c.req.param();
    return answerFrame(c, () => store.runFrame(id, run, c.req.query('path') ?? ''));
  });
  // The run as a trace: its turns in order, each with the screen before and after.
  app.get(`${RUN}/steps`, async (c) => {
    const { id, run } = c.req.param();
    return c.json(await readRunTrace(await store.runFolder(id, run)));
  });
  app.post('/api/runs/:run/stop', (c) => c.json({ stopped: runs.stop(c.req.param('run')) }));
  app.post('/api/runs/:run/pause', (c) => c.json({ paused: runs.pause(c.req.param('run'), true) }));
  app.post('/api/runs/:run/resume', (c) => c.json({ resumed: runs.pause(c.req.param('run'), false) }));
  app.get('/api/runs/:run/file', async (c) => {
    const run = runs.get(c.req.param('run'));
    if (!run?.dir) return fail(c, 404, 'MIME_NOT_FOUND', 'no such run in this studio');
    const { dir } = run;
    return answerFrame(c, () => runFrame(dir, c.req.query('path') ?? '', () => run.done));
  });
}
