/** A workflow's routes: the list, one workflow and its recorded frames, its edits, save, check and duplicate. */
import { readWorkflowContext } from '@mime-desktop/schema';
import type { Hono } from 'hono';
import { checkDraft, editDraft } from '../workflow-draft.ts';
import type { WorkflowEdit } from '../workflow-edits.ts';
import type { WorkflowStore } from '../workflow-store.ts';
import { fail, strictJson } from './answers.ts';

export function workflowRoutes(app: Hono, store: WorkflowStore): void {
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
}
