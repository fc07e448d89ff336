/**
 * The studio's routes for a step from a recorded event, over real HTTP: the events the draft's steps
 * leave out are listed, one is added back by its index (once), and a workflow that keeps no recording
 * says so with its code.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { copyWorkflow, useTempDirs } from '@mime-desktop/test-support/e2e-rig';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Studio, startStudio } from '../src/server.ts';
import { editedDraft } from './edited-draft.ts';

let home: string;
let studio: Studio;

interface Answer {
  status: number;
  body: string;
}

/** A request as the page makes it: the token, and for a write its Origin and the studio header. */
async function send(path: string, options: { method?: string; body?: unknown } = {}): Promise<Answer> {
  const write = options.body !== undefined;
  const response = await fetch(`${studio.origin}${path}`, {
    method: options.method ?? 'GET',
    headers: {
      'x-mime-token': studio.token,
      ...(write ? { 'content-type': 'application/json', origin: studio.origin, 'x-mime-studio': '1' } : {}),
    },
    body: write ? JSON.stringify(options.body) : undefined,
  });
  return { status: response.status, body: await response.text() };
}

const tempDirs = useTempDirs();

beforeAll(async () => {
  home = await tempDirs('mime-studio-recorded-');
  await copyWorkflow('play-song-recorded', undefined, { as: 'play-song', into: join(home, 'workflows') });
  studio = await startStudio({ home });
});

afterAll(async () => {
  await studio?.close();
});

describe('steps from recorded events, over HTTP', () => {
  it("lists the recorded events the draft's steps leave out and adds one back by its index", async () => {
    const opened = JSON.parse((await send('/api/workflows/play-song')).body);
    const unused = async (draft?: string) =>
      send(`/api/workflows/play-song/unused-events${draft ? `?draft=${draft}` : ''}`);
    expect(JSON.parse((await unused()).body)).toEqual({ events: [] });
    const edit = (body: unknown) => send('/api/workflows/play-song/edit', { method: 'POST', body });
    const deleted = await edit({ draft: opened.draft, edit: { kind: 'delete-step', step_i: 4 } });
    expect(deleted.status, deleted.body).toBe(200);
    const listed = await unused(JSON.parse(deleted.body).draft);
    expect(listed.status, listed.body).toBe(200);
    expect(JSON.parse(listed.body).events).toEqual([
      expect.objectContaining({
        event_index: 4,
        did: 'extract "the song now playing"',
        screenshot: 'screenshots/4.png',
      }),
    ]);
    const added = await edit({
      draft: JSON.parse(deleted.body).draft,
      edit: { kind: 'add-recorded-step', subtask_i: 1, after: 3, event_index: 4 },
    });
    expect(added.status, added.body).toBe(200);
    expect(JSON.parse(added.body).problems).toEqual([]);
    // Each step replays its event again, in place (its words are the model-free reflect's, not the model's).
    const sources = (workflow: { plan: { subtasks: { steps: { source: unknown }[] }[] } }) =>
      workflow.plan.subtasks.map((t) => t.steps.map((x) => x.source));
    expect(sources(editedDraft(editedDraft(opened.workflow, deleted), added))).toEqual(
      sources(opened.workflow),
    );
    const twice = await edit({
      draft: JSON.parse(added.body).draft,
      edit: { kind: 'add-recorded-step', subtask_i: 1, after: 3, event_index: 4 },
    });
    expect(twice.status).toBe(400);
    expect(JSON.parse(twice.body).error).toMatchObject({ code: 'MIME_STUDIO_EDIT' });
  });

  it('says a workflow that keeps no recording has no events to add, 404 with its code', async () => {
    const dir = join(home, 'workflows', 'by-hand');
    await mkdir(dir);
    await writeFile(
      join(dir, 'schema.json'),
      await readFile(join(home, 'workflows', 'play-song', 'schema.json')),
    );
    const answer = await send('/api/workflows/by-hand/unused-events');
    expect(answer.status).toBe(404);
    expect(JSON.parse(answer.body).error).toMatchObject({
      code: 'MIME_NO_RECORDING',
      message: expect.stringContaining('add a step by its words instead'),
    });
  });
});
