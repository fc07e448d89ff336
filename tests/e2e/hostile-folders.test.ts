/**
 * Shared folders made of links out, named pipes and /dev/zero, against every command that reads or
 * writes them (validate, list, edit, replay, report, heal, batch collect, reflect): each is refused
 * with its named error and exit 2 about as fast as the command starts (the same command on a missing
 * folder, timed beside it: on two busy cores start-up alone takes seconds), and nothing outside the
 * folders changes (the outside files' bytes and mtimes, and no new file there). `hostile-files` and
 * `bounded-inputs` cover paths inside the files and `schema.json` as a FIFO for validate, replay and list.
 */
import { execFileSync } from 'node:child_process';
import { cp, lstat, mkdir, readdir, readFile, rename, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { copyFixture, copyWorkflow, useDesktop, useTempDirs } from '@mime-desktop/test-support/e2e-rig';
import { type FakeModelServer, startFakeModelServer } from '@mime-desktop/test-support/fake-model-server';
import { reflectModel } from '@mime-desktop/test-support/fake-reflect-model';
import { MIME_BIN, REPO_ROOT, runMime, startMime } from '@mime-desktop/test-support/run-mime';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';

const desktop = useDesktop({ app: false });
const fileTempDir = useTempDirs();
const SESSION = '20261122T145700Z-play-song';
const RUN = '20261122T101500Z-a1b2';

let server: FakeModelServer;
beforeAll(async () => {
  server = await startFakeModelServer({ models: ['vision-1'] });
  server.setHandler(reflectModel());
});
afterAll(async () => {
  await server?.close();
});

let home: string;
let outside: string;
const wf = () => join(home, 'workflows', 'wf');
const run = () => join(wf(), '.replay', RUN);
const session = () => join(home, 'recordings', SESSION);

beforeEach(async () => {
  home = await fileTempDir('mime-hostile-home-');
  outside = await fileTempDir('mime-hostile-outside-');
  await copyWorkflow('play-song-recorded', undefined, { as: 'wf', into: join(home, 'workflows') });
  await copyFixture('runs/play-song-replan', run());
  await copyFixture('recordings/play-song', session());
  // What a link out would reach: a valid workflow (so only the link can be the reason to refuse).
  await cp(join(wf(), 'schema.json'), join(outside, 'schema.json'));
  await cp(join(wf(), 'manifest.jsonl'), join(outside, 'manifest.jsonl'));
  await writeFile(join(outside, 'page.html'), '<p>not mime</p>\n');
  await mkdir(join(outside, 'runs'));
});

/** Every file under `dir` with its bytes and mtime: what "nothing written outside" compares. */
async function snapshot(dir: string): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  for (const name of await readdir(dir, { recursive: true })) {
    const path = join(dir, name);
    const info = await lstat(path);
    files[name] = info.isFile()
      ? `${info.mtimeMs} ${await readFile(path, 'base64')}`
      : info.isDirectory()
        ? 'dir'
        : 'other';
  }
  return files;
}

/** `from` (in a shared folder) replaced by a link to `to`, a named pipe, or a link to /dev/zero. */
async function replace(from: string, by: { link: string } | 'fifo' | 'zero'): Promise<void> {
  await rm(from, { recursive: true, force: true });
  if (by === 'fifo') execFileSync('mkfifo', [from]);
  else await symlink(by === 'zero' ? '/dev/zero' : by.link, from);
}

const env = () => ({
  DISPLAY: desktop().display,
  MIME_BASE_URL: server.url,
  MIME_MODEL: 'vision-1',
  EDITOR: `${process.execPath} ${join(REPO_ROOT, 'tests', 'support', 'fake-editor.mjs')}`,
  VISUAL: '',
  FAKE_EDITOR_PLAN: join(home, 'edit-plan.json'),
});

/**
 * Runs `mime ...args`, and the same command on a home that does not exist (it loads the same modules,
 * then stops at once); the refusal's time beyond that start-up, ms.
 */
async function refused(args: string[]) {
  const missing = performance.now();
  await runMime(
    args.map((arg) => arg.replace(home, `${home}-missing`)),
    { env: env() },
  );
  const startup = performance.now() - missing;
  const started = performance.now();
  const result = await runMime(args, { env: env() });
  return { ...result, ms: performance.now() - started, startup };
}

interface Case {
  name: string;
  make: () => Promise<void>;
  args: () => string[];
  says: RegExp;
}

