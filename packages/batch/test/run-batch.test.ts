/**
 * runBatch's scheduling and what it collects, rows on this display (workers 0) with the replay of
 * a row stood in for (no desktop here; tests/e2e/batch.test.ts replays real rows on private
 * displays): the rows chosen, their order, the display held from the first to the last, each row's
 * record written as it ends, a resumed batch running only what did not succeed, a stopped batch
 * showing the rest as not run, sensitive values never written, and options refused before anything runs.
 */
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { displayLockHolder } from '@mime-desktop/os-io';
import { type ReplayOptions, type ReplayResult, replay } from '@mime-desktop/replay';
import { BatchFile, MimeError, RowRecord, type RunSummary } from '@mime-desktop/schema';
import { copyWorkflow, tempDir } from '@mime-desktop/test-support/e2e-rig';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type BatchEvent, type BatchOptions, runBatch } from '../src/index.ts';

vi.mock('@mime-desktop/replay', async (importOriginal) => ({
  ...(await importOriginal<typeof import('@mime-desktop/replay')>()),
  replay: vi.fn(),
}));

/** What a stood-in replay of a row does, by the row's song: its run's outcome, or an error thrown. */
type Script = Record<
  string,
  RunSummary['outcome'] | Error | ((options: ReplayOptions) => RunSummary['outcome'])
>;

interface Call {
  params: Record<string, string>;
  /** Who held the display while the row ran. */
  holder: string | null;
}

/** A display number of this test process alone: the batch takes the machine-wide lock of it. */
const DISPLAY = `:${40_000 + (process.pid % 20_000)}`;
let calls: Call[];

/** The values a row's replay is given: its params as checkRows resolved them. */
const valuesOf = (options: ReplayOptions): Record<string, string> =>
  Object.fromEntries(
    [...(options.checkedParams?.resolved ?? [])].flatMap(([name, value]) =>
      value.kind === 'value' ? [[name, value.value]] : [],
    ),
  );

/** Makes `replay` write a run folder with a summary.json per `script`, as a replay does. */
function script(outcomes: Script): void {
  vi.mocked(replay).mockImplementation(async (workflow, options = {}): Promise<ReplayResult> => {
    const params = valuesOf(options);
    const holder = await displayLockHolder({ env: { DISPLAY } });
    calls.push({ params, holder: holder && `${holder.command} (pid ${holder.pid})` });
    const planned = outcomes[params.song_name ?? ''] ?? 'success';
    if (planned instanceof Error) throw planned;
    const outcome = typeof planned === 'function' ? planned(options) : planned;
    const runId = `20260101T000000Z-${calls.length}`;
    const dir = join(options.runsDir ?? '', runId);
    const summary: RunSummary = {
      run_id: runId,
      workflow: typeof workflow === 'string' ? workflow : workflow.file,
      task_name: 'play a song in the demo player',
      mode: 'auto',
      outcome,
      code: outcome === 'success' ? null : 'MIME_REPLAY_DIVERGENCE',
      reason: outcome === 'success' ? null : `"${params.song_name}" was not found`,
      started_at: '2026-01-01T00:00:00.000Z',
      ended_at: '2026-01-01T00:00:02.000Z',
      duration_ms: 2000,
      params,
      subtasks: [],
      usage: { calls: 1, requests: 1, input_tokens: 0, output_tokens: 0, duration_ms: 0 },
      dry_run: false,
      budgets: {},
      extracts: {},
      report_error: null,
    };
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'summary.json'), JSON.stringify(summary));
    return { runId, dir, summary, report: null, heal: null };
  });
}

beforeEach(() => {
  calls = [];
  vi.stubEnv('DISPLAY', DISPLAY);
  vi.stubEnv('WAYLAND_DISPLAY', undefined);
});
afterEach(() => {
  vi.unstubAllEnvs();
  vi.mocked(replay).mockReset();
});

/** A copy of the demo workflow (param song_name) in a temp folder, and a rows file of `songs`. */
async function batchOf(songs: string[], edit?: (schema: any) => void) {
  const root = await tempDir('mime-run-batch-');
  const workflow = await copyWorkflow('play-song', edit, { into: root, as: 'workflow' });
  const rows = join(root, 'rows.csv');
  await writeFile(rows, `song_name\n${songs.join('\n')}\n`);
  return { root, workflow, rows, dir: join(root, 'batch') };
}

