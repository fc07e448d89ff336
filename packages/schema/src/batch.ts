/**
 * The batch contract: one run per row of a rows file (CSV or JSONL). A batch folder holds
 * `row-<n>/row.json` and that row's run folders, `batch.json` (what became of every row) and
 * `batch.html`. A folder of `row-<n>` folders written anywhere (pods of a Kubernetes Indexed Job on
 * a shared volume) is turned into the same files by `mime batch collect`.
 */
import { z } from 'zod';

/** The files of a batch folder. */
export const BATCH_FILES = { batch: 'batch.json', html: 'batch.html', row: 'row.json' } as const;

/** The folder of row `n` (1-based) in a batch folder. */
export function rowFolderName(row: number): string {
  return `row-${row}`;
}

/** What became of a row: the run's outcome, `not_run` before it ran, `crashed` when its worker died twice. */
export const RowOutcome = z.enum(['success', 'failed', 'aborted', 'not_run', 'crashed']);
export type RowOutcome = z.infer<typeof RowOutcome>;

/** `row-<n>/row.json`: the row and the runs made of it, newest last. */
export const RowRecord = z.object({
  /** 1-based number of the row in the rows file (its header not counted). */
  row: z.int().positive(),
  /** The row's params as shown (sensitive values as `{name}`). */
  params: z.record(z.string(), z.string()),
  /** Run folders of this row, relative to the row folder, oldest first. */
  runs: z.array(z.string()).default([]),
  outcome: RowOutcome,
  /** Code of a failed run, e.g. `MIME_REPLAY_DIVERGENCE`. */
  code: z.string().nullable().default(null),
  reason: z.string().nullable().default(null),
  duration_ms: z.number().nonnegative().default(0),
  model_calls: z.int().nonnegative().default(0),
  /** Worker attempts of the last run (2 when the first worker crashed). */
  attempts: z.int().nonnegative().default(0),
});
export type RowRecord = z.infer<typeof RowRecord>;

/** `batch.json`. */
export const BatchFile = z.object({
  version: z.literal(1).default(1),
  /** The workflow replayed (a path as given). */
  workflow: z.string(),
  task_name: z.string(),
  /** The rows file, as given. */
  rows_file: z.string().nullable(),
  started_at: z.iso.datetime().nullable(),
  ended_at: z.iso.datetime().nullable(),
  workers: z.int().nonnegative(),
  /** One entry a row, in row order; `run` is the last run folder relative to the batch folder. */
  rows: z.array(RowRecord.extend({ run: z.string().nullable() })),
  counts: z.object({
    success: z.int().nonnegative(),
    failed: z.int().nonnegative(),
    not_run: z.int().nonnegative(),
  }),
});
export type BatchFile = z.infer<typeof BatchFile>;
