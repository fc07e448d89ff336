/**
 * `mime mcp` driven by the official MCP SDK's own client, over stdio and over Streamable HTTP: the
 * demo workflow is a tool, a call replays it under Xvfb with a new song and returns the extract,
 * progress arrives per step, a second concurrent replay is refused as busy, a cancelled call leaves
 * an aborted run, the tool list follows the disk, and HTTP refuses a missing token or a foreign Origin.
 * (`mime export skill` is in export-skill.test.ts.)
 */
import { readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { Agent, request } from 'node:http';
import { join } from 'node:path';
import { copyWorkflow, useDesktop, useTempDirs } from '@mime-desktop/test-support/e2e-rig';
import { MIME_BIN, startMime } from '@mime-desktop/test-support/run-mime';
import { sleep } from '@mime-desktop/test-support/wait';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  type CallToolResult,
  CallToolResultSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const desktop = useDesktop();
const fileTempDir = useTempDirs();

let home: string;

const env = () => ({
  ...(process.env as Record<string, string>),
  DISPLAY: desktop().display,
  NO_COLOR: '1',
  MIME_BASE_URL: '',
  MIME_MODEL: '',
  XDG_CONFIG_HOME: join(home, 'no-config'),
});

beforeAll(async () => {
  home = await fileTempDir('mime-mcp-');
  await copyWorkflow('play-song-recorded', undefined, { as: 'play-song', into: join(home, 'workflows') });
}, 60_000);

const text = (result: CallToolResult) =>
  result.content.flatMap((c) => (c.type === 'text' ? [c.text] : [])).join('\n');

async function runsOf(): Promise<string[]> {
  return (await readdir(join(home, 'workflows', 'play-song', '.replay')).catch(() => [] as string[])).sort();
}

describe('mime mcp over stdio', () => {
  let client: Client;
  beforeAll(async () => {
    client = new Client({ name: 'mime-test', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [MIME_BIN, 'mcp', '--home', home],
        env: env(),
        stderr: 'pipe',
      }),
    );
  }, 60_000);
  afterAll(async () => {
    await client?.close();
  });

  it('lists the demo workflow as a tool with its param, beside the generic tools', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([
      'get_run',
      'list_workflows',
      'play_song',
      'replay',
      'validate',
    ]);
    const play = tools.find((t) => t.name === 'play_song');
    expect(play?.description).toMatch(/^Search the demo player for a song and play it\.\nSucceeds when: /);
    // The params in a namespace of their own, required: the recorded example is a hint, never a value.
    expect(play?.inputSchema.properties).toMatchObject({
      params: {
        type: 'object',
        properties: {
          song_name: { type: 'string', description: expect.stringContaining('(recorded: "Numb")') },
        },
        required: ['song_name'],
      },
      mode: { enum: ['auto', 'trace', 'agent'] },
    });
    expect(play?.inputSchema.required).toEqual(['params']);
    expect(play?.outputSchema?.properties).toHaveProperty('extracts');
  });

  it('replays it with a new song: progress per step, the outcome, the extract and the final screen', async () => {
    await desktop().resetApp();
    const progress: string[] = [];
    const result = (await client.callTool(
      { name: 'play_song', arguments: { params: { song_name: 'Faint' } } },
      CallToolResultSchema,
      {
        onprogress: (p) => progress.push(`${p.progress}/${p.total} ${p.message}`),
        timeout: 120_000,
      },
    )) as CallToolResult;
    expect(result.isError, text(result)).toBe(false);
    expect(result.structuredContent).toMatchObject({
      outcome: 'success',
      code: null,
      extracts: { song_now_playing: 'Faint' },
      model_calls: 0,
    });
    expect(result.content.find((c) => c.type === 'image')).toMatchObject({ mimeType: 'image/png' });
    expect(progress[0]).toBe('1/5 step 1 trace: left_click at (240, 120) (subtask 1/2)');
    expect(progress.map((p) => p.split(' ')[0])).toEqual(['1/5', '2/5', '3/5', '4/5', '5/5']);
    expect((await desktop().readAppState()).playing).toBe('Faint');

    const runId = String(result.structuredContent?.run_id);
    const run = (await client.callTool({ name: 'get_run', arguments: { run: runId } })) as CallToolResult;
    expect(run.structuredContent).toMatchObject({
      outcome: 'success',
      extracts: { song_now_playing: 'Faint' },
    });
    expect((run.structuredContent?.verified as unknown[] | undefined)?.length).toBeGreaterThan(0);
    const resource = await client.readResource({
      uri: `mime://workflows/play-song/runs/${runId}/summary.json`,
    });
    const [content] = resource.contents;
    expect(JSON.parse(content && 'text' in content ? content.text : '')).toMatchObject({
      run_id: runId,
      outcome: 'success',
    });
  });

  it('says a failure as a tool error naming the code, not a transport error', async () => {
    const unknown = (await client.callTool({
      name: 'replay',
      arguments: { workflow: 'nope' },
    })) as CallToolResult;
    expect(unknown.isError).toBe(true);
    expect(text(unknown)).toMatch(
      /^\[MIME_NOT_FOUND\] no workflow "nope" under the data root; known: play-song/,
    );
    const valid = (await client.callTool({
      name: 'validate',
      arguments: { workflow: 'play_song' },
    })) as CallToolResult;
    expect(valid.structuredContent).toMatchObject({ valid: true, problems: [] });
  });

  it('refuses a call without a required param, naming it, and replays nothing', async () => {
    const before = await runsOf();
    for (const args of [{}, { params: {} }, { mode: 'trace' }]) {
      const refused = await client.callTool({ name: 'play_song', arguments: args }).then(
        (r) => ({ isError: (r as CallToolResult).isError, text: text(r as CallToolResult) }),
        (error: unknown) => ({ isError: true, text: String(error) }),
      );
      expect(refused.isError, JSON.stringify(args)).toBe(true);
      expect(refused.text).toContain('song_name');
    }
    const generic = (await client.callTool({
      name: 'replay',
      arguments: { workflow: 'play-song', params: {} },
    })) as CallToolResult;
    expect(generic.isError).toBe(true);
    expect(text(generic)).toMatch(/^\[MIME_PARAMS_INVALID\] [\s\S]*missing: song_name/);
    expect(await runsOf()).toEqual(before);
  });

  it("gives a param named mode to the workflow, apart from the replay's own mode", async () => {
    const dir = await copyWorkflow(
      'play-song-recorded',
      (schema) => {
        const renamed = JSON.parse(JSON.stringify(schema).replaceAll('{song_name}', '{mode}'));
        Object.assign(schema, renamed, { task_name: 'play by mode' });
        schema.task_params[0].name = 'mode';
      },
      { as: 'by-mode', into: join(home, 'workflows') },
    );
    try {
      for (
        let i = 0;
        i < 100 && !(await client.listTools()).tools.some((t) => t.name === 'play_by_mode');
        i += 1
      ) {
        await sleep(100);
      }
      await desktop().resetApp();
      const result = (await client.callTool(
        { name: 'play_by_mode', arguments: { params: { mode: 'Faint' }, mode: 'trace' } },
        CallToolResultSchema,
        { timeout: 120_000 },
      )) as CallToolResult;
      expect(result.structuredContent, text(result)).toMatchObject({
        outcome: 'success',
        extracts: { song_now_playing: 'Faint' },
      });
      expect((await desktop().readAppState()).playing).toBe('Faint');
      const summary = JSON.parse(
        await readFile(join(String(result.structuredContent?.run_dir), 'summary.json'), 'utf8'),
      );
      expect(summary).toMatchObject({ mode: 'trace', params: { mode: 'Faint' } });
    } finally {
      await rm(dir, { recursive: true });
      // Gone from the list before the next test counts notifications.
      for (
        let i = 0;
        i < 100 && (await client.listTools()).tools.some((t) => t.name === 'play_by_mode');
        i += 1
      ) {
        await sleep(100);
      }
    }
  });

  it('sends one list_changed for ten workflows added at once', async () => {
    let changes = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      changes += 1;
    });
    const staging = await fileTempDir('mime-mcp-burst-');
    for (let i = 0; i < 10; i += 1) {
      await copyWorkflow(
        'play-song-recorded',
        (schema) => Object.assign(schema, { task_name: `burst ${i}` }),
        {
          as: `burst-${i}`,
          into: staging,
        },
      );
    }
    // Moved in one after another as fast as the disk allows: a burst.
    for (let i = 0; i < 10; i += 1)
      await rename(join(staging, `burst-${i}`), join(home, 'workflows', `burst-${i}`));
    const listed = async () =>
      (await client.listTools()).tools.filter((t) => t.name.startsWith('burst_')).length;
    for (let i = 0; i < 100 && (changes === 0 || (await listed()) < 10); i += 1) {
      await sleep(100);
    }
    expect(await listed()).toBe(10);
    // The next change is the next notification: had the burst sent a second one, it came before it.
    for (let i = 0; i < 10; i += 1) await rm(join(home, 'workflows', `burst-${i}`), { recursive: true });
    for (let i = 0; i < 100 && (changes < 2 || (await listed()) > 0); i += 1) {
      await sleep(100);
    }
    expect(await listed()).toBe(0);
    expect(changes).toBe(2);
  });

  it('updates the tool list when a workflow is added or removed on disk', async () => {
    let changes = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      changes += 1;
    });
    const copy = await copyWorkflow('play-song-recorded', undefined, {
      as: 'play-song-copy',
      into: join(home, 'workflows'),
    });
    const schema = JSON.parse(await readFile(join(copy, 'schema.json'), 'utf8'));
    schema.task_name = 'log in';
    schema.task_params.push({
      name: 'password',
      type: 'string',
      description: 'the password',
      example: null,
      sensitive: true,
    });
    await writeFile(join(copy, 'schema.json'), JSON.stringify(schema));
    for (let i = 0; i < 60 && changes === 0; i += 1) await sleep(100);
    expect(changes).toBeGreaterThan(0);
    const login = (await client.listTools()).tools.find((t) => t.name === 'log_in');
    // A sensitive param is never an argument: it comes from the server's environment.
    expect(Object.keys(login?.inputSchema.properties ?? {})).not.toContain('password');
    expect(login?.description).toContain('password comes from MIME_PARAM_PASSWORD');
    await rm(copy, { recursive: true });
    for (let i = 0; i < 60 && (await client.listTools()).tools.some((t) => t.name === 'log_in'); i += 1) {
      await sleep(100);
    }
    expect((await client.listTools()).tools.map((t) => t.name)).not.toContain('log_in');
  });
});

