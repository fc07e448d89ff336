import type { Command } from 'commander';
import { junitFileOf, reportBatchToCi } from '../ci-output.ts';
import { EXIT, type ExitCode } from '../exit-codes.ts';
import { say, style } from '../output.ts';

const COLLECT_EXAMPLE = 'mime batch collect /shared/batch-1 --reporter junit results.xml';

export function registerBatch(program: Command, run: (code: Promise<ExitCode>) => void): void {
  const batch = program
    .command('batch')
    .summary('batches of runs: collect row folders into a batch report')
    .description(
      'Batches of runs. A batch is made by `mime replay <workflow> --rows <file>`; `mime batch collect` merges row folders written elsewhere (pods on a shared volume).',
    )
    .addHelpText(
      'after',
      `\nExamples:\n  ${COLLECT_EXAMPLE}\n\nExit codes: 0 every row succeeded, 1 a row did not, 2 not a batch folder or bad usage.`,
    );
  batch
    .command('collect')
    .summary('merge row folders into batch.json and batch.html')
    .description(
      'Merge the row-<n> folders of a batch folder (written by `mime replay --rows`, or by pods of a Kubernetes Indexed Job running `mime replay --rows rows.csv --row-index $JOB_COMPLETION_INDEX --out <dir>` on a shared volume) into batch.json and batch.html.',
    )
    .argument('<dir>', 'the folder that holds the row-<n> folders')
    .option(
      '--reporter <kind file...>',
      'for CI: --reporter junit <file> also writes JUnit XML (a test case per row)',
    )
    .addHelpText(
      'after',
      `\nExamples:\n  ${COLLECT_EXAMPLE}\n\nExit codes: 0 every row succeeded, 1 a row did not, 2 not a batch folder.`,
    )
    .action((dir: string, flags: { reporter?: string[] }) =>
      run(
        (async () => {
          const junitFile = junitFileOf(flags.reporter);
          const { collectBatch } = await import('@mime-desktop/batch');
          const { writeBatchFiles } = await import('@mime-desktop/report');
          const result = await collectBatch(dir);
          const page = await writeBatchFiles(dir, result);
          await reportBatchToCi(result, junitFile);
          const { counts } = result;
          const mark = counts.failed === 0 && counts.not_run === 0 ? style.green('✓') : style.red('✗');
          say(
            `${mark} ${counts.success} of ${result.rows.length} row(s) succeeded, ${counts.failed} failed, ${counts.not_run} not run`,
          );
          say(`  batch: ${page}`);
          return counts.failed === 0 && counts.not_run === 0 ? EXIT.ok : EXIT.failed;
        })(),
      ),
    );
}
