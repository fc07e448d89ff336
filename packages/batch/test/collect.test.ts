/**
 * `mime batch collect` on real folders: the row folders a batch or its pods wrote are read in row
 * order into batch.json, rows not run yet are skipped, the counts add up, the workflow and task come
 * from the runs when not given; a folder that is not a batch, a linked or damaged row folder and two
 * folders of one row are refused naming what is wrong.
 */
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type RowRecord, rowFolderName } from '@mime-desktop/schema';
import { tempDir } from '@mime-desktop/test-support/e2e-rig';
import { describe, expect, it } from 'vitest';
import { collectBatch, readRowRecords } from '../src/index.ts';

/** A row record as a batch writes it. */
const record = (row: number, outcome: RowRecord['outcome'], runs: string[] = []): RowRecord => ({
  row,
  params: { song_name: `song ${row}` },
  runs,
  outcome,
  code: outcome === 'success' ? null : 'MIME_REPLAY_DIVERGENCE',
  reason: outcome === 'success' ? null : 'the screen did not match',
  duration_ms: 1000 * row,
  model_calls: 0,
  attempts: 1,
});

/** Writes `row.json` (any JSON) in `<dir>/<folder>`. */
async function writeRow(dir: string, folder: string, value: unknown): Promise<void> {
  await mkdir(join(dir, folder), { recursive: true });
  await writeFile(join(dir, folder, 'row.json'), JSON.stringify(value));
}

/** A run's summary.json, as much of it as a batch reads. */
async function writeSummary(runDir: string, workflow: string, taskName: string): Promise<void> {
  await mkdir(runDir, { recursive: true });
  const summary = {
    run_id: 'r1',
    workflow,
    task_name: taskName,
    mode: 'auto',
    outcome: 'success',
    code: null,
    reason: null,
    started_at: '2026-01-01T00:00:00.000Z',
    ended_at: '2026-01-01T00:00:01.000Z',
    duration_ms: 1000,
    params: {},
    subtasks: [],
    usage: { calls: 0, requests: 0, input_tokens: 0, output_tokens: 0, duration_ms: 0 },
    budgets: {},
    extracts: {},
  };
  await writeFile(join(runDir, 'summary.json'), JSON.stringify(summary));
}

describe('the row records of a batch folder', () => {
  it('are read in row order (row-10 after row-2), skipping rows not run yet and other entries', async () => {
    const dir = await tempDir('mime-collect-');
    await writeRow(dir, 'row-10', record(10, 'failed'));
    await writeRow(dir, 'row-2', record(2, 'success', ['run-a']));
    await writeRow(dir, 'row-1', record(1, 'success'));
    await mkdir(join(dir, 'row-3')); // started, not ended: no row.json
    await writeRow(dir, 'notes', record(4, 'success'));
    await writeFile(join(dir, 'batch.json'), '{}');
    const records = await readRowRecords(dir);
    expect(records.map((r) => [r.folder, r.record.row])).toEqual([
      ['row-1', 1],
      ['row-2', 2],
      ['row-10', 10],
    ]);
    expect(records[1]?.record).toEqual(record(2, 'success', ['run-a']));
  });

  it('fill in the defaults of a short row.json (a pod of an older version wrote it)', async () => {
    const dir = await tempDir('mime-collect-');
    await writeRow(dir, rowFolderName(1), { row: 1, params: {}, outcome: 'not_run' });
    expect((await readRowRecords(dir))[0]?.record).toEqual({
      row: 1,
      params: {},
      runs: [],
      outcome: 'not_run',
      code: null,
      reason: null,
      duration_ms: 0,
      model_calls: 0,
      attempts: 0,
    });
  });

  it('refuse a folder that cannot be read, naming it', async () => {
    const dir = join(await tempDir('mime-collect-'), 'missing');
    await expect(readRowRecords(dir)).rejects.toMatchObject({
      code: 'MIME_FILE_UNREADABLE',
      message: `${dir}: not a readable folder`,
    });
  });

  it('refuse a row folder that is a symbolic link, naming it', async () => {
    const dir = await tempDir('mime-collect-');
    const elsewhere = await tempDir('mime-collect-other-');
    await writeRow(elsewhere, 'row-1', record(1, 'success'));
    await symlink(join(elsewhere, 'row-1'), join(dir, 'row-1'));
    await expect(readRowRecords(dir)).rejects.toMatchObject({
      code: 'MIME_UNSAFE_PATH',
      message: expect.stringContaining(
        `${join(dir, 'row-1')} is a symbolic link; a batch reads only its own row folders`,
      ),
    });
  });

  it('refuse a row.json that breaks the contract, naming the file and the field', async () => {
    const dir = await tempDir('mime-collect-');
    await writeRow(dir, 'row-1', { ...record(1, 'success'), outcome: 'done', row: 0 });
    const error = await readRowRecords(dir).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'MIME_INVALID_FILE' });
    const message = (error as Error).message;
    expect(message).toMatch(
      new RegExp(`^${join(dir, 'row-1', 'row.json')}: not a valid batch row record \\(2 problems\\)`),
    );
    expect(message).toMatch(/^ {2}row: /m);
    expect(message).toMatch(/^ {2}outcome: /m);
  });

  it('refuse two folders that claim one row', async () => {
    const dir = await tempDir('mime-collect-');
    await writeRow(dir, 'row-2', record(2, 'success'));
    await writeRow(dir, 'row-7', record(2, 'failed'));
    await expect(readRowRecords(dir)).rejects.toMatchObject({
      code: 'MIME_INVALID_FILE',
      message: expect.stringContaining('row: row 2 is also the row of row-2; each row has one folder'),
    });
  });
});