describe('mime mcp --http', () => {
  let server: ReturnType<typeof startMime>;
  let url: URL;
  let token: string;
  const connect = async (headers: Record<string, string>) => {
    const client = new Client({ name: 'mime-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers } }));
    return client;
  };

  beforeAll(async () => {
    server = startMime(['mcp', '--http', '--home', home], { env: env() });
    const line = await server.waitForStderr(/token: (\S+)/);
    url = new URL(/on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(line)?.[1] ?? '');
    token = /token: (\S+)/.exec(line)?.[1] ?? '';
  }, 60_000);
  afterAll(async () => {
    server?.kill('SIGTERM');
    await server?.done;
  });

  it('refuses a client without the token, or from a foreign Origin', async () => {
    await expect(connect({})).rejects.toThrow(/401|bearer token/i);
    await expect(
      connect({ Authorization: `Bearer ${token}`, Origin: 'http://evil.example' }),
    ).rejects.toThrow(/403|Invalid Origin/);
  });

  it('answers a body over the limit 413 "too large" on a connection it keeps, and bad JSON 400', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const post = (body: Buffer | string) =>
      new Promise<{ status: number; text: string; socket: unknown }>((resolve, reject) => {
        const req = request(
          url,
          {
            method: 'POST',
            agent,
            headers: {
              authorization: `Bearer ${token}`,
              'content-type': 'application/json',
              accept: 'application/json, text/event-stream',
            },
          },
          (res) => {
            let text = '';
            res.on('data', (chunk) => {
              text += chunk;
            });
            res.on('end', () => resolve({ status: res.statusCode ?? 0, text, socket: req.socket }));
          },
        );
        req.on('error', reject);
        req.end(body);
      });
    try {
      const big = await post(Buffer.alloc(5 * 1024 * 1024, 0x20));
      expect(big.status).toBe(413);
      expect(big.text).toMatch(/the request body is too large: mime reads at most 4194304 bytes a message/);
      const bad = await post('{"jsonrpc": ');
      expect(bad.status).toBe(400);
      expect(bad.text).toMatch(/Parse error: the body is not JSON/);
      // The same connection served both.
      expect(bad.socket).toBe(big.socket);
    } finally {
      agent.destroy();
    }
  });

  it('closes a session left idle (--session-idle): its next request is 404, and a new session works', async () => {
    const idle = startMime(['mcp', '--http', '--session-idle', '1', '--home', home], { env: env() });
    try {
      const line = await idle.waitForStderr(/token: (\S+)/);
      const at = /on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(line)?.[1] ?? '';
      const headers = {
        authorization: `Bearer ${/token: (\S+)/.exec(line)?.[1]}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      };
      const rpc = (method: string, session?: string) =>
        fetch(at, {
          method: 'POST',
          headers: session
            ? { ...headers, 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' }
            : headers,
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: 1,
            method,
            params:
              method === 'initialize'
                ? {
                    protocolVersion: '2025-06-18',
                    capabilities: {},
                    clientInfo: { name: 'left', version: '1' },
                  }
                : {},
          }),
        });
      // A client that opens a session and walks away (no stream left open, never a DELETE).
      const opened = await rpc('initialize');
      expect(opened.status).toBe(200);
      const session = opened.headers.get('mcp-session-id') ?? '';
      await opened.text();
      const used = await rpc('tools/list', session);
      expect(used.status).toBe(200);
      await used.text();
      // The behaviour is about time itself: past the idle time and a sweep, with no request meanwhile.
      await sleep(2500);
      const expired = await rpc('tools/list', session);
      expect(expired.status).toBe(404);
      expect(await expired.text()).toMatch(/Session not found: it ended or expired; initialize a new one/);
      const again = await rpc('initialize');
      expect(again.status).toBe(200);
      await again.text();
    } finally {
      idle.kill('SIGTERM');
      expect((await idle.done).exitCode).toBe(0);
    }
  });

  it('replays over HTTP; a second replay meanwhile is busy; a cancelled one ends aborted', async () => {
    await desktop().resetApp();
    const first = await connect({ Authorization: `Bearer ${token}` });
    const second = await connect({ Authorization: `Bearer ${token}` });
    try {
      const before = await runsOf();
      let started!: () => void;
      const running = new Promise<void>((resolve) => {
        started = resolve;
      });
      const abort = new AbortController();
      const cancelled = first
        .callTool(
          { name: 'play_song', arguments: { params: { song_name: 'Yellow' } } },
          CallToolResultSchema,
          {
            onprogress: () => started(),
            signal: abort.signal,
            timeout: 120_000,
          },
        )
        .catch((error: unknown) => error);
      await running;
      const busy = (await second.callTool({
        name: 'play_song',
        arguments: { params: { song_name: 'Numb' } },
      })) as CallToolResult;
      expect(busy.isError).toBe(true);
      expect(text(busy)).toMatch(
        /^\[MIME_DESKTOP_BUSY\] the desktop is busy: workflow "play song" is replaying/,
      );
      abort.abort('the test cancels it');
      expect(await cancelled).toBeInstanceOf(Error);
      // The run ends as Ctrl+C ends it: its summary says aborted.
      let summary: { outcome?: string } = {};
      for (let i = 0; i < 100 && summary.outcome === undefined; i += 1) {
        const [run] = (await runsOf()).filter((r) => !before.includes(r));
        summary = JSON.parse(
          await readFile(
            join(home, 'workflows', 'play-song', '.replay', String(run), 'summary.json'),
            'utf8',
          ).catch(() => '{}'),
        );
        await sleep(100);
      }
      expect(summary.outcome).toBe('aborted');

      await desktop().resetApp();
      const result = (await second.callTool(
        { name: 'play_song', arguments: { params: { song_name: 'Numb' } } },
        CallToolResultSchema,
        {
          timeout: 120_000,
        },
      )) as CallToolResult;
      expect(result.structuredContent).toMatchObject({
        outcome: 'success',
        extracts: { song_now_playing: 'Numb' },
      });
    } finally {
      await first.close();
      await second.close();
    }
  });
});
