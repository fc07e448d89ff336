/**
 * What CI reads besides the exit code: a JUnit XML file (`--reporter junit <file>`) and, under GitHub
 * Actions (`GITHUB_ACTIONS=true`), an error annotation per failed run or row.
 */
import { resolve } from 'node:path';
import { batchJunit, runJunit, writeJunit } from '@mime-desktop/report';
import type { BatchFile, RunSummary } from '@mime-desktop/schema';
import { UsageError } from './exit-codes.ts';

/** The reporters `--reporter` takes, each with the file it writes. */
const REPORTERS = ['junit'] as const;

/** The file of `--reporter junit <file>`, or null without the flag. */
export function junitFileOf(values: readonly string[] | undefined): string | null {
  if (values === undefined) return null;
  const [kind, file, ...rest] = values;
  if (kind !== 'junit' || file === undefined || rest.length > 0) {
    throw new UsageError(
      `--reporter takes a reporter and its file, e.g. --reporter junit results.xml (reporters: ${REPORTERS.join(', ')}); got ${JSON.stringify(values.join(' '))}`,
    );
  }
  return resolve(file);
}

/**
 * A GitHub Actions workflow command on stderr (the runner reads commands from both streams; stdout
 * stays for `--json`), escaped as the toolkit escapes them: `%`, CR and LF in the message, and also
 * `:` and `,` in properties.
 */
function annotate(title: string, message: string): void {
  const data = (text: string) => text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
  const property = (text: string) => data(text).replace(/:/g, '%3A').replace(/,/g, '%2C');
  process.stderr.write(`::error title=${property(title)}::${data(message)}\n`);
}

const onGitHub = () => process.env.GITHUB_ACTIONS === 'true';

/** After a single run: the JUnit file when asked for, an annotation when it failed on GitHub. */
export async function reportRunToCi(
  summary: RunSummary,
  report: string | null,
  junitFile: string | null,
): Promise<void> {
  if (junitFile) await writeJunit(junitFile, runJunit(summary, report));
  if (onGitHub() && summary.outcome !== 'success') {
    annotate(
      `mime replay: ${summary.task_name} ${summary.outcome}`,
      `[${summary.code}] ${summary.reason ?? ''}${report ? `\nreport: ${report}` : ''}`,
    );
  }
}

/** After a batch: the JUnit file when asked for, an annotation a failed row on GitHub. */
export async function reportBatchToCi(batch: BatchFile, junitFile: string | null): Promise<void> {
  if (junitFile) await writeJunit(junitFile, batchJunit(batch));
  if (!onGitHub()) return;
  for (const row of batch.rows.filter((r) => r.outcome !== 'success' && r.outcome !== 'not_run')) {
    annotate(
      `mime replay: ${batch.task_name} row ${row.row} ${row.outcome}`,
      `[${row.code ?? row.outcome}] ${row.reason ?? ''}`,
    );
  }
}
