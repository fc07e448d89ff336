/**
 * The MCP server with the SDK's own client, in memory (no desktop: nothing here replays): a workflow's
 * params are a namespace of their own, required unless optional or defaulted, and a call without one
 * is refused naming it before the desktop is asked for; HTTP sessions left idle end and free their server.
 */
import { join } from 'node:path';
import { copyWorkflow, useTestDir } from '@mime-desktop/test-support/e2e-rig';
import {
  endedProcess,
  liveProcess,
  runStartLine,
  writeUnfinishedRun,
} from '@mime-desktop/test-support/unfinished-run';
import { waitUntil } from '@mime-desktop/test-support/wait';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WorkflowCatalog } from '../src/catalog.ts';
import { DesktopLock } from '../src/desktop-lock.ts';
import { serveHttp } from '../src/http.ts';
import { MimeMcpServer } from '../src/server.ts';

const testDir = useTestDir('mime-mcp-server-');
let home: string;
let catalog: WorkflowCatalog;
/** Replays asked of the desktop: none may be when a call is refused. */
let replays: string[];

beforeEach(async () => {
  home = testDir();
  await copyWorkflow(
    'play-song',
    (schema) => {
      schema.task_name = 'play song';
      schema.task_params.push(
        { name: 'mode', description: 'a param named as an option', example: 'loud' },
        { name: 'volume', example: '5', default: '3' },
        { name: 'note', example: 'hi', optional: true },
      );
    },
    { into: join(home, 'workflows'), as: 'song' },
  );
  catalog = new WorkflowCatalog({ home });
  await catalog.start();
  replays = [];
});
// Registered after the rig's hook, so it runs before the folder is removed.
afterEach(() => {
  catalog.stop();
});

/** A lock that records what asks for the desktop and runs nothing. */
class RecordingLock extends DesktopLock {
  override async run<T>(what: string): Promise<T> {
    replays.push(what);
    throw new Error('no desktop in this test');
  }
}

const newServer = () =>
  new MimeMcpServer({
    catalog,
    version: '0.0.0',
    replay: { lock: new RecordingLock({ queue: false }), queue: false, env: {}, runSetup: false },
  });

async function connected(): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await newServer().server.connect(serverSide);
  const client = new Client({ name: 'test', version: '1' });
  await client.connect(clientSide);
  return client;
}

const text = (result: CallToolResult) =>
  result.content.flatMap((c) => (c.type === 'text' ? [c.text] : [])).join('\n');

describe("a workflow tool's input", () => {
  it('holds the params under `params`: required unless optional or defaulted, apart from the options', async () => {
    const client = await connected();
    const tool = (await client.listTools()).tools.find((t) => t.name === 'play_song');
    expect(tool?.inputSchema.required).toEqual(['params']);
    const params = tool?.inputSchema.properties?.params as { required?: string[]; properties?: object };
    expect(params.required).toEqual(['song_name', 'mode']);
    expect(Object.keys(params.properties ?? {})).toEqual(['song_name', 'mode', 'volume', 'note']);
    expect(tool?.inputSchema.properties?.mode).toMatchObject({ enum: ['auto', 'trace', 'agent'] });
    await client.close();
  });

  it('refuses a call without a required param, naming it, and never asks for the desktop', async () => {
    const client = await connected();
    for (const args of [{}, { params: {} }, { params: { song_name: 'Faint' } }, { mode: 'trace' }]) {
      const result = (await client.callTool({ name: 'play_song', arguments: args })) as CallToolResult;
      expect(result.isError, JSON.stringify(args)).toBe(true);
      expect(text(result), JSON.stringify(args)).toMatch(/mode|song_name/);
    }
    const none = (await client.callTool({ name: 'play_song', arguments: { params: {} } })) as CallToolResult;
    expect(text(none)).toContain('song_name');
    const generic = (await client.callTool({
      name: 'replay',
      arguments: { workflow: 'song', params: { song_name: 'Faint' } },
    })) as CallToolResult;
    expect(text(generic)).toMatch(/^\[MIME_PARAMS_INVALID\] [\s\S]*missing: mode\b/);
    expect(replays).toEqual([]);
    // With every required param (mode among them, beside the option mode), the desktop is asked for.
    const given = (await client.callTool({
      name: 'play_song',
      arguments: { params: { song_name: 'Faint', mode: 'loud' }, mode: 'trace' },
    })) as CallToolResult;
    expect(text(given)).toContain('no desktop in this test');
    expect(replays).toEqual(['workflow "play song"']);
    await client.close();
  });
});

describe('HTTP sessions', () => {
  it('end when idle, and their servers are closed', async () => {
    let open = 0;
    let created = 0;
    const http = await serveHttp({
      port: 0,
      token: 'a-token-of-sixteen-chars',
      sessionIdleMs: 300,
      createServer: () => {
        const server = newServer();
        open += 1;
        created += 1;
        const close = server.close.bind(server);
        server.close = () => {
          open -= 1;
          return close();
        };
        return server;
      },
    });
    try {
      for (let i = 0; i < 5; i += 1) {
        const client = new Client({ name: `abandoned ${i}`, version: '1' });
        const transport = new StreamableHTTPClientTransport(new URL(http.url), {
          requestInit: { headers: { Authorization: 'Bearer a-token-of-sixteen-chars' } },
        });
        await client.connect(transport);
        await client.listTools();
        // Abandoned: its connections drop (its GET stream too), and no DELETE is sent.
        await transport.close();
      }
      expect(created).toBe(5);
      await waitUntil(() => http.sessions === 0, { timeoutMs: 5_000, what: 'every idle session ended' });
      expect(open).toBeLessThanOrEqual(0);
    } finally {
      await http.close();
    }
  });
});

describe('a run without a summary', () => {
  it('is running while its process lives and interrupted once it is gone, in get_run and list_workflows', async () => {
    const runs = join(home, 'workflows', 'song', '.replay');
    await writeUnfinishedRun(join(runs, 'run-live'), [
      runStartLine(liveProcess(), '2026-11-26T19:00:00.000Z'),
    ]);
    await writeUnfinishedRun(join(runs, 'run-killed'), [
      runStartLine(endedProcess(), '2026-11-26T20:00:00.000Z'),
    ]);
    const client = await connected();
    const run = async (id: string) =>
      JSON.parse(
        text((await client.callTool({ name: 'get_run', arguments: { run: id } })) as CallToolResult),
      );
    expect(await run('song/run-live')).toMatchObject({ outcome: 'running', state: 'running', summary: null });
    expect(await run('run-killed')).toMatchObject({ outcome: 'interrupted', state: 'interrupted' });
    const listed = JSON.parse(
      text((await client.callTool({ name: 'list_workflows', arguments: {} })) as CallToolResult),
    );
    expect(listed.workflows[0].last_run).toMatchObject({
      run_id: 'run-killed',
      outcome: 'interrupted',
      state: 'interrupted',
    });
  });
});
