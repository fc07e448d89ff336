/**
 * The memory of one `mime mcp` server over many replays: the SDK's client starts it over stdio with
 * the demo workflow, then calls the workflow's tool 20 times in trace mode on the demo app (a new song
 * each time, each checked on the screen); the server's resident memory (VmRSS of /proc) idle and after
 * replays 1, 5, 10 and 20, and its peak (VmHWM). Exits 1 when the memory after the last replay or the
 * peak passes 300 MB. Run from the repository root: `pnpm bench mcp-memory`.
 */
import { cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDesktopHarness } from '@mime-desktop/test-support/desktop-harness';
import { MIME_BIN, REPO_ROOT } from '@mime-desktop/test-support/run-mime';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';

const REPLAYS = 20;
const LIMIT_MB = 300;
const REPORTED = new Set([1, 5, 10, REPLAYS]);
const SONGS = ['Faint', 'Numb', 'Yellow', 'Clocks'];

/** A process's resident and peak resident memory, MB. */
async function memoryOf(pid: number): Promise<{ rss: number; peak: number }> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) =>
    Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN);
  return { rss: kb('VmRSS') / 1024, peak: kb('VmHWM') / 1024 };
}

const desktop = await startDesktopHarness({ keepDisplayUntilExit: false });
const home = await mkdtemp(join(tmpdir(), 'mime-bench-mcp-memory-'));
await cp(
  join(REPO_ROOT, 'fixtures', 'workflows', 'play-song-recorded'),
  join(home, 'workflows', 'play-song'),
  {
    recursive: true,
  },
);
const transport = new StdioClientTransport({
  command: process.execPath,
  args: [MIME_BIN, 'mcp', '--home', home],
  env: { ...(process.env as Record<string, string>), DISPLAY: desktop.display, NO_COLOR: '1' },
  stderr: 'ignore',
});
const client = new Client({ name: 'bench', version: '1.0.0' });
try {
  await client.connect(transport);
  await client.listTools();
  const pid = transport.pid;
  if (pid === null) throw new Error('the server has no process id');
  const lines = [`  idle, tools listed:       ${(await memoryOf(pid)).rss.toFixed(0)} MB`];
  const started = performance.now();
  let last = { rss: Number.NaN, peak: Number.NaN };
  for (let i = 1; i <= REPLAYS; i += 1) {
    await desktop.resetApp();
    const song = SONGS[i % SONGS.length] ?? 'Faint';
    const result = await client.callTool(
      { name: 'play_song', arguments: { params: { song_name: song }, mode: 'trace' } },
      CallToolResultSchema,
      { timeout: 120_000 },
    );
    if (result.isError)
      throw new Error(`replay ${i} failed: ${JSON.stringify(result.content).slice(0, 300)}`);
    const playing = (await desktop.readAppState()).playing;
    if (playing !== song) throw new Error(`replay ${i} left "${playing}" playing, not "${song}"`);
    last = await memoryOf(pid);
    if (REPORTED.has(i))
      lines.push(`  after replay ${String(i).padEnd(2)}:          ${last.rss.toFixed(0)} MB`);
  }
  lines.push(`  peak (VmHWM):             ${last.peak.toFixed(0)} MB`);
  const seconds = (performance.now() - started) / 1000;
  const over = last.rss > LIMIT_MB || last.peak > LIMIT_MB;
  process.stdout.write(
    [
      `mime mcp over stdio, resident memory over ${REPLAYS} trace replays of the demo workflow (${seconds.toFixed(0)} s):`,
      ...lines,
      `  ${over ? 'OVER' : 'within'} the ${LIMIT_MB} MB bound`,
      '',
    ].join('\n'),
  );
  if (over) process.exitCode = 1;
} finally {
  await client.close();
  await desktop.stop();
  await rm(home, { recursive: true, force: true });
}
