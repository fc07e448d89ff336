/**
 * One replay per display, from any process: two `mime replay` started at once (one runs, the other
 * exits 75 naming it; with --queue both run, one after the other), two stdio MCP servers and a CLI
 * replay at once (one at a time, never together), and `mime record` beside replays (it does not start
 * while one runs, and records none of a replay's input).
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  centerOf,
  DEMO_LAYOUT,
  type DesktopHarness,
  demoAppSetup,
  parseDemoTitle,
} from '@mime-desktop/test-support/desktop-harness';
import { watchDisplayHolders } from '@mime-desktop/test-support/display-holders';
import { copyWorkflow, useDesktop, useTempDirs } from '@mime-desktop/test-support/e2e-rig';
import { MIME_BIN, type RunningMime, runMime, startMime } from '@mime-desktop/test-support/run-mime';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { type CallToolResult, CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { beforeAll, describe, expect, it } from 'vitest';

const fileTempDir = useTempDirs();
let root: string;

beforeAll(async () => {
  root = await fileTempDir('mime-lock-');
}, 60_000);

/** The demo workflow as `<root>/<as>`; with `setup`, it can start the demo app (for --fresh). */
const workflow = (as: string, { setup = false, into = root } = {}) =>
  copyWorkflow(
    'play-song-recorded',
    setup
      ? (schema) => {
          schema.setup = demoAppSetup();
        }
      : undefined,
    { as, into },
  );

const replayArgs = (dir: string, song: string, extra: string[] = []) => [
  'replay',
  dir,
  '--mode',
  'trace',
  '--param',
  `song_name=${song}`,
  '--json',
  ...extra,
];

interface Span {
  song: string;
  started_at: string;
  ended_at: string;
}

/** The runs' time spans, in the order they ran: each must end before the next starts. */
function expectOneAfterAnother(spans: Span[]): Span[] {
  const ordered = [...spans].sort((a, b) => Date.parse(a.started_at) - Date.parse(b.started_at));
  for (const [i, span] of ordered.entries()) {
    const next = ordered[i + 1];
    if (next)
      expect(Date.parse(span.ended_at), JSON.stringify(ordered)).toBeLessThan(Date.parse(next.started_at));
  }
  return ordered;
}

const PAUSE = 'ctrl+alt+shift+p';

/** The environment of an MCP server a client starts, on `desktop` (no model, no user config). */
const mcpEnv = (home: string, desktop: DesktopHarness): Record<string, string> => ({
  ...(process.env as Record<string, string>),
  DISPLAY: desktop.display,
  NO_COLOR: '1',
  MIME_BASE_URL: '',
  MIME_MODEL: '',
  XDG_CONFIG_HOME: join(home, 'no-config'),
});

/** The song the demo app plays, read from its window found by title (--fresh restarts the app: a new window). */
async function playingNow(desktop: DesktopHarness): Promise<string> {
  const [id] = (await desktop.xdotool('search', '--name', '^mime-demo ')).split('\n');
  return parseDemoTitle(await desktop.xdotool('getwindowname', id ?? '')).playing;
}

/** Waits until one of `runs` has started its first subtask (it holds the display); returns its index. */
async function firstToStart(runs: RunningMime[]): Promise<number> {
  return Promise.any(runs.map((run, i) => run.waitForStderr(/\[1\/2\]/, 60_000).then(() => i)));
}

/**
 * One desktop for the file: the second block's replays restart the app (--fresh) and the first
 * block's reset it, so neither needs a display and an app of its own.
 */
const desktop = useDesktop();