const cases: Case[] = [
  {
    name: 'validate: schema.json links out of the workflow',
    make: () => replace(join(wf(), 'schema.json'), { link: join(outside, 'schema.json') }),
    args: () => ['validate', wf()],
    says: /MIME_UNSAFE_PATH.*resolves to .*outside/,
  },
  {
    name: 'edit: schema.json links out of the workflow',
    make: () => replace(join(wf(), 'schema.json'), { link: join(outside, 'schema.json') }),
    args: () => ['edit', wf()],
    says: /MIME_UNSAFE_PATH.*resolves to .*outside/,
  },
  {
    name: 'replay: schema.json links out of the workflow',
    make: () => replace(join(wf(), 'schema.json'), { link: join(outside, 'schema.json') }),
    args: () => ['replay', wf(), '--mode', 'trace', '--param', 'song_name=Numb'],
    says: /MIME_UNSAFE_PATH.*resolves to .*outside/,
  },
  {
    name: 'replay: manifest.jsonl is a named pipe',
    make: () => replace(join(wf(), 'manifest.jsonl'), 'fifo'),
    args: () => ['replay', wf(), '--mode', 'trace', '--param', 'song_name=Numb'],
    says: /manifest\.jsonl: is a named pipe \(FIFO\), not a regular file/,
  },
  {
    name: 'replay: manifest.jsonl links to /dev/zero',
    make: () => replace(join(wf(), 'manifest.jsonl'), 'zero'),
    args: () => ['replay', wf(), '--mode', 'trace', '--param', 'song_name=Numb'],
    says: /manifest\.jsonl: is a device, not a regular file/,
  },
  {
    name: 'replay: manifest.jsonl links out of the workflow',
    make: () => replace(join(wf(), 'manifest.jsonl'), { link: join(outside, 'manifest.jsonl') }),
    args: () => ['replay', wf(), '--mode', 'trace', '--param', 'song_name=Numb'],
    says: /MIME_UNSAFE_PATH.*manifest\.jsonl.*outside/,
  },
  {
    name: 'replay: .replay links out of the workflow',
    make: () => replace(join(wf(), '.replay'), { link: join(outside, 'runs') }),
    args: () => ['replay', wf(), '--mode', 'trace', '--param', 'song_name=Numb'],
    says: /MIME_UNSAFE_PATH.*\.replay is a symbolic link; mime never writes through a link/,
  },
  {
    name: 'report: report.html links out of the run',
    make: () => replace(join(run(), 'report.html'), { link: join(outside, 'page.html') }),
    args: () => ['report', run()],
    says: /MIME_UNSAFE_PATH.*report\.html is a symbolic link/,
  },
  {
    name: 'report: events.jsonl is a named pipe',
    make: () => replace(join(run(), 'events.jsonl'), 'fifo'),
    args: () => ['report', run()],
    says: /events\.jsonl: is a named pipe \(FIFO\), not a regular file/,
  },
  {
    name: 'report: summary.json links to /dev/zero',
    make: () => replace(join(run(), 'summary.json'), 'zero'),
    args: () => ['report', run()],
    says: /summary\.json: is a device, not a regular file/,
  },
  {
    name: 'heal: heal.json links to /dev/zero',
    make: () => replace(join(run(), 'heal.json'), 'zero'),
    args: () => ['heal', run()],
    says: /heal\.json: is a device, not a regular file/,
  },
  {
    name: 'heal: heal.json is a named pipe',
    make: () => replace(join(run(), 'heal.json'), 'fifo'),
    args: () => ['heal', run()],
    says: /heal\.json: is a named pipe \(FIFO\), not a regular file/,
  },
  {
    name: 'heal: heal.json has a key twice',
    make: () => writeFile(join(run(), 'heal.json'), '{"version": 1, "version": 2}\n'),
    args: () => ['heal', run()],
    says: /MIME_INVALID_JSON.*heal\.json:1:16: .*the key "version" appears twice/,
  },
  {
    name: 'batch collect: a row folder links out of the batch',
    make: async () => {
      await mkdir(join(outside, 'row-1'));
      await writeFile(join(outside, 'row-1', 'row.json'), '{}\n');
      await mkdir(join(home, 'batch'));
      await symlink(join(outside, 'row-1'), join(home, 'batch', 'row-1'));
    },
    args: () => ['batch', 'collect', join(home, 'batch')],
    says: /MIME_UNSAFE_PATH.*row-1 is a symbolic link; a batch reads only its own row folders/,
  },
  {
    name: 'reflect: the recording manifest is a named pipe',
    make: () => replace(join(session(), 'manifest.jsonl'), 'fifo'),
    args: () => ['reflect', '--session', SESSION, '--home', home],
    says: /manifest\.jsonl: is a named pipe \(FIFO\), not a regular file/,
  },
  {
    name: 'reflect --force: the workflow folder links out of the home',
    make: async () => {
      await mkdir(join(outside, 'wf'));
      await symlink(join(outside, 'wf'), join(home, 'workflows', SESSION));
    },
    args: () => ['reflect', '--session', SESSION, '--home', home, '--force'],
    says: new RegExp(`MIME_UNSAFE_PATH.*${SESSION} is a symbolic link`),
  },
];

