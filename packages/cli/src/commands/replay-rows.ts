/** `mime replay <workflow> --rows <file>`: one run per row, as a batch (see @mime-desktop/batch). */
import type { BatchEvent, BatchOptions } from '@mime-desktop/batch';
import type { RowRecord } from '@mime-desktop/schema';
import { junitFileOf, reportBatchToCi } from '../ci-output.ts';
import { EXIT, type ExitCode, UsageError } from '../exit-codes.ts';
import { wholeNumber } from '../numbers.ts';
import { printData, say, style } from '../output.ts';

/** The batch flags of `mime replay`. */
export interface RowsFlags {
  rows?: string;
  rowIndex?: string;
  fromRow?: string;
  onlyFailed?: string;
  allowSecretsInRows?: boolean;
  workers?: string;
  out?: string;
  reporter?: string[];
  param?: string[];
  paramsFile?: string;
  json?: boolean;
}

/** Flags that only make sense with `--rows`, given without it. */
export function strayRowsFlags(flags: RowsFlags): string[] {
  const stray: Array<[keyof RowsFlags, string]> = [
    ['rowIndex', '--row-index'],
    ['fromRow', '--from-row'],
    ['onlyFailed', '--only-failed'],
    ['allowSecretsInRows', '--allow-secrets-in-rows'],
    ['workers', '--workers'],
    ['out', '--out'],
  ];
  return stray.filter(([key]) => flags[key] !== undefined).map(([, flag]) => flag);
}

const MARK: Record<RowRecord['outcome'], string> = {
  success: '✓',
  failed: '✗',
  aborted: '■',
  not_run: '-',
  crashed: '✗',
};

/** Shows progress: a line that redraws on a terminal, JSON lines otherwise (or with --json). */
function progress(json: boolean): (event: BatchEvent) => void {
  const tty = process.stderr.isTTY === true && !json;
  let total = 0;
  let done = 0;
  let failed = 0;
  return (event) => {
    if (event.type === 'start') {
      total = event.rows.length;
      say(
        `${style.cyan('▶')} ${total} row(s) into ${event.dir}${event.workers > 0 ? ` with ${event.workers} worker(s) on private displays` : ' on this display'}`,
      );
      return;
    }
    if (event.type !== 'row_end') return;
    done += 1;
    if (event.record.outcome !== 'success') failed += 1;
    if (!tty) {
      printData(JSON.stringify({ type: 'row', ...event.record }));
      return;
    }
    const width = 24;
    const bar = '█'.repeat(Math.round((done / total) * width)).padEnd(width, '░');
    const row = event.record;
    process.stderr.write(
      `\r${bar} ${done}/${total}  ${style.green(`✓ ${done - failed}`)}  ${failed > 0 ? style.red(`✗ ${failed}`) : ''}  row ${row.row} ${MARK[row.outcome]}${row.code ? ` ${row.code}` : ''}\u001b[K`,
    );
    if (done === total) process.stderr.write('\n');
  };
}

/**
 * The advice rows' reasons end with alike (`Auto mode stops here: no model is configured...`), said
 * once after them instead of once a row.
 */
export function splitSharedAdvice(reasons: readonly string[]): { reasons: string[]; advice: string | null } {
  const split = reasons.map((reason) => {
    // The last sentence: after the last ". " that a capital letter follows.
    const at = [...reason.matchAll(/\. (?=[A-Z])/g)].at(-1)?.index;
    return at === undefined
      ? { head: reason, tail: null }
      : { head: reason.slice(0, at + 1), tail: reason.slice(at + 2) };
  });
  const tail = split[0]?.tail ?? null;
  if (reasons.length < 2 || tail === null || split.some((s) => s.tail !== tail)) {
    return { reasons: [...reasons], advice: null };
  }
  return { reasons: split.map((s) => s.head), advice: tail };
}

/** Runs the batch; exit 0 only when every row it ran succeeded. */
export async function runRowsCommand(
  workflowPath: string,
  flags: RowsFlags & { rows: string },
  replay: BatchOptions['replay'],
  signal: AbortSignal,
): Promise<ExitCode> {
  if (flags.param?.length || flags.paramsFile) {
    throw new UsageError(
      '--param and --params-file do not go with --rows: put every value in the rows file (a column a param)',
    );
  }
  if (flags.rowIndex !== undefined && (flags.fromRow !== undefined || flags.onlyFailed !== undefined)) {
    throw new UsageError('--row-index runs one row: it does not go with --from-row or --only-failed');
  }
  const junitFile = junitFileOf(flags.reporter);
  const { runBatch } = await import('@mime-desktop/batch');
  const result = await runBatch(workflowPath, {
    rows: flags.rows,
    workers: wholeNumber(flags.workers, '--workers', 0),
    fromRow: wholeNumber(flags.fromRow, '--from-row'),
    rowIndex: wholeNumber(flags.rowIndex, '--row-index', 0),
    onlyFailed: flags.onlyFailed !== undefined,
    dir: flags.onlyFailed ?? flags.out,
    allowSecretsInRows: flags.allowSecretsInRows === true,
    replay,
    signal,
    onEvent: progress(flags.json === true),
  });
  await reportBatchToCi(result.batch, junitFile);
  const { counts } = result.batch;
  const ran = result.batch.rows.length;
  const mark = counts.failed === 0 && counts.not_run === 0 ? style.green('✓') : style.red('✗');
  say(
    `${mark} ${counts.success} of ${ran} row(s) succeeded, ${counts.failed} failed, ${counts.not_run} not run`,
  );
  const failedRows = result.batch.rows.filter((r) => r.outcome !== 'success');
  const { reasons, advice } = splitSharedAdvice(failedRows.map((r) => r.reason ?? ''));
  failedRows.forEach((row, i) => {
    say(
      style.dim(
        `  row ${row.row}: ${row.outcome}${row.code ? ` [${row.code}]` : ''} ${reasons[i]}`.trimEnd(),
      ),
    );
  });
  if (advice) say(style.dim(`  ${advice}`));
  say(`  batch: ${result.html}`);
  if (counts.failed > 0)
    say(
      style.dim(
        `  rerun the failed rows: mime replay ${workflowPath} --rows ${flags.rows} --only-failed ${result.dir}`,
      ),
    );
  return counts.failed === 0 && counts.not_run === 0 ? EXIT.ok : EXIT.failed;
}
