/**
 * The demo workflow (reflected from a real recording) replayed in each mode on the demo app, on the
 * unchanged layout and on a moved and resized one (`?dx=40&dy=24&scale=1.1`): wall time of the whole
 * `mime replay` process (median of 3 rounds, the modes taking turns), outcome, model calls. The
 * display has its session bus, as a user's desktop does: checks read the app's tree where it says
 * enough. The model is the fake vision model (OCR on the screenshot it is sent), answering at once,
 * so agent-mode times here are mime's own plus OCR.
 * Run from the repository root: `pnpm exec tsx packages/replay/bench/modes.bench.ts`.
 */
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDesktopHarness } from '@mime-desktop/test-support/desktop-harness';
import { startFakeModelServer } from '@mime-desktop/test-support/fake-model-server';
import { createFakeVisionModel } from '@mime-desktop/test-support/fake-vision-model';
import { REPO_ROOT, runMime } from '@mime-desktop/test-support/run-mime';

const LAYOUTS = [
  { name: 'unchanged', query: undefined },
  { name: 'moved + 1.1x', query: 'dx=40&dy=24&scale=1.1' },
];
const MODES = ['agent', 'auto', 'trace'] as const;
const ROUNDS = 3;

const median = (values: readonly number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

const server = await startFakeModelServer();
const model = createFakeVisionModel();
server.setHandler(model.handler);
const rows: string[] = [];
try {
  for (const layout of LAYOUTS) {
    const desktop = await startDesktopHarness({ keepDisplayUntilExit: false, query: layout.query });
    try {
      const runs = new Map<string, { seconds: number[]; calls: string; outcome: string }>();
      for (let round = 0; round < ROUNDS; round += 1) {
        for (const mode of MODES) {
          await desktop.resetApp();
          const dir = join(await mkdtemp(join(tmpdir(), 'mime-bench-modes-')), 'play-song');
          await cp(join(REPO_ROOT, 'fixtures', 'workflows', 'play-song-recorded'), dir, { recursive: true });
          const started = performance.now();
          const result = await runMime(
            ['replay', dir, '--mode', mode, '--param', 'song_name=Faint', '--json'],
            {
              env: { ...desktop.env, MIME_BASE_URL: server.url, MIME_MODEL: 'fake-vision' },
            },
          );
          const seconds = (performance.now() - started) / 1000;
          const summary = JSON.parse(result.stdout || '{}') as {
            outcome?: string;
            code?: string | null;
            usage?: { calls: number };
          };
          const outcome = summary.code
            ? `${summary.outcome} (${summary.code})`
            : (summary.outcome ?? `exit ${result.exitCode}`);
          const run = runs.get(mode) ?? { seconds: [], calls: '', outcome };
          run.seconds.push(seconds);
          run.calls = String(summary.usage?.calls ?? '?');
          // A round with another outcome than the first is shown, not averaged away.
          if (run.outcome !== outcome) run.outcome = `${run.outcome}; round ${round + 1}: ${outcome}`;
          runs.set(mode, run);
          await rm(dir, { recursive: true, force: true });
        }
      }
      for (const [mode, run] of runs) {
        rows.push(
          `| ${layout.name} | ${mode} | ${median(run.seconds).toFixed(1)} s | ${run.calls} | ${run.outcome} |`,
        );
      }
    } finally {
      await desktop.stop();
    }
  }
} finally {
  await server.close();
  await model.close();
}
process.stdout.write(
  [
    'replay modes on the demo workflow (5 steps, 2 subtasks)',
    '| layout | mode | wall time | model calls | outcome |',
    '| --- | --- | --- | --- | --- |',
    ...rows,
    '',
  ].join('\n'),
);
