/** A workflow's routes: the list, one workflow and its recorded frames, its edits, save, check and duplicate. */
import { join } from 'node:path';
import { RecordingMetadata, readJsonFile, readWorkflowContext, type ScreenInfo } from '@mime-desktop/schema';
import type { Hono } from 'hono';
import { createPatch } from 'rfc6902';
import { DraftCache } from '../draft-cache.ts';
import { recordedSteps, unusedEvents } from '../recorded-events.ts';
import { checkDraft, editDraft } from '../workflow-draft.ts';
import type { WorkflowEdit } from '../workflow-edits.ts';
import type { WorkflowStore } from '../workflow-store.ts';
import { fail, strictJson } from './answers.ts';
import { answerFrame } from './frame-images.ts';

/**
 * The logical screen the workflow was recorded on (its metadata.json), where its steps' points are:
 * the page places them on a frame of any size. Null when the file does not say.
 */
async function recordedScreen(dir: string): Promise<ScreenInfo | null> {
  const read = await readJsonFile(join(dir, 'metadata.json')).catch(() => null);
  const metadata = RecordingMetadata.safeParse(read);
  return (metadata.success && metadata.data.screen) || null;
}

/** `value` as it reads once sent as JSON (no undefined members). */
const asJson = (value: unknown): unknown => JSON.parse(JSON.stringify(value));

export function workflowRoutes(app: Hono, store: WorkflowStore): void {
  const drafts = new DraftCache();
  app.get('/api/workflows', async (c) => c.json(await store.list()));
  app.get('/api/workflows/:id', async (c) => {
    const id = c.req.param('id');
    const opened = await store.open(id);
    const screen = await recordedScreen(await store.folder(id));
    return c.json({ ...opened, screen, draft: drafts.put(id, opened.workflow) });
  });
  app.get('/api/workflows/:id/file', (c) =>
    answerFrame(c, () => store.frame(c.req.param('id'), c.req.query('path') ?? '')),
  );
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
  // An edit names the draft it applies to by the key the last answer gave (or sends it whole).
  app.post('/api/workflows/:id/edit', async (c) => {
    const id = c.req.param('id');
    const body = (await strictJson(c)) as { workflow?: unknown; draft?: unknown; edit?: WorkflowEdit } | null;
    if ((!body?.workflow && typeof body?.draft !== 'string') || typeof body.edit?.kind !== 'string') {
      return fail(
        c,
        400,
        'MIME_BAD_REQUEST',
        'send {"draft": "<the key of the draft>", "edit": {"kind": "make-param", ...}}, or the draft whole as {"workflow": {...}, "edit": {...}}',
      );
    }
    const draft = typeof body.draft === 'string' ? drafts.get(id, body.draft) : body.workflow;
    // Every edit goes into the draft, problems or not: they come back with it to be fixed.
    const context = await readWorkflowContext(await store.folder(id));
    const folder = await store.folder(id);
    const recorded = body.edit.kind === 'add-recorded-step' ? await recordedSteps(folder, id) : undefined;
    const { workflow, problems } = editDraft(draft, body.edit, context, recorded);
    // Only what changed goes back (JSON Patch, from the draft as the page holds it): the studio holds
    // the draft as the page will have it after applying them.
    const edited = asJson(workflow);
    return c.json({ changes: createPatch(asJson(draft), edited), problems, draft: drafts.put(id, edited) });
  });
  // The recorded events the draft's steps leave out, each with the step it adds (see recorded-events.ts).
  app.get('/api/workflows/:id/unused-events', async (c) => {
    const id = c.req.param('id');
    // The draft the page holds (its key), else the saved workflow.
    const key = c.req.query('draft');
    const draft = key === undefined ? (await store.open(id)).workflow : drafts.get(id, key);
    const { workflow } = checkDraft(draft, await readWorkflowContext(await store.folder(id)));
    return c.json({ events: unusedEvents(workflow, await recordedSteps(await store.folder(id), id)) });
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
    const id = c.req.param('id');
    const context = await readWorkflowContext(await store.folder(id));
    const checked = checkDraft(body.workflow, context);
    // Held as the page holds it: the next edit's changes apply to the page's copy.
    return c.json({ problems: checked.problems, draft: drafts.put(id, asJson(body.workflow)) });
  });
}
