/**
 * One `mime mcp` server over several replays keeps its memory flat: the SDK's client calls the demo
 * workflow's tool six times in trace mode on the demo app, and the server's resident memory (VmRSS
 * of /proc) after the last replay is within 80 MB of that after the first. When each replay started
 * an OCR worker of its own, it grew by 265 MB over these six (535 MB after the first, 800 after the
 * last). The figure over 20 replays is `pnpm bench mcp-memory` (see the README).
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { copyWorkflow, useDesktop, useTempDirs } from '@mime-desktop/test-support/e2e-rig';
import { MIME_BIN } from '@mime-desktop/test-support/run-mime';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, expect, it } from 'vitest';

const desktop = useDesktop();
const fileTempDir = useTempDirs();
const REPLAYS = 6;
const GROWTH_MB = 80;

/** A process's resident memory, MB. */
async function rssOf(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1] ?? Number.NaN) / 1024;
}

let client: Client;
let transport: StdioClientTransport;

beforeAll(async () => {
  const home = await fileTempDir('mime-mcp-memory-');
  await copyWorkflow('play-song-recorded', undefined, { as: 'play-song', into: join(home, 'workflows') });
  transport = new StdioClientTransport({
    command: process.execPath,
    args: [MIME_BIN, 'mcp', '--home', home],
    env: { ...(process.env as Record<string, string>), DISPLAY: desktop().display, NO_COLOR: '1' },
    stderr: 'ignore',
  });
  client = new Client({ name: 'mime-memory-test', version: '1.0.0' });
  await client.connect(transport);
}, 60_000);

afterAll(async () => {
  await client?.close();
});

it(`keeps the server's memory flat over ${REPLAYS} replays`, async () => {
  const pid = transport.pid;
  expect(pid).not.toBeNull();
  const rss: number[] = [];
  for (let i = 1; i <= REPLAYS; i += 1) {
    await desktop().resetApp();
    const song = i % 2 ? 'Faint' : 'Numb';
    const result = await client.callTool(
      { name: 'play_song', arguments: { params: { song_name: song }, mode: 'trace' } },
      CallToolResultSchema,
      { timeout: 60_000 },
    );
    expect(result.isError, JSON.stringify(result.content).slice(0, 300)).toBe(false);
    expect((await desktop().readAppState()).playing).toBe(song);
    rss.push(await rssOf(pid ?? 0));
  }
  const [first = Number.NaN, last = Number.NaN] = [rss[0], rss.at(-1)];
  expect(last - first, `RSS after each replay: ${rss.map((r) => r.toFixed(0)).join(', ')} MB`).toBeLessThan(
    GROWTH_MB,
  );
}, 180_000);