const readJson = async (file: string) => JSON.parse(await readFile(file, 'utf8'));

describe('a batch on this display', () => {
  it('runs the rows in order under one hold of the display, writing each row.json as the row ends', async () => {
    const { workflow, rows, dir } = await batchOf(['Numb', 'No Such Song', 'Faint']);
    script({ 'No Such Song': new MimeError('MIME_APP_NOT_FOUND', 'the demo player is not open') });
    const events: string[] = [];
    const onEvent = (event: BatchEvent) => {
      if (event.type === 'start') events.push(`start ${event.rows.join(',')} on ${event.workers} workers`);
      if (event.type === 'row_start') events.push(`row ${event.row}`);
      // A row's record is on disk when its end is told.
      if (event.type === 'row_end') {
        const file = join(dir, `row-${event.record.row}`, 'row.json');
        events.push(
          `end ${event.record.row} ${RowRecord.parse(JSON.parse(readFileSync(file, 'utf8'))).outcome}`,
        );
      }
    };
    const { batch, html } = await runBatch(workflow, { rows, dir, onEvent });

    expect(events).toEqual([
      'start 1,2,3 on 0 workers',
      'row 1',
      'end 1 success',
      'row 2',
      'end 2 failed',
      'row 3',
      'end 3 success',
    ]);
    expect(calls.map((c) => c.params)).toEqual([
      { song_name: 'Numb' },
      { song_name: 'No Such Song' },
      { song_name: 'Faint' },
    ]);
    expect(calls.map((c) => c.holder)).toEqual(Array(3).fill(`a mime batch (pid ${process.pid})`));
    expect(await displayLockHolder({ env: { DISPLAY } })).toBeNull();

    expect(batch).toMatchObject({
      workflow,
      rows_file: rows,
      workers: 0,
      counts: { success: 2, failed: 1, not_run: 0 },
    });
    expect(batch.rows.map((r) => [r.row, r.outcome, r.code, r.run, r.attempts])).toEqual([
      [1, 'success', null, 'row-1/20260101T000000Z-1', 1],
      [2, 'failed', 'MIME_APP_NOT_FOUND', null, 1],
      [3, 'success', null, 'row-3/20260101T000000Z-3', 1],
    ]);
    expect(batch.rows[1]?.reason).toBe('the demo player is not open');
    expect(batch.rows[0]).toMatchObject({ duration_ms: 2000, model_calls: 1 });
    expect(BatchFile.parse(await readJson(join(dir, 'batch.json')))).toEqual(batch);
    expect(html).toBe(join(dir, 'batch.html'));
    expect(await readFile(html, 'utf8')).toContain('No Such Song');
  });

  it('runs from a first row, or only the row of a 0-based index (a pod of an Indexed Job)', async () => {
    const { workflow, rows, root } = await batchOf(['Numb', 'Faint', 'Yellow']);
    script({});
    const from = await runBatch(workflow, { rows, dir: join(root, 'from'), fromRow: 2 });
    expect(from.batch.rows.map((r) => r.row)).toEqual([2, 3]);
    const one = await runBatch(workflow, { rows, dir: join(root, 'one'), rowIndex: 0 });
    expect(one.batch.rows.map((r) => r.params)).toEqual([{ song_name: 'Numb' }]);
    expect(await readdir(join(root, 'one'))).toEqual(expect.arrayContaining(['row-1']));
    expect(calls.map((c) => c.params.song_name)).toEqual(['Faint', 'Yellow', 'Numb']);
  });

  it('resumed with onlyFailed, runs again only the rows that did not succeed, keeping their runs', async () => {
    const { workflow, rows, dir } = await batchOf(['Numb', 'Faint', 'Yellow']);
    script({ Faint: 'failed' });
    await runBatch(workflow, { rows, dir });
    script({});
    calls = [];
    const { batch } = await runBatch(workflow, { rows, dir, onlyFailed: true });
    expect(calls.map((c) => c.params.song_name)).toEqual(['Faint']);
    expect(batch.counts).toEqual({ success: 3, failed: 0, not_run: 0 });
    expect(batch.rows[1]).toMatchObject({
      row: 2,
      outcome: 'success',
      runs: ['20260101T000000Z-2', '20260101T000000Z-1'],
      run: 'row-2/20260101T000000Z-1',
    });
    expect(batch.rows[0]?.runs).toEqual(['20260101T000000Z-1']);
  });

  it('stopped, starts no further row and shows the rows it did not reach as not run', async () => {
    const { workflow, rows, dir } = await batchOf(['Numb', 'Faint', 'Yellow', 'Clocks']);
    const stop = new AbortController();
    script({
      Faint: (options) => {
        // Ctrl+C while this row runs: the replay sees its signal and ends as aborted.
        stop.abort();
        return options.signal?.aborted ? 'aborted' : 'success';
      },
    });
    const { batch } = await runBatch(workflow, { rows, dir, signal: stop.signal });
    expect(calls.map((c) => c.params.song_name)).toEqual(['Numb', 'Faint']);
    expect(batch.rows.map((r) => [r.row, r.outcome, r.reason])).toEqual([
      [1, 'success', null],
      [2, 'aborted', '"Faint" was not found'],
      [3, 'not_run', 'the batch stopped before this row'],
      [4, 'not_run', 'the batch stopped before this row'],
    ]);
    expect(batch.counts).toEqual({ success: 1, failed: 1, not_run: 2 });
    expect(existsSync(join(dir, 'row-3'))).toBe(false);
  });

  it('lets an error that is not a refusal (a bug) out, and lets the display go', async () => {
    const { workflow, rows, dir } = await batchOf(['Numb', 'Faint']);
    script({ Numb: new TypeError('cannot read properties of undefined') });
    await expect(runBatch(workflow, { rows, dir })).rejects.toThrow(TypeError);
    expect(calls).toHaveLength(1);
    expect(await displayLockHolder({ env: { DISPLAY } })).toBeNull();
  });

  it("gives a sensitive param's value to the replay and writes it nowhere", async () => {
    const { workflow, root, dir } = await batchOf([], (schema) => {
      schema.task_params.push({ name: 'pin', description: 'the PIN', example: null, sensitive: true });
    });
    const rows = join(root, 'rows.jsonl');
    await writeFile(rows, '{"song_name": "Numb", "pin": "7391"}\n');
    script({});
    const { batch } = await runBatch(workflow, { rows, dir, allowSecretsInRows: true });
    expect(calls.map((c) => c.params)).toEqual([{ song_name: 'Numb', pin: '7391' }]);
    expect(batch.rows[0]?.params).toEqual({ song_name: 'Numb', pin: '{pin}' });
    for (const file of ['batch.json', 'batch.html', 'row-1/row.json'])
      expect(await readFile(join(dir, file), 'utf8'), file).not.toContain('7391');
  });
});

