import { spawn } from 'node:child_process';
import { stat } from 'node:fs/promises';
import { DEFAULT_MAX_IMAGE_WIDTH, type ReportOptions, writeReport } from '@mime-desktop/report';
import type { Command } from 'commander';
import { EXIT, type ExitCode, UsageError } from '../exit-codes.ts';
import { mark, printData, say } from '../output.ts';

interface ReportFlags {
  open?: boolean;
  maxImageWidth?: string;
}

/** Library errors that mean "fix the command line": shown with their message, exit 2. */

function reportOptions(flags: ReportFlags): ReportOptions {
  if (flags.maxImageWidth === undefined) return {};
  const width = Number(flags.maxImageWidth);
  if (!Number.isInteger(width)) {
    throw new UsageError(`--max-image-width must be a whole number of pixels, got "${flags.maxImageWidth}"`);
  }
  return { maxImageWidth: width };
}

/** The desktop's "open this file" command. */
function opener(file: string): { command: string; args: string[] } {
  if (process.platform === 'darwin') return { command: 'open', args: [file] };
  if (process.platform === 'win32') return { command: 'cmd', args: ['/c', 'start', '""', file] };
  return { command: 'xdg-open', args: [file] };
}

/** Opens the report in the default browser, without waiting for it; false when no opener could start. */
function openInBrowser(file: string): Promise<boolean> {
  const { command, args } = opener(file);
  return new Promise((resolve) => {
    const child = spawn(command, args, { detached: true, stdio: 'ignore' });
    child.once('error', () => resolve(false));
    child.once('spawn', () => {
      child.unref();
      resolve(true);
    });
  });
}

async function runReportCommand(runDir: string, flags: ReportFlags): Promise<ExitCode> {
  const file = await writeReport(runDir, reportOptions(flags));
  printData(file);
  const kib = Math.round((await stat(file)).size / 1024);
  say(`${mark.ok()} report written (${kib} KiB, one self-contained file)`);
  if (flags.open && !(await openInBrowser(file))) {
    say(`${mark.warn()} could not start ${opener(file).command}; open the file in a browser yourself`);
  }
  return EXIT.ok;
}

export function registerReport(program: Command, run: (code: Promise<ExitCode>) => void): void {
  program
    .command('report')
    .summary('build the HTML report of a replay run')
    .description(
      'Build <run-dir>/report.html: one self-contained page (screenshots inlined, no network) with the outcome, params, model usage and budgets, and a timeline of the subtasks, each turn with its screenshot, the action drawn on it, the model’s observation and memory, extracts, replans and errors. Sensitive params appear only as {name}. Prints the path on stdout.',
    )
    .argument('<run-dir>', 'a run folder: <workflow>/.replay/<run_id>/')
    .option('--open', 'open the report in the default browser')
    .option(
      '--max-image-width <px>',
      `screenshots wider than this are scaled down (default ${DEFAULT_MAX_IMAGE_WIDTH})`,
    )
    .addHelpText(
      'after',
      '\nExamples:\n  mime report workflows/20261122T101500Z-play-song/.replay/20261122T103000Z-3fa2\n  mime report "$(ls -d workflows/*/.replay/* | tail -1)" --open\n\nExit codes: 0 written, 2 not a run folder or a damaged run file.',
    )
    .action((runDir: string, flags: ReportFlags) => run(runReportCommand(runDir, flags)));
}