describe('every command refuses links out, named pipes and /dev/zero at once, writing nothing outside', () => {
  it.each(cases)('$name', { timeout: 60_000 }, async ({ make, args, says }) => {
    await make();
    const before = await snapshot(outside);
    const result = await refused(args());
    expect(result.exitCode, result.stderr).toBe(2);
    expect(result.stderr.replace(/\n\s*/g, ' ')).toMatch(says);
    expect(result.stderr).not.toMatch(/internal error/);
    // A reader that waits on the pipe never ends and one that reads /dev/zero runs for minutes: both are
    // far past this bound, which also holds when start-up alone varies by seconds (two test files at a
    // time on two cores: the command's own start-up, measured just before, can double).
    expect(result.ms).toBeLessThan(result.startup * 3 + 5000);
    expect(await snapshot(outside)).toEqual(before);
    expect(server.chatRequests()).toHaveLength(0);
  });

  it('edit never writes through a schema.json that links inside the folder', {
    timeout: 60_000,
  }, async () => {
    await rename(join(wf(), 'schema.json'), join(wf(), 'schema.real.json'));
    await symlink('schema.real.json', join(wf(), 'schema.json'));
    const before = await readFile(join(wf(), 'schema.real.json'), 'utf8');
    await writeFile(
      env().FAKE_EDITOR_PLAN,
      JSON.stringify([{ set: { path: ['task_name'], value: 'changed' } }]),
    );
    const result = await runMime(['edit', wf()], { env: env() });
    expect(result.exitCode, result.stderr).toBe(2);
    expect(result.stderr).toMatch(
      /MIME_UNSAFE_PATH.*schema\.json is a symbolic link; mime never writes through a link/,
    );
    expect(await readFile(join(wf(), 'schema.real.json'), 'utf8')).toBe(before);
    expect((await lstat(join(wf(), 'schema.json'))).isSymbolicLink()).toBe(true);
  });

  it('list shows a workflow whose schema.json links out as invalid, naming why', async () => {
    await replace(join(wf(), 'schema.json'), { link: join(outside, 'schema.json') });
    const listed = await runMime(['list', '--json', '--home', home]);
    expect(listed.exitCode, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout).workflows[0]).toMatchObject({
      state: 'invalid',
      problem: expect.stringMatching(/resolves to .*outside/),
    });
    expect((await stat(join(outside, 'schema.json'))).isFile()).toBe(true);
  });
});

/** A workflow of the home made hostile: its schema.json replaced. */
async function hostileWorkflow(name: string, by: { link: string } | 'fifo' | 'zero'): Promise<string> {
  const dir = await copyWorkflow('play-song-recorded', undefined, {
    as: name,
    into: join(home, 'workflows'),
  });
  await replace(join(dir, 'schema.json'), by);
  return dir;
}