describe('two mime replay at once on one display, and mime record beside a replay', () => {
  it('runs one; the other exits 75 naming the replay that holds the display', async () => {
    await desktop().resetApp();
    const dirs = [await workflow('first'), await workflow('second')];
    const runs = dirs.map((dir, i) =>
      startMime(replayArgs(dir, i === 0 ? 'Faint' : 'Yellow'), { env: { DISPLAY: desktop().display } }),
    );
    // The one that holds the display is paused until the other has ended, however slowly it starts.
    const winner = await firstToStart(runs);
    const loser = 1 - winner;
    await desktop().pressKeys(PAUSE);
    await runs[winner]?.waitForStderr(/paused before the next action/);
    const refused = await runs[loser]?.done;
    await desktop().pressKeys(PAUSE);
    const done = await runs[winner]?.done;

    expect(done?.exitCode, done?.stderr).toBe(0);
    expect(refused?.exitCode, refused?.stderr).toBe(75);
    expect(refused?.stderr).toMatch(
      new RegExp(
        `error \\[MIME_DESKTOP_BUSY\\] the display ${desktop().display} is busy: mime replay ${winner === 0 ? 'first' : 'second'} \\(pid \\d+, workflow "play song"\\) has been replaying on it since \\d{4}-`,
      ),
    );
    expect(refused?.stdout).not.toMatch(/"outcome"/);
    expect((await desktop().readAppState()).playing).toBe(winner === 0 ? 'Faint' : 'Yellow');
  }, 120_000);

  it("refuses an MCP server's call while a CLI replay holds the display, and takes over once it is killed -9", async () => {
    await desktop().resetApp();
    const home = await fileTempDir('mime-lock-mcp-');
    await workflow('play-song', { into: join(home, 'workflows') });
    const holder = startMime(replayArgs(await workflow('holder'), 'Faint'), {
      env: { DISPLAY: desktop().display },
    });
    await holder.waitForStderr(/\[1\/2\]/, 60_000);
    await desktop().pressKeys(PAUSE);
    await holder.waitForStderr(/paused before the next action/);
    const client = new Client({ name: 'client-c', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [MIME_BIN, 'mcp', '--home', home],
        env: mcpEnv(home, desktop()),
        stderr: 'pipe',
      }),
    );
    try {
      const play = (song: string) =>
        client.callTool(
          { name: 'play_song', arguments: { params: { song_name: song }, mode: 'trace' } },
          CallToolResultSchema,
          { timeout: 120_000 },
        ) as Promise<CallToolResult>;
      const busy = await play('Yellow');
      expect(busy.isError).toBe(true);
      expect(busy.content[0]).toMatchObject({
        type: 'text',
        text: expect.stringMatching(
          new RegExp(
            `^\\[MIME_DESKTOP_BUSY\\] the display ${desktop().display} is busy: mime replay holder \\(pid \\d+, workflow "play song"\\)`,
          ),
        ),
      });
      // Killed with -9, the holder leaves its lock file; the next replay takes it over.
      holder.kill('SIGKILL');
      await holder.done;
      await desktop().resetApp();
      const result = await play('Yellow');
      expect(result.isError, JSON.stringify(result.content)).toBe(false);
      expect(result.structuredContent).toMatchObject({ extracts: { song_now_playing: 'Yellow' } });
    } finally {
      await client.close();
    }
  }, 180_000);

  it('does not start while a replay holds the display (exit 75)', async () => {
    await desktop().resetApp();
    const dir = await workflow('held');
    const replay = startMime(replayArgs(dir, 'Faint'), { env: { DISPLAY: desktop().display } });
    await replay.waitForStderr(/\[1\/2\]/, 60_000);
    await desktop().pressKeys(PAUSE);
    await replay.waitForStderr(/paused before the next action/);
    const home = await fileTempDir('mime-lock-record-');
    const record = await runMime(['record', '--name', 'while replaying', '--home', home], {
      env: { DISPLAY: desktop().display },
    });
    await desktop().pressKeys(PAUSE);
    expect((await replay.done).exitCode).toBe(0);
    expect(record.exitCode, record.stderr).toBe(75);
    expect(record.stderr).toMatch(
      new RegExp(
        `error \\[MIME_DESKTOP_BUSY\\] a replay is running on the display ${desktop().display}: mime replay held \\(pid \\d+\\) since .*; its input would be recorded as yours`,
      ),
    );
  }, 120_000);

  it("records a person's clicks before and after a replay, and none of the replay's input", async () => {
    await desktop().resetApp();
    const home = await fileTempDir('mime-lock-record-');
    const recorder = startMime(['record', '--name', 'around a replay', '--home', home], {
      env: { DISPLAY: desktop().display },
    });
    const sessionId = await recorder.waitForStdoutLine();
    await recorder.waitForStderr(/● Recording/);
    const pad = centerOf(DEMO_LAYOUT.clickPad);
    await desktop().click(pad.x, pad.y);
    await recorder.waitForStderr(/#0 click/);
    const replay = await runMime(replayArgs(await workflow('recorded-over'), 'Faint'), {
      env: { DISPLAY: desktop().display },
    });
    expect(replay.exitCode, replay.stderr).toBe(0);
    await desktop().click(pad.x, pad.y, { button: 3 });
    await recorder.waitForStderr(/#1 right_click/);
    expect(
      (await runMime(['record', 'stop', '--session', sessionId], { env: { DISPLAY: desktop().display } }))
        .exitCode,
    ).toBe(0);
    const result = await recorder.done;
    expect(result.exitCode, result.stderr).toBe(0);
    const manifest = (await readFile(join(home, 'recordings', sessionId, 'manifest.jsonl'), 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(manifest.map((e) => e.action_type)).toEqual(['click', 'right_click', null]);
    expect(result.stderr).toMatch(
      /not recorded: type, given by a replay on this display \(mime replay recorded-over, pid \d+\)/,
    );
  }, 120_000);
});

describe('replays queued on one display (each restarts the app: --fresh)', () => {
  it('with --queue runs both, one after the other: each plays its own song', async () => {
    const dirs = [await workflow('queued-1', { setup: true }), await workflow('queued-2', { setup: true })];
    const songs = ['Faint', 'Yellow'];
    const results = await Promise.all(
      dirs.map((dir, i) =>
        runMime(replayArgs(dir, songs[i] ?? '', ['--queue', '--fresh']), {
          env: { DISPLAY: desktop().display },
        }),
      ),
    );
    const spans = results.map((result, i) => {
      expect(result.exitCode, result.stderr).toBe(0);
      const summary = JSON.parse(result.stdout);
      expect(summary).toMatchObject({ outcome: 'success', extracts: { song_now_playing: songs[i] } });
      return { song: songs[i] ?? '', started_at: summary.started_at, ended_at: summary.ended_at };
    });
    const [, second] = expectOneAfterAnother(spans);
    // The second waited, and said for whom.
    const waiting = results.find((r) => r.stderr.includes('waiting for the display'));
    expect(waiting?.stderr).toMatch(
      new RegExp(
        `waiting for the display ${desktop().display}: mime replay queued-[12] \\(pid \\d+\\) holds it since`,
      ),
    );
    expect(await playingNow(desktop())).toBe(second?.song);
  }, 180_000);

  it('--rows on this display holds it from the first row to the last (nothing slips in between)', async () => {
    const dir = await workflow('lock-rows', { setup: true });
    const rows = join(root, 'rows.csv');
    await writeFile(rows, 'song_name\nFaint\nNumb\n');
    const watch = watchDisplayHolders(desktop().display);
    const result = await runMime(['replay', dir, '--rows', rows, '--mode', 'trace', '--fresh', '--json'], {
      env: { DISPLAY: desktop().display },
    });
    const holders = await watch.stop();
    expect(result.exitCode, result.stderr).toBe(0);
    const outcomes = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line).outcome);
    expect(outcomes).toEqual(['success', 'success']);
    // One holding for both rows, not one a row.
    expect(holders.map((h) => h.command)).toEqual(['mime replay --rows lock-rows']);
  }, 180_000);

  it('two stdio MCP servers and a CLI replay at once run one at a time (--queue), never together', async () => {
    const home = await fileTempDir('mime-lock-home-');
    const dir = await workflow('play-song', { setup: true, into: join(home, 'workflows') });
    const env = mcpEnv(home, desktop());
    const clients = await Promise.all(
      ['client-a', 'client-b'].map(async (name) => {
        const client = new Client({ name, version: '1.0.0' });
        await client.connect(
          new StdioClientTransport({
            command: process.execPath,
            args: [MIME_BIN, 'mcp', '--home', home, '--queue'],
            env,
            stderr: 'pipe',
          }),
        );
        return client;
      }),
    );
    try {
      const songs = ['Faint', 'Yellow', 'Numb'];
      const calls = clients.map(async (client, i) => {
        const result = (await client.callTool(
          { name: 'play_song', arguments: { params: { song_name: songs[i] }, mode: 'trace', fresh: true } },
          CallToolResultSchema,
          { timeout: 240_000 },
        )) as CallToolResult;
        expect(result.isError, JSON.stringify(result.content)).toBe(false);
        expect(result.structuredContent).toMatchObject({ extracts: { song_now_playing: songs[i] } });
        const summary = JSON.parse(
          await readFile(join(String(result.structuredContent?.run_dir), 'summary.json'), 'utf8'),
        );
        return { song: songs[i] ?? '', started_at: summary.started_at, ended_at: summary.ended_at };
      });
      const cli = runMime(replayArgs(dir, songs[2] ?? '', ['--queue', '--fresh']), {
        env: { DISPLAY: desktop().display },
      }).then((result) => {
        expect(result.exitCode, result.stderr).toBe(0);
        const summary = JSON.parse(result.stdout);
        expect(summary).toMatchObject({ outcome: 'success', extracts: { song_now_playing: songs[2] } });
        return { song: songs[2] ?? '', started_at: summary.started_at, ended_at: summary.ended_at };
      });
      const ordered = expectOneAfterAnother(await Promise.all([...calls, cli]));
      expect(await playingNow(desktop())).toBe(ordered.at(-1)?.song);
    } finally {
      await Promise.all(clients.map((client) => client.close()));
    }
  }, 300_000);
});
