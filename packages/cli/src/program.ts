import { createRequire } from 'node:module';
import { Command, CommanderError } from 'commander';
import { registerDoctor } from './commands/doctor.ts';
import { registerEdit } from './commands/edit.ts';
import { registerList } from './commands/list.ts';
import { registerRecord } from './commands/record.ts';
import { registerReflect } from './commands/reflect.ts';
import { registerReplay } from './commands/replay.ts';
import { registerReport } from './commands/report.ts';
import { registerValidate } from './commands/validate.ts';
import { EXIT, type ExitCode, exitCodeFor } from './exit-codes.ts';
import { say, style } from './output.ts';

const { version } = createRequire(import.meta.url)('../package.json') as { version: string };
export const MIME_VERSION = version;

function reportError(error: unknown): void {
  if (
    error instanceof Error &&
    'code' in error &&
    typeof error.code === 'string' &&
    error.code.startsWith('MIME_')
  ) {
    say(`${style.red('error')} ${style.dim(`[${error.code}]`)} ${error.message}`);
    return;
  }
  say(`${style.red('internal error')}: ${error instanceof Error ? error.message : String(error)}`);
  if (process.env.MIME_DEBUG && error instanceof Error && error.stack) say(style.dim(error.stack));
  else say(style.dim('Set MIME_DEBUG=1 for the stack trace, and please report it.'));
}

/**
 * Runs the `mime` command line and resolves to its exit code; never calls process.exit itself, so
 * tests and wrappers can call it.
 */
export async function runCli(argv: readonly string[]): Promise<ExitCode> {
  let pending: Promise<ExitCode> | undefined;
  const run = (work: Promise<ExitCode>) => {
    pending = work;
  };
  const program = new Command('mime')
    .description('Teach a computer a desktop task by watching it once: record, reflect, edit, replay.')
    .version(MIME_VERSION, '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .showSuggestionAfterError()
    .configureOutput({
      writeOut: (text) => process.stdout.write(text),
      writeErr: (text) => process.stderr.write(text),
      outputError: (text, write) => write(`${style.red('error')} ${text.replace(/^error: /, '')}`),
    })
    .exitOverride()
    .addHelpText(
      'after',
      '\nExit codes: 0 ok, 1 the run failed, 2 bad input or usage, 130 aborted.\nRun `mime <command> --help` for examples.',
    );
  // In the order a user meets them.
  registerDoctor(program, run);
  registerRecord(program, run);
  registerReflect(program, run);
  registerEdit(program, run);
  registerReplay(program, run);
  registerReport(program, run);
  registerValidate(program, run);
  registerList(program, run);
  const override = (command: Command) => {
    command.exitOverride();
    command.commands.forEach(override);
  };
  override(program);

  try {
    await program.parseAsync(argv, { from: 'user' });
    return pending ? await pending : EXIT.ok;
  } catch (error) {
    if (error instanceof CommanderError) {
      return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
    reportError(error);
    return exitCodeFor(error);
  }
}