describe('batch options', () => {
  const refused = async (options: Partial<BatchOptions>, message: string | RegExp) => {
    const { workflow, rows, dir } = await batchOf(['Numb', 'Faint']);
    script({});
    await expect(runBatch(workflow, { rows, dir, ...options })).rejects.toMatchObject({
      code: 'MIME_BATCH_OPTION_INVALID',
      message: typeof message === 'string' ? message : expect.stringMatching(message),
    });
    expect(calls).toEqual([]);
    return dir;
  };

  it('are refused out of range, naming the range, before any row runs', async () => {
    await refused({ workers: 65 }, 'workers must be a whole number from 0 to 64, got 65');
    await refused({ workers: 1.5 }, 'workers must be a whole number from 0 to 64, got 1.5');
    await refused({ fromRow: 0 }, 'the first row must be from 1 to 2, got 0');
    await refused({ fromRow: 3 }, 'the first row must be from 1 to 2, got 3');
    await refused({ rowIndex: 2 }, 'row index 2 is outside the 2 rows (0 to 1)');
  });

  it('refuse workers for a workflow without a setup, and a resume without a batch folder', async () => {
    const dir = await refused(
      { workers: 1 },
      /^workers replay on private X servers, .*give the workflow a setup/,
    );
    expect(existsSync(dir)).toBe(false);
    await refused({ onlyFailed: true, dir: undefined }, 'resuming the failed rows needs the batch folder');
    await refused(
      { onlyFailed: true },
      /is not a batch folder \(no row-<n>\/row\.json in it\): --only-failed takes/,
    );
  });
});