describe('the studio answers every route at once on hostile workflows, writing nothing through a link', () => {
  it('refuses a FIFO, /dev/zero and a link out by name, five at a time, and saves neither through a link nor with a key twice', {
    timeout: 120_000,
  }, async () => {
    await hostileWorkflow('fifo', 'fifo');
    await hostileWorkflow('zero', 'zero');
    await hostileWorkflow('out', { link: join(outside, 'schema.json') });
    const inlink = await copyWorkflow('play-song-recorded', undefined, {
      as: 'inlink',
      into: join(home, 'workflows'),
    });
    await rename(join(inlink, 'schema.json'), join(inlink, 'schema.real.json'));
    await symlink('schema.real.json', join(inlink, 'schema.json'));
    const before = await snapshot(outside);
    const studio = startMime(['studio', '--home', home]);
    try {
      const url = new URL(await studio.waitForStdoutLine());
      const token = url.searchParams.get('token') ?? '';
      const call = async (path: string, init: RequestInit = {}) => {
        const started = performance.now();
        const response = await fetch(new URL(path, url.origin), {
          ...init,
          headers: { 'x-mime-token': token, origin: url.origin, 'x-mime-studio': '1', ...init.headers },
        });
        const body = (await response.json()) as { error?: { code: string; message: string } } & Record<
          string,
          unknown
        >;
        return { status: response.status, body, ms: performance.now() - started };
      };
      const answers = await Promise.all([
        ...Array.from({ length: 5 }, () => call('/api/workflows/fifo')),
        call('/api/workflows/zero'),
        call('/api/workflows/out'),
      ]);
      for (const answer of answers) {
        expect(answer.status).toBe(400);
        expect(answer.ms).toBeLessThan(1000);
      }
      expect(answers[0]?.body.error?.message).toMatch(/is a named pipe \(FIFO\), not a regular file/);
      expect(answers[5]?.body.error?.message).toMatch(/is a device, not a regular file/);
      expect(answers[6]?.body.error).toMatchObject({
        code: 'MIME_UNSAFE_PATH',
        message: expect.stringMatching(/outside/),
      });
      // Every other route still answers.
      const list = await call('/api/workflows');
      expect(list.status).toBe(200);
      expect(list.ms).toBeLessThan(1000);

      const opened = await call('/api/workflows/inlink');
      expect(opened.status).toBe(200);
      const real = await readFile(join(inlink, 'schema.real.json'), 'utf8');
      const saved = await call('/api/workflows/inlink', {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          workflow: { ...(opened.body.workflow as object), task_name: 'changed' },
          version: opened.body.version,
        }),
      });
      expect(saved.status).toBe(400);
      expect(saved.body.error).toMatchObject({
        code: 'MIME_UNSAFE_PATH',
        message: expect.stringMatching(/schema\.json is a symbolic link; mime never writes through a link/),
      });
      expect(await readFile(join(inlink, 'schema.real.json'), 'utf8')).toBe(real);

      const good = await call('/api/workflows/wf');
      const text = JSON.stringify({ workflow: good.body.workflow, version: good.body.version });
      expect(text).toContain('"sensitive":false');
      const twice = await call('/api/workflows/wf', {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: text.replace('"sensitive":false', '"sensitive":true,"sensitive":false'),
      });
      expect(twice.status).toBe(400);
      expect(twice.body.error).toMatchObject({
        code: 'MIME_INVALID_JSON',
        message: expect.stringMatching(/the key "sensitive" appears twice/),
      });
      expect(await readdir(wf())).not.toContainEqual(expect.stringMatching(/^schema\.\d+/));
    } finally {
      studio.kill('SIGTERM');
      expect((await studio.done).exitCode).toBe(0);
    }
    expect(await snapshot(outside)).toEqual(before);
  });
});

describe('MCP get_run and resources answer at once on hostile runs', () => {
  it('names a FIFO events.jsonl, a /dev/zero summary and a link out, five calls at a time, and keeps serving', {
    timeout: 120_000,
  }, async () => {
    const fifo = run();
    await replace(join(fifo, 'events.jsonl'), 'fifo');
    const zero = join(wf(), '.replay', '20261122T101600Z-b2c3');
    await copyFixture('runs/play-song-replan', zero);
    await replace(join(zero, 'summary.json'), 'zero');
    const out = join(wf(), '.replay', '20261122T101700Z-c3d4');
    await copyFixture('runs/play-song-replan', out);
    await cp(join(out, 'summary.json'), join(outside, 'summary.json'));
    await replace(join(out, 'summary.json'), { link: join(outside, 'summary.json') });
    const before = await snapshot(outside);
    const client = new Client({ name: 'mime-hostile', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [MIME_BIN, 'mcp', '--home', home],
        env: { ...(process.env as Record<string, string>), DISPLAY: desktop().display, NO_COLOR: '1' },
        stderr: 'pipe',
      }),
    );
    try {
      const getRun = async (id: string) => {
        const started = performance.now();
        const result = (await client.callTool({ name: 'get_run', arguments: { run: id } })) as CallToolResult;
        const said = result.content.flatMap((c) => (c.type === 'text' ? [c.text] : [])).join('\n');
        return { isError: result.isError, said, ms: performance.now() - started };
      };
      const answers = await Promise.all([
        ...Array.from({ length: 5 }, () => getRun(`wf/${RUN}`)),
        getRun('wf/20261122T101600Z-b2c3'),
        getRun('wf/20261122T101700Z-c3d4'),
      ]);
      for (const answer of answers) {
        expect(answer.isError).toBe(true);
        expect(answer.ms).toBeLessThan(1000);
      }
      expect(answers[0]?.said).toMatch(/events\.jsonl: is a named pipe \(FIFO\), not a regular file/);
      expect(answers[5]?.said).toMatch(/summary\.json: is a device, not a regular file/);
      expect(answers[6]?.said).toMatch(/MIME_UNSAFE_PATH[\s\S]*outside/);
      await expect(
        client.readResource({ uri: 'mime://workflows/wf/runs/20261122T101700Z-c3d4/summary.json' }),
      ).rejects.toThrow(/outside/);
      expect((await client.listTools()).tools.map((t) => t.name)).toContain('get_run');
    } finally {
      await client.close();
    }
    expect(await snapshot(outside)).toEqual(before);
  });
});
