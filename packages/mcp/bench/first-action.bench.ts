/**
 * An agent's view of `mime mcp`: the SDK's client starts the server over stdio (connect and list the
 * tools), then calls the demo workflow's tool on the demo app; per call, the time from the call to the
 * progress notification of the first step (the first action done on the screen) and to the result.
 * Medians of 7 calls. Run from the repository root: `pnpm bench mcp`.
 */
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDesktopHarness } from '@mime-desktop/test-support/desktop-harness';
import { MIME_BIN, REPO_ROOT } from '@mime-desktop/test-support/run-mime';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';

const CALLS = 7;
const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;

const desktop = await startDesktopHarness({ keepDisplayUntilExit: false });
const home = await mkdtemp(join(tmpdir(), 'mime-bench-mcp-'));
await cp(
  join(REPO_ROOT, 'fixtures', 'workflows', 'play-song-recorded'),
  join(home, 'workflows', 'play-song'),
  {
    recursive: true,
  },
);
const client = new Client({ name: 'bench', version: '1.0.0' });
try {
  const started = performance.now();
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [MIME_BIN, 'mcp', '--home', home],
      env: { ...(process.env as Record<string, string>), DISPLAY: desktop.display, NO_COLOR: '1' },
      stderr: 'ignore',
    }),
  );
  await client.listTools();
  const ready = performance.now() - started;
  const firstAction: number[] = [];
  const total: number[] = [];
  for (let i = 0; i < CALLS; i += 1) {
    await desktop.resetApp();
    const call = performance.now();
    let first = Number.NaN;
    const result = await client.callTool(
      { name: 'play_song', arguments: { params: { song_name: i % 2 ? 'Faint' : 'Numb' } } },
      CallToolResultSchema,
      {
        onprogress: (p) => {
          if (Number.isNaN(first) && p.message?.startsWith('step ')) first = performance.now() - call;
        },
        timeout: 120_000,
      },
    );
    if (result.isError) throw new Error(`the replay failed: ${JSON.stringify(result.content).slice(0, 300)}`);
    firstAction.push(first);
    total.push(performance.now() - call);
  }
  process.stdout.write(
    [
      `mime mcp over stdio, the demo workflow's tool on the demo app (median of ${CALLS} calls):`,
      `  server start to tools listed:        ${ready.toFixed(0)} ms (once; sources through tsx)`,
      `  tool call to the first step done:    ${median(firstAction).toFixed(0)} ms`,
      `  tool call to the result (5 steps):   ${median(total).toFixed(0)} ms`,
      '',
    ].join('\n'),
  );
} finally {
  await client.close();
  await desktop.stop();
  await rm(home, { recursive: true, force: true });
}
