/**
 * Builds batch.json from a batch folder's `row-<n>/row.json` files: the folder a local batch wrote,
 * or one that pods of a Kubernetes Indexed Job filled on a shared volume.
 */
import { lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import {
  BATCH_FILES,
  type BatchFile,
  FileReadError,
  isMissingFileError,
  RowRecord,
  RUN_FILES,
  RunSummary,
  readJsonFile,
  resolveInside,
  UnsafePathError,
  ValidationError,
  zodProblems,
} from '@mime-desktop/schema';
import { BatchOptionError } from './errors.ts';

/** What batch.json says that the row folders do not. */
export interface BatchMeta {
  workflow?: string;
  task_name?: string;
  rows_file?: string | null;
  workers?: number;
  started_at?: string | null;
  ended_at?: string | null;
}

const ROW_FOLDER = /^row-(\d+)$/;

/** Reads every `row-<n>/row.json` of `dir`, in row order. */
export async function readRowRecords(dir: string): Promise<Array<{ folder: string; record: RowRecord }>> {
  let entries: string[];
  try {
    entries = await readdir(dir);
  } catch (error) {
    throw new FileReadError(dir, 'not a readable folder', { cause: error });
  }
  const records: Array<{ folder: string; record: RowRecord }> = [];
  const seen = new Map<number, string>();
  for (const folder of entries.filter((name) => ROW_FOLDER.test(name))) {
    // A row folder that links elsewhere (another batch's row, a folder outside) is not followed.
    if ((await lstat(join(dir, folder))).isSymbolicLink()) {
      throw new UnsafePathError(
        'batch row folder',
        folder,
        `${join(dir, folder)} is a symbolic link; a batch reads only its own row folders (remove the link)`,
      );
    }
    const file = join(dir, folder, BATCH_FILES.row);
    // A row not run yet has no row.json; a damaged one (a FIFO, a link out, bad JSON) is named.
    const raw = await readJsonFile(file).catch((error: unknown) => {
      if (isMissingFileError(error)) return undefined;
      throw error;
    });
    if (raw === undefined) continue;
    const parsed = RowRecord.safeParse(raw);
    if (!parsed.success) throw new ValidationError(file, 'batch row record', zodProblems(parsed.error));
    const twin = seen.get(parsed.data.row);
    if (twin !== undefined) {
      throw new ValidationError(file, 'batch row record', [
        {
          path: 'row',
          message: `row ${parsed.data.row} is also the row of ${twin}; each row has one folder`,
        },
      ]);
    }
    seen.set(parsed.data.row, folder);
    records.push({ folder, record: parsed.data });
  }
  return records.sort((a, b) => a.record.row - b.record.row);
}

/** The batch.json of a folder of row folders; the workflow and task come from `meta` or the first run. */
export async function collectBatch(dir: string, meta: BatchMeta = {}): Promise<BatchFile> {
  const records = await readRowRecords(dir);
  if (records.length === 0) {
    throw new BatchOptionError(
      `${dir} holds no row-<n>/${BATCH_FILES.row}: pass the folder the batch or its pods wrote`,
    );
  }
  let { workflow, task_name } = meta;
  for (const { folder, record } of records) {
    if (workflow !== undefined && task_name !== undefined) break;
    const run = record.runs.at(-1);
    if (!run) continue;
    // A run path from a row.json (a pod on a shared volume wrote it) stays inside its row folder.
    const runDir = await resolveInside(join(dir, folder), run, `${folder}/${BATCH_FILES.row} run`);
    const summary = RunSummary.safeParse(
      await readJsonFile(join(runDir, RUN_FILES.summary)).catch((error: unknown) => {
        if (isMissingFileError(error)) return null;
        throw error;
      }),
    );
    if (summary.success) {
      workflow ??= summary.data.workflow;
      task_name ??= summary.data.task_name;
    }
  }
  const rows = records.map(({ folder, record }) => ({
    ...record,
    run: record.runs.length > 0 ? `${folder}/${record.runs.at(-1)}` : null,
  }));
  const count = (outcome: RowRecord['outcome']) => rows.filter((r) => r.outcome === outcome).length;
  return {
    version: 1,
    workflow: workflow ?? '',
    task_name: task_name ?? '(unknown task)',
    rows_file: meta.rows_file ?? null,
    started_at: meta.started_at ?? null,
    ended_at: meta.ended_at ?? null,
    workers: meta.workers ?? 0,
    rows,
    counts: {
      success: count('success'),
      failed: rows.length - count('success') - count('not_run'),
      not_run: count('not_run'),
    },
  };
}