describe('batch.json collected from row folders', () => {
  it("counts success, failed (crashed and aborted included) and not run; each row's run is its last", async () => {
    const dir = await tempDir('mime-collect-');
    await writeRow(dir, 'row-1', record(1, 'success', ['run-old', 'run-new']));
    await writeRow(dir, 'row-2', record(2, 'failed', ['run-x']));
    await writeRow(dir, 'row-3', record(3, 'crashed'));
    await writeRow(dir, 'row-4', record(4, 'aborted'));
    await writeRow(dir, 'row-5', record(5, 'not_run'));
    await writeSummary(join(dir, 'row-1', 'run-new'), '/w/play-song', 'play a song');
    const batch = await collectBatch(dir, { rows_file: 'rows.csv', workers: 2 });
    expect(batch).toMatchObject({
      version: 1,
      workflow: '/w/play-song',
      task_name: 'play a song',
      rows_file: 'rows.csv',
      started_at: null,
      ended_at: null,
      workers: 2,
      counts: { success: 1, failed: 3, not_run: 1 },
    });
    expect(batch.rows.map((r) => [r.row, r.outcome, r.run])).toEqual([
      [1, 'success', 'row-1/run-new'],
      [2, 'failed', 'row-2/run-x'],
      [3, 'crashed', null],
      [4, 'aborted', null],
      [5, 'not_run', null],
    ]);
  });

  it('takes the workflow and task from the meta over the runs, and says the task is unknown without either', async () => {
    const dir = await tempDir('mime-collect-');
    await writeRow(dir, 'row-1', record(1, 'failed', ['run-1']));
    await mkdir(join(dir, 'row-1', 'run-1')); // a run that never wrote its summary
    expect(await collectBatch(dir)).toMatchObject({ workflow: '', task_name: '(unknown task)', workers: 0 });
    await writeSummary(join(dir, 'row-1', 'run-1'), '/from/the/run', 'from the run');
    expect(await collectBatch(dir, { workflow: '/given', task_name: 'given' })).toMatchObject({
      workflow: '/given',
      task_name: 'given',
    });
  });

  it("never follows a row's run path out of its row folder", async () => {
    const dir = await tempDir('mime-collect-');
    await writeRow(dir, 'row-1', record(1, 'success', ['../../elsewhere']));
    await expect(collectBatch(dir)).rejects.toMatchObject({ code: 'MIME_UNSAFE_PATH' });
  });

  it('is refused for a folder without row folders, saying which folder to pass', async () => {
    const dir = await tempDir('mime-collect-');
    await mkdir(join(dir, 'row-1'));
    await expect(collectBatch(dir)).rejects.toMatchObject({
      code: 'MIME_BATCH_OPTION_INVALID',
      message: `${dir} holds no row-<n>/row.json: pass the folder the batch or its pods wrote`,
    });
  });
});
