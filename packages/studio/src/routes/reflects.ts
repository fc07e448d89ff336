/** Reflecting a recording into a workflow from the studio, and following it live. */
import type { Hono } from 'hono';
import type { ReflectManager } from '../reflect-manager.ts';
import type { WorkflowStore } from '../workflow-store.ts';
import { fail, strictJson } from './answers.ts';
import { streamMessages } from './messages.ts';

export function reflectRoutes(app: Hono, store: WorkflowStore, reflects: ReflectManager): void {
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
}
