/**
 * The studio's server over real HTTP: the token, the Host and the Origin guard every request; saving
 * validates, keeps the previous file and never overwrites a change made on disk; a path out of the
 * workflow's folder is refused.
 */

import { mkdir, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { loadWorkflow } from '@mime-desktop/schema';
import { aiMimeValidationError } from '@mime-desktop/test-support/ai-mime-validator';
import { copyFixture, copyWorkflow, useTempDirs } from '@mime-desktop/test-support/e2e-rig';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { type Studio, startStudio } from '../src/server.ts';
import { editedDraft } from './edited-draft.ts';
import { type RawRequest, rawRequest } from './raw-request.ts';

let home: string;
let studio: Studio;
let cookie: string;
let port: string;

/** One request to the studio with exactly these headers (Host included). */
const send = (path: string, options: RawRequest = {}) => rawRequest(port, path, options);

/** What the page sends for a write: its cookie, its Origin and the studio header. */
const pageWrite = () => ({ cookie, origin: `http://127.0.0.1:${port}`, 'x-mime-studio': '1' });

const tempDirs = useTempDirs();

beforeAll(async () => {
  home = await tempDirs('mime-studio-');
  await copyWorkflow('play-song-recorded', undefined, { as: 'play-song', into: join(home, 'workflows') });
  studio = await startStudio({ home });
  port = new URL(studio.origin).port;
  const login = await send(`/?token=${studio.token}`);
  expect(login.status).toBe(303);
  const setCookie = String(login.headers['set-cookie']);
  expect(setCookie).toMatch(/HttpOnly/);
  expect(setCookie).toMatch(/SameSite=Strict/);
  cookie = setCookie.split(';')[0] as string;
});

afterAll(async () => {
  await studio?.close();
});

describe('the studio server', () => {
  it('refuses requests without the token, with a wrong one, and for another Host', async () => {
    expect((await send('/api/workflows')).status).toBe(401);
    expect((await send('/?token=wrong')).status).toBe(401);
    expect((await send('/api/workflows', { headers: { 'x-mime-token': 'x'.repeat(43) } })).status).toBe(401);
    const rebound = await send('/api/workflows', { headers: { cookie, host: `evil.example:${port}` } });
    expect(rebound.status).toBe(403);
    expect(rebound.body).toContain('Invalid Host header');
  });

  it('lists the workflows of the home and serves the page, with the cookie or the token header', async () => {
    const listed = JSON.parse((await send('/api/workflows', { headers: { cookie } })).body);
    expect(listed.workflows).toEqual([
      expect.objectContaining({
        id: 'play-song',
        params: ['song_name'],
        thumbnail: expect.stringMatching(/\.png$/),
      }),
    ]);
    const byHeader = await send('/api/workflows', { headers: { 'x-mime-token': studio.token } });
    expect(byHeader.status).toBe(200);
    const page = await send('/', { headers: { cookie } });
    expect(page.body).toContain('<main id="main"');
    // Nothing from elsewhere, never framed, the address (it held the token) never sent on.
    expect(page.headers['content-security-policy']).toContain("default-src 'self'");
    expect(page.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(page.headers['referrer-policy']).toBe('no-referrer');
    expect(page.headers['x-frame-options']).toBe('DENY');
    const frame = await send(`/api/workflows/play-song/file?path=${listed.workflows[0].thumbnail}`, {
      headers: { cookie },
    });
    expect(frame.status).toBe(200);
    expect(frame.headers['content-type']).toBe('image/png');
  });

  it("serves the page's modules as they are, each one its page imports, and nothing else of the folder", async () => {
    const app = await send('/assets/app.js', { headers: { cookie } });
    expect(app.status).toBe(200);
    expect(app.headers['content-type']).toBe('text/javascript; charset=utf-8');
    const imported = [...app.body.matchAll(/from '\.\/([a-z-]+\.js)'/g)].map((m) => m[1]);
    expect(imported).toContain('workflow-page.js');
    for (const name of imported)
      expect((await send(`/assets/${name}`, { headers: { cookie } })).status).toBe(200);
    // index.html preloads every module of the folder (none forgotten when one is added), so the page
    // fetches them at once rather than one import level at a time.
    const page = (await send('/', { headers: { cookie } })).body;
    const preloaded = [...page.matchAll(/<link rel="modulepreload" href="\/assets\/([a-z-]+\.js)"/g)].map(
      (m) => m[1],
    );
    const modules = (await readdir(new URL('../assets/', import.meta.url).pathname)).filter(
      (name) => name.endsWith('.js') && name !== 'app.js',
    );
    expect(preloaded.sort()).toEqual(modules.sort());
    for (const name of ['nope.js', 'index.html', '..%2Fpackage.json', 'App.js']) {
      expect((await send(`/assets/${name}`, { headers: { cookie } })).status, name).toBe(404);
    }
  });

  it('refuses a write from another Origin, without one, or without the studio header (CSRF)', async () => {
    const opened = JSON.parse((await send('/api/workflows/play-song', { headers: { cookie } })).body);
    const body = { workflow: opened.workflow, version: opened.version };
    const put = (headers: Record<string, string>) =>
      send('/api/workflows/play-song', { method: 'PUT', headers, body });
    const foreign = await put({ ...pageWrite(), origin: 'http://evil.example' });
    expect(foreign.status).toBe(403);
    expect(foreign.body).toContain('Invalid Origin header: http://evil.example');
    const { origin: _origin, ...noOrigin } = pageWrite();
    expect((await put(noOrigin)).status).toBe(403);
    const { 'x-mime-studio': _header, ...noHeader } = pageWrite();
    expect((await put(noHeader)).status).toBe(403);
  });

  it('saves a valid workflow, keeps the previous file, and refuses to overwrite a change made on disk', async () => {
    const file = join(home, 'workflows', 'play-song', 'schema.json');
    const opened = JSON.parse((await send('/api/workflows/play-song', { headers: { cookie } })).body);
    const workflow = { ...opened.workflow, task_name: 'play a song' };
    const saved = await send('/api/workflows/play-song', {
      method: 'PUT',
      headers: pageWrite(),
      body: { workflow, version: opened.version },
    });
    expect(saved.status, saved.body).toBe(200);
    expect((await loadWorkflow(file)).workflow.task_name).toBe('play a song');
    const kept = (await readdir(join(home, 'workflows', 'play-song'))).filter((f) =>
      /^schema\.\d{8}T\d+Z\.json$/.test(f),
    );
    expect(kept).toHaveLength(1);
    // Someone edits the file meanwhile: a save from the old version is refused, the file stays theirs.
    const theirs = (await readFile(file, 'utf8')).replace('play a song', 'their title');
    await writeFile(file, theirs);
    const stale = await send('/api/workflows/play-song', {
      method: 'PUT',
      headers: pageWrite(),
      body: { workflow: { ...workflow, task_name: 'mine' }, version: JSON.parse(saved.body).version },
    });
    expect(stale.status).toBe(409);
    expect(JSON.parse(stale.body).error.code).toBe('MIME_EDIT_CONFLICT');
    expect(await readFile(file, 'utf8')).toBe(theirs);
  });

  it('names where an invalid workflow is wrong and writes nothing', async () => {
    const file = join(home, 'workflows', 'play-song', 'schema.json');
    const before = await readFile(file, 'utf8');
    const opened = JSON.parse((await send('/api/workflows/play-song', { headers: { cookie } })).body);
    const broken = structuredClone(opened.workflow);
    broken.plan.subtasks[0].steps[0].intent = '';
    const answer = await send('/api/workflows/play-song', {
      method: 'PUT',
      headers: pageWrite(),
      body: { workflow: broken, version: opened.version },
    });
    expect(answer.status).toBe(422);
    expect(JSON.parse(answer.body).error.problems).toContainEqual(
      expect.objectContaining({
        path: 'plan.subtasks[0].steps[0].intent',
        message: expect.stringContaining('intent'),
      }),
    );
    expect(await readFile(file, 'utf8')).toBe(before);
  });

  it('applies an edit to the draft without saving it, and refuses an unknown edit or an invalid draft', async () => {
    const file = join(home, 'workflows', 'play-song', 'schema.json');
    const before = await readFile(file, 'utf8');
    const opened = JSON.parse((await send('/api/workflows/play-song', { headers: { cookie } })).body);
    const edit = (body: unknown) =>
      send('/api/workflows/play-song/edit', { method: 'POST', headers: pageWrite(), body });
    const renamed = await edit({
      workflow: opened.workflow,
      edit: { kind: 'rename-param', name: 'song_name', to: 'title' },
    });
    expect(renamed.status, renamed.body).toBe(200);
    // Only what changed comes back: the param's name, and the templates that use it.
    expect(JSON.parse(renamed.body).workflow).toBeUndefined();
    expect(renamed.body.length).toBeLessThan(JSON.stringify(opened.workflow).length / 2);
    expect(editedDraft(opened.workflow, renamed).task_params[0].name).toBe('title');
    expect(await readFile(file, 'utf8')).toBe(before);
    const unknown = await edit({ workflow: opened.workflow, edit: { kind: 'format-disk' } });
    expect(unknown.status).toBe(400);
    expect(JSON.parse(unknown.body).error.message).toBe('no edit named "format-disk"');
    const invalid = await edit({ workflow: { task_name: 1 }, edit: { kind: 'delete-param', name: 'x' } });
    expect(invalid.status).toBe(422);
  });

  it('edits a draft it holds by its key, small, and asks for a draft it does not hold whole', async () => {
    const opened = JSON.parse((await send('/api/workflows/play-song', { headers: { cookie } })).body);
    expect(opened.draft).toMatch(/^[\w-]{43}$/);
    const edit = (body: unknown) =>
      send('/api/workflows/play-song/edit', { method: 'POST', headers: pageWrite(), body });
    const first = { draft: opened.draft, edit: { kind: 'rename-param', name: 'song_name', to: 'title' } };
    expect(JSON.stringify(first).length).toBeLessThan(200);
    const renamed = await edit(first);
    expect(renamed.status, renamed.body).toBe(200);
    const after = JSON.parse(renamed.body);
    const title = editedDraft(opened.workflow, renamed);
    expect(title.task_params[0].name).toBe('title');
    // The next edit names the draft the last one made, and applies to it.
    const described = await edit({
      draft: after.draft,
      edit: { kind: 'set-param', name: 'title', description: 'the song' },
    });
    expect(described.status, described.body).toBe(200);
    expect(editedDraft(title, described).task_params[0]).toMatchObject({
      name: 'title',
      description: 'the song',
    });
    // A key the studio never gave, or one of another workflow, is asked for whole.
    const gone = await edit({ draft: 'x'.repeat(43), edit: first.edit });
    expect(gone.status).toBe(409);
    expect(JSON.parse(gone.body).error.code).toBe('MIME_DRAFT_GONE');
  });

  it('keeps editing a draft with problems, returning them with each edit, and checks a draft on request', async () => {
    const opened = JSON.parse((await send('/api/workflows/play-song', { headers: { cookie } })).body);
    const edit = (body: unknown) =>
      send('/api/workflows/play-song/edit', { method: 'POST', headers: pageWrite(), body });
    const typing = opened.workflow.plan.subtasks[0].steps.find(
      (s: { action_type: string }) => s.action_type === 'TYPE',
    );
    const broken = await edit({
      workflow: opened.workflow,
      edit: { kind: 'set-step', step_i: typing.i, fields: { action_value: '{artist}' } },
    });
    expect(broken.status, broken.body).toBe(200);
    const { problems } = JSON.parse(broken.body);
    const workflow = editedDraft(opened.workflow, broken);
    expect(workflow.plan.subtasks[0].steps[typing.i].action_value).toBe('{artist}');
    expect(problems).toEqual([
      {
        path: `plan.subtasks[0].steps[${typing.i}].action_value`,
        message: '{artist} names no declared param and no extract; declare it in task_params or fix the name',
      },
    ]);
    // The fix the problem names is an edit of that draft, not refused for its problem.
    const fixed = await edit({ workflow, edit: { kind: 'add-param', name: 'artist', example: 'Muse' } });
    expect(fixed.status, fixed.body).toBe(200);
    expect(JSON.parse(fixed.body).problems).toEqual([]);
    const checked = await send('/api/workflows/play-song/check', {
      method: 'POST',
      headers: pageWrite(),
      body: { workflow },
    });
    expect(JSON.parse(checked.body).problems).toHaveLength(1);
  });

  it('refuses a request body over its bound, reading no more of it', async () => {
    // It says it is 17 MiB: refused from its length, before any of it is read.
    const answer = await send('/api/workflows/play-song', {
      method: 'PUT',
      headers: { ...pageWrite(), 'content-length': String(17 * 1024 * 1024) },
      body: {},
    });
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body).error.code).toBe('MIME_TOO_LARGE');
  });

  it('says a port in use is a usage error, naming the port', async () => {
    const taken = Number(port);
    await expect(startStudio({ home, port: taken })).rejects.toMatchObject({
      code: 'MIME_STUDIO_LISTEN',
      exit: 'usage',
      message: expect.stringContaining(`port ${taken} on 127.0.0.1 is in use`),
    });
  });

  it('never serves a file out of the workflow folder, nor a workflow out of the home', async () => {
    const out = await send('/api/workflows/play-song/file?path=../../../../etc/passwd', {
      headers: { cookie },
    });
    expect(out.status).toBe(400);
    expect(out.body).not.toContain('root:');
    const notPng = await send('/api/workflows/play-song/file?path=schema.json', { headers: { cookie } });
    expect(notPng.status).toBe(400);
    expect((await send('/api/workflows/..%2F..%2Fetc', { headers: { cookie } })).status).toBe(404);
    expect((await send('/api/workflows/nope', { headers: { cookie } })).status).toBe(404);
  });

  it("serves a run's report framed by the page only, sandboxed, and refuses run paths out of the workflow", async () => {
    const runs = join(home, 'workflows', 'play-song', '.replay');
    await mkdir(join(runs, 'run-1'), { recursive: true });
    await writeFile(join(runs, 'run-1', 'report.html'), '<!doctype html><p>the report</p>');
    const run = await send('/api/workflows/play-song/runs/run-1', { headers: { cookie } });
    expect(run.status, run.body).toBe(200);
    expect(JSON.parse(run.body)).toMatchObject({ run: { run_id: 'run-1' }, heal: null });
    const report = await send('/api/workflows/play-song/runs/run-1/report', { headers: { cookie } });
    expect(report.status).toBe(200);
    expect(report.body).toContain('the report');
    const policy = String(report.headers['content-security-policy']);
    expect(policy).toContain("frame-ancestors 'self'");
    expect(policy).toContain('sandbox allow-scripts');
    expect(policy).toContain("default-src 'none'");
    expect(report.headers['x-frame-options']).toBe('SAMEORIGIN');

    // A report.html that is a link out of the run folder is refused; so are runs out of .replay/.
    await mkdir(join(runs, 'run-2'), { recursive: true });
    await symlink('/etc/passwd', join(runs, 'run-2', 'report.html'));
    const linked = await send('/api/workflows/play-song/runs/run-2/report', { headers: { cookie } });
    expect(linked.status).toBe(400);
    expect(linked.body).not.toContain('root:');
    for (const path of [
      'runs/..%2F..%2F..',
      'runs/nope',
      'runs/nope/report',
      'runs/run-1/file?path=../../schema.json',
    ]) {
      const answer = await send(`/api/workflows/play-song/${path}`, { headers: { cookie } });
      expect([400, 404], path).toContain(answer.status);
    }

    // A run that learned no heal has none to apply; a malformed request is named.
    const none = await send('/api/workflows/play-song/runs/run-1/heal', {
      method: 'POST',
      headers: pageWrite(),
      body: { reject: [] },
    });
    expect(none.status).toBe(400);
    expect(JSON.parse(none.body).error.code).toBe('MIME_HEAL_NOTHING');
    const bad = await send('/api/workflows/play-song/runs/run-1/heal', {
      method: 'POST',
      headers: pageWrite(),
      body: { reject: 'subtask-0' },
    });
    expect(JSON.parse(bad.body).error.code).toBe('MIME_BAD_REQUEST');
  });

  it('refuses a run without a required param, naming it, before anything runs', async () => {
    for (const params of [{}, { song_name: '' }]) {
      const answer = await send('/api/workflows/play-song/runs', {
        method: 'POST',
        headers: pageWrite(),
        body: { mode: 'trace', params },
      });
      expect(answer.status, JSON.stringify(params)).toBe(400);
      const { error } = JSON.parse(answer.body);
      expect(error.code).toBe('MIME_PARAMS_INVALID');
      expect(error.message).toContain('missing: song_name');
    }
  });

  it('refuses a run in a mode there is not, naming the modes there are', async () => {
    for (const mode of ['fast', 7]) {
      const answer = await send('/api/workflows/play-song/runs', {
        method: 'POST',
        headers: pageWrite(),
        body: { mode, params: { song_name: 'Faint' } },
      });
      expect(answer.status).toBe(400);
      expect(JSON.parse(answer.body).error).toEqual({
        code: 'MIME_REPLAY_OPTION_INVALID',
        message: `mode must be one of agent, trace, auto, got ${JSON.stringify(mode)}`,
      });
    }
  });

  it('refuses a fresh start that is not true or false, or that the workflow has no setup for; has no run to watch or run again', async () => {
    const start = (body: unknown) =>
      send('/api/workflows/play-song/runs', { method: 'POST', headers: pageWrite(), body });
    const notBoolean = await start({ mode: 'trace', params: { song_name: 'Faint' }, fresh: 'yes' });
    expect(notBoolean.status).toBe(400);
    expect(JSON.parse(notBoolean.body).error.message).toBe('fresh must be true or false, got "yes"');
    const noSetup = await start({ mode: 'trace', params: { song_name: 'Faint' }, fresh: true });
    expect(noSetup.status).toBe(400);
    expect(JSON.parse(noSetup.body).error.message).toMatch(
      /^a fresh start needs the workflow's setup .* add one with mime edit/,
    );
    const live = await send('/api/workflows/play-song/live', { headers: { cookie } });
    expect(JSON.parse(live.body)).toEqual({ run: null });
    const again = await send('/api/runs/nope/rerun', { method: 'POST', headers: pageWrite(), body: {} });
    expect(again.status).toBe(409);
    expect(JSON.parse(again.body).error).toMatchObject({
      code: 'MIME_RUN_REFUSED',
      message: expect.stringContaining('no run nope in this studio'),
    });
  });

  it('reflects only a recording of the home, named by its folder', async () => {
    expect(JSON.parse((await send('/api/workflows', { headers: { cookie } })).body).recordings).toEqual([]);
    for (const id of ['nope', '..%2F..%2Fetc', '.hidden']) {
      const answer = await send(`/api/recordings/${id}/reflect`, {
        method: 'POST',
        headers: pageWrite(),
        body: { model: false },
      });
      expect(answer.status, id).toBe(404);
      expect(JSON.parse(answer.body).error.code).toBe('MIME_NOT_FOUND');
    }
    expect((await send('/api/reflects/nope/events', { headers: { cookie } })).status).toBe(404);
  });

  it("opens a workflow as ai_mime writes it, warned about, and saves it in ai_mime's layout without its stored secret", async () => {
    const dir = join(home, 'workflows', 'from-ai-mime');
    // Out of the shared home once done: the list the other tests read has the one workflow.
    onTestFinished(() => rm(dir, { recursive: true, force: true }));
    await mkdir(dir, { recursive: true });
    await copyFixture('compat/ai_mime/schema.v2.json', join(dir, 'schema.json'));
    const opened = JSON.parse((await send('/api/workflows/from-ai-mime', { headers: { cookie } })).body);
    expect(opened.warnings.map((w: { message: string }) => w.message).join('\n')).toMatch(
      /secret|sensitive/i,
    );
    expect(
      opened.workflow.plan.subtasks.map((s: { steps: Array<{ i: number }> }) => s.steps.map((x) => x.i)),
    ).toEqual([
      [0, 1, 2],
      [3, 4],
    ]);
    const listed = JSON.parse((await send('/api/workflows', { headers: { cookie } })).body);
    expect(listed.workflows.map((w: { id: string }) => w.id)).toContain('from-ai-mime');
    const saved = await send('/api/workflows/from-ai-mime', {
      method: 'PUT',
      headers: pageWrite(),
      body: { workflow: opened.workflow, version: opened.version },
    });
    expect(saved.status, saved.body).toBe(200);
    const after = await readFile(join(dir, 'schema.json'), 'utf8');
    const doc = JSON.parse(after);
    expect(doc.version).toBeUndefined();
    expect(aiMimeValidationError(doc)).toBeNull();
    expect(doc.plan.subtasks[1].steps[1]).toMatchObject({
      i: 1,
      action_value: 'extract_0',
      additional_args: { extract_query: 'the title of the song shown in the now-playing bar' },
    });
    expect(after).not.toContain('4821');
    expect((await loadWorkflow(dir)).warnings).toEqual([]);
  });

  it('duplicates a workflow under a new name, in a folder of its own, without its runs or backups', async () => {
    const original = join(home, 'workflows', 'play-song');
    // The shared home as it was once done: the other tests count its workflows and backups.
    const added = [
      join(original, '.replay'),
      join(original, 'schema.20261101T000000000Z.json'),
      join(home, 'workflows', 'play-song-fast'),
      join(home, 'workflows', 'play-song-fast-2'),
    ];
    onTestFinished(async () => {
      await Promise.all(added.map((path) => rm(path, { recursive: true, force: true })));
    });
    await mkdir(join(original, '.replay', '20261122T154259Z-e62b'), { recursive: true });
    await writeFile(join(original, 'schema.20261101T000000000Z.json'), '{}');
    const duplicate = (body: unknown) =>
      send('/api/workflows/play-song/duplicate', { method: 'POST', headers: pageWrite(), body });
    const first = await duplicate({ name: ' play song fast ' });
    expect(first.status, first.body).toBe(200);
    expect(JSON.parse(first.body)).toEqual({ id: 'play-song-fast' });
    expect(JSON.parse((await duplicate({ name: 'play song fast' })).body)).toEqual({
      id: 'play-song-fast-2',
    });
    const copy = join(home, 'workflows', 'play-song-fast');
    const names = await readdir(copy);
    expect(names).toEqual(expect.arrayContaining(['schema.json', 'manifest.jsonl', 'screenshots']));
    expect(names.filter((n) => n === '.replay' || /^schema\.\d/.test(n))).toEqual([]);
    expect((await loadWorkflow(copy)).workflow.task_name).toBe('play song fast');
    const listed = JSON.parse((await send('/api/workflows', { headers: { cookie } })).body);
    const copies = listed.workflows.filter((w: { id: string }) => w.id.startsWith('play-song-fast'));
    expect(copies.map((w: { id: string; name: string }) => [w.id, w.name]).sort()).toEqual([
      ['play-song-fast', 'play song fast'],
      ['play-song-fast-2', 'play song fast'],
    ]);
    const unnamed = await duplicate({ name: '  ' });
    expect([unnamed.status, JSON.parse(unnamed.body).error.message]).toEqual([
      400,
      'a copy needs a name: say how it differs',
    ]);
  });
});
