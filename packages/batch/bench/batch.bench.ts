/**
 * Batch throughput on the demo app: the same 20 rows with 1 worker and with 2, each row on a
 * private Xvfb with the app launched by the workflow's setup (Chromium), in auto mode with no model.
 * Prints the median row time, the batch wall time and the speed-up of 2 workers over 1.
 * Run from the repository root: `pnpm bench batch`.
 */
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { demoAppSetup } from '@mime-desktop/test-support/desktop-harness';
import { REPO_ROOT } from '@mime-desktop/test-support/run-mime';
import { runBatch } from '../src/index.ts';

const ROWS = 20;
const root = await mkdtemp(join(tmpdir(), 'mime-bench-batch-'));
const workflow = join(root, 'workflow');
await cp(join(REPO_ROOT, 'fixtures', 'workflows', 'play-song-recorded'), workflow, { recursive: true });
const schema = JSON.parse(await readFile(join(workflow, 'schema.json'), 'utf8'));
schema.setup = demoAppSetup();
await writeFile(join(workflow, 'schema.json'), JSON.stringify(schema));
const songs = ['Numb', 'Faint', 'Crawling', 'Papercut', 'Yellow'];
const rows = join(root, 'rows.csv');
await writeFile(
  rows,
  `song_name\n${Array.from({ length: ROWS }, (_, i) => songs[i % songs.length]).join('\n')}\n`,
);

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;
const wall: Record<number, number> = {};
const lines: string[] = [
  `batch: ${ROWS} rows of the demo workflow, each on its own Xvfb with Chromium launched by setup`,
];
for (const workers of [1, 2]) {
  const started = performance.now();
  const rowWall: number[] = [];
  const rowStarts = new Map<number, number>();
  const result = await runBatch(workflow, {
    rows,
    workers,
    dir: join(root, `batch-${workers}`),
    replay: { env: { MIME_BASE_URL: undefined, MIME_MODEL: undefined } },
    onEvent: (event) => {
      if (event.type === 'row_start') rowStarts.set(event.row, performance.now());
      if (event.type === 'row_end') rowWall.push(performance.now() - (rowStarts.get(event.record.row) ?? 0));
    },
  });
  wall[workers] = performance.now() - started;
  const ok = result.batch.counts.success;
  const replayMs = median(result.batch.rows.map((r) => r.duration_ms));
  lines.push(
    `  ${workers} worker${workers === 1 ? ' ' : 's'}: ${(wall[workers] / 1000).toFixed(1)} s for ${ROWS} rows (${ok} succeeded); row ${(median(rowWall) / 1000).toFixed(1)} s median with display and app start, replay ${(replayMs / 1000).toFixed(1)} s`,
  );
}
lines.push(`  speed-up of 2 workers over 1: ${((wall[1] ?? 0) / (wall[2] ?? 1)).toFixed(2)}x`, '');
process.stdout.write(lines.join('\n'));
await rm(root, { recursive: true, force: true });
