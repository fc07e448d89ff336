/** A run's heal, applied change by change (the review itself comes with the run's entry). */
import type { Hono } from 'hono';
import { acceptHeal } from '../heal-review.ts';
import type { WorkflowStore } from '../workflow-store.ts';
import { fail, strictJson } from './answers.ts';
import { RUN } from './runs.ts';

export function healRoutes(app: Hono, store: WorkflowStore): void {
  app.post(`${RUN}/heal`, async (c) => {
    const { id, run } = c.req.param();
    const body = (await strictJson(c)) as { reject?: unknown } | null;
    const reject = body?.reject ?? [];
    if (!Array.isArray(reject) || !reject.every((r) => typeof r === 'string')) {
      return fail(c, 400, 'MIME_BAD_REQUEST', 'send {"reject": ["step-0", "subtask-1", ...]}');
    }
    return c.json(await acceptHeal(await store.runFolder(id, run), reject));
  });
}
