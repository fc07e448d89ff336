import { createRequire } from 'node:module';
import { isMimeError } from '@mime-desktop/schema/errors';
import { Command, CommanderError } from 'commander';
import { EXIT, type ExitCode, exitCodeFor } from './exit-codes.ts';
import { hintFor } from './hints.ts';
import { inert, printJson, say, style } from './output.ts';
import { refuseRepeatedFlags } from './single-flags.ts';

/** Registers one command on the program; its action hands its exit code to `run`. */
type Register = (program: Command, run: (code: Promise<ExitCode>) => void) => void;

/**
 * The commands, in the order a user meets them, each loaded only when needed: a run of one command
 * imports that command's packages only (`mime validate` never loads the desktop or the model client),
 * which keeps start-up short. Help and unknown commands load them all.
 */
const COMMANDS: Record<string, () => Promise<Register>> = {
  doctor: async () => (await import('./commands/doctor.ts')).registerDoctor,
  record: async () => (await import('./commands/record.ts')).registerRecord,
  reflect: async () => (await import('./commands/reflect.ts')).registerReflect,
  edit: async () => (await import('./commands/edit.ts')).registerEdit,
  studio: async () => (await import('./commands/studio.ts')).registerStudio,
  replay: async () => (await import('./commands/replay.ts')).registerReplay,
  report: async () => (await import('./commands/report.ts')).registerReport,
  heal: async () => (await import('./commands/heal.ts')).registerHeal,
  validate: async () => (await import('./commands/validate.ts')).registerValidate,
  list: async () => (await import('./commands/list.ts')).registerList,
  batch: async () => (await import('./commands/batch.ts')).registerBatch,
  mcp: async () => (await import('./commands/mcp.ts')).registerMcp,
  export: async () => (await import('./commands/export.ts')).registerExport,
  pack: async () => (await import('./commands/pack.ts')).registerPack,
  install: async () => (await import('./commands/pack.ts')).registerInstall,
};

/** The commands a command line needs: the one it names, none for a bare `--version`, else all. */
function commandsFor(argv: readonly string[]): string[] {
  const named = argv.find((arg) => !arg.startsWith('-'));
  if (named !== undefined && named in COMMANDS) return [named];
  if (named === undefined && argv.length === 1 && (argv[0] === '-V' || argv[0] === '--version')) return [];
  return Object.keys(COMMANDS);
}

const { version } = createRequire(import.meta.url)('../package.json') as { version: string };
export const MIME_VERSION = version;

/** An error as JSON on stdout, for `--json` callers that parse stdout only. */
function printJsonError(code: string, message: string, hint: string | null): void {
  printJson({ ok: false, error: { code, message, hint } });
}

function reportError(error: unknown, json: boolean): void {
  if (json) {
    if (isMimeError(error)) printJsonError(error.code, error.message, hintFor(error.code));
    else printJsonError('MIME_INTERNAL', error instanceof Error ? error.message : String(error), null);
  }
  if (isMimeError(error)) {
    say(`${style.red('error')} ${style.dim(`[${error.code}]`)} ${inert(error.message, { multiline: true })}`);
    const hint = hintFor(error.code);
    if (hint) say(style.dim(`  ${hint}`));
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
    // picocolors reads the flag itself (and NO_COLOR, FORCE_COLOR); declared so every command takes it.
    .option('--no-color', 'no colours in the output (as NO_COLOR=1)')
    .showSuggestionAfterError()
    .configureOutput({
      writeOut: (text) => process.stdout.write(text),
      writeErr: (text) => process.stderr.write(text),
      outputError: (text, write) => write(`${style.red('error')} ${text.replace(/^error: /, '')}`),
    })
    .exitOverride()
    .addHelpText(
      'after',
      '\nExit codes: 0 ok, 1 the run failed, 2 bad input or usage, 75 the display is busy (another replay holds it), 130 aborted.\nRun `mime <command> --help` for examples.',
    );
  const names = commandsFor(argv);
  const registers = await Promise.all(names.map((name) => COMMANDS[name]?.()));
  for (const register of registers) register?.(program, run);
  const override = (command: Command) => {
    command.exitOverride();
    command.commands.forEach(override);
  };
  override(program);
  refuseRepeatedFlags(program);

  const json = argv.includes('--json');
  try {
    await program.parseAsync(argv, { from: 'user' });
    return pending ? await pending : EXIT.ok;
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.exitCode === 0) return EXIT.ok;
      if (json) printJsonError('MIME_USAGE', error.message.replace(/^error: /, ''), null);
      return EXIT.usage;
    }
    reportError(error, json);
    return exitCodeFor(error);
  }
}
