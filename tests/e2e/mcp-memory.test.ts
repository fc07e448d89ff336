/**
 * One `mime mcp` server over several replays stays lean and flat: the SDK's client calls the demo
 * workflow's tool six times in trace mode on the demo app; the server's resident memory (VmRSS of
 * /proc) stays under 300 MB after every replay (its peak, VmHWM, is shown: near 290 MB, a frame's
 * work in flight), and after the last it is within 80 MB of that after the first. OCR and template matching ran in the vision process, a
 * child of the server: with them in the server it was 472 MB after the first replay (513 after 20);
 * with an OCR worker per replay, it grew by 265 MB over these six. The figure over 20 replays is
 * `pnpm bench mcp-memory` (see the README).
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
const LIMIT_MB = 300;
const GROWTH_MB = 80;

/** A process's resident and peak resident memory, MB. */
async function memoryOf(pid: number): Promise<{ rss: number; peak: number }> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) =>
    Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN);
  return { rss: kb('VmRSS') / 1024, peak: kb('VmHWM') / 1024 };
}

/** The command lines of a process's children. */
async function childrenOf(pid: number): Promise<string[]> {
  const ids = (await readFile(`/proc/${pid}/task/${pid}/children`, 'utf8')).split(' ').filter(Boolean);
  return Promise.all(
    ids.map((id) =>
      readFile(`/proc/${id}/cmdline`, 'utf8').then(
        (line) => line.replaceAll('\0', ' '),
        () => '',
      ),
    ),
  );
}

let client: Client;
let transport: StdioClientTransport;

beforeAll(async () => {
  const home = await fileTempDir('mime-mcp-memory-');
  await copyWorkflow('play-song-recorded', undefined, { as: 'play-song', into: join(home, 'workflows') });
  transport = new StdioClientTransport({
    command: process.execPath,
    args: [MIME_BIN, 'mcp', '--home', home],
    // The display without its session bus: the outcome checks read by OCR, in the server's vision
    // process, whose memory this measures too (with the bus they read Chromium's tree).
    env: { ...(process.env as Record<string, string>), DISPLAY: desktop().display, NO_COLOR: '1' },
    stderr: 'ignore',
  });
  client = new Client({ name: 'mime-memory-test', version: '1.0.0' });
  await client.connect(transport);
}, 60_000);

afterAll(async () => {
  await client?.close();
});

it(`keeps the server's memory under ${LIMIT_MB} MB and flat over ${REPLAYS} replays`, async () => {
  const pid = transport.pid;
  expect(pid).not.toBeNull();
  const rss: number[] = [];
  let peak = Number.NaN;
  for (let i = 1; i <= REPLAYS; i += 1) {
    await desktop().resetApp();
    const song = i % 2 ? 'Faint' : 'Numb';
    const result = await client.callTool(
      { name: 'play_song', arguments: { params: { song_name: song }, mode: 'trace' } },
      CallToolResultSchema,
      { timeout: 60_000 },
    );
    expect(result.isError, `replay ${i}: ${JSON.stringify(result.content).slice(0, 300)}`).toBe(false);
    expect((await desktop().readAppState()).playing).toBe(song);
    const memory = await memoryOf(pid ?? 0);
    rss.push(memory.rss);
    peak = memory.peak;
  }
  const seen = `RSS after each replay: ${rss.map((r) => r.toFixed(0)).join(', ')} MB, peak ${peak.toFixed(0)} MB`;
  // The OCR of the outcome checks was done, and in the server's vision process.
  expect((await childrenOf(pid ?? 0)).filter((line) => line.includes('vision-child'))).toHaveLength(1);
  expect(Math.max(...rss), seen).toBeLessThan(LIMIT_MB);
  const [first = Number.NaN, last = Number.NaN] = [rss[0], rss.at(-1)];
  expect(last - first, seen).toBeLessThan(GROWTH_MB);
}, 180_000);
