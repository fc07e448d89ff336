import { spawn } from 'node:child_process';
import type { Command } from 'commander';
import { EXIT, type ExitCode, UsageError } from '../exit-codes.ts';
import { type HomeOptions, resolveHome } from '../home.ts';
import { wholeNumber } from '../numbers.ts';
import { printData, say, style } from '../output.ts';
import { onStopSignals } from '../stop-signals.ts';

interface StudioFlags extends HomeOptions {
  port?: string;
  host?: string;
  open?: boolean;
}

const LOCAL = new Set(['127.0.0.1', 'localhost', '::1']);

async function runStudio(flags: StudioFlags): Promise<ExitCode> {
  const home = resolveHome(flags);
  const port = wholeNumber(flags.port, '--port', 0);
  if (port !== undefined && port > 65535) throw new UsageError(`--port must be at most 65535, got ${port}`);
  const { startStudio } = await import('@mime-desktop/studio');
  const studio = await startStudio({ home, port, host: flags.host });
  if (flags.host && !LOCAL.has(flags.host)) {
    say(
      style.yellow(
        `warning: listening on ${flags.host}: other machines can reach the studio; only the token in the URL keeps them out, and the traffic is not encrypted`,
      ),
    );
  }
  say(`mime studio on ${home}: open this URL (it carries the token); Ctrl+C stops it`);
  printData(studio.url);
  if (flags.open)
    spawn('xdg-open', [studio.url], { stdio: 'ignore', detached: true })
      .on('error', () => undefined)
      .unref();
  let stopListening: (() => void) | undefined;
  await new Promise<void>((resolve) => {
    stopListening = onStopSignals(() => resolve());
  });
  await studio.close();
  stopListening?.();
  return EXIT.ok;
}

export function registerStudio(program: Command, run: (code: Promise<ExitCode>) => void): void {
  program
    .command('studio')
    .summary('review and edit workflows in a local web app')
    .description(
      'Serve the studio, a local web app to review workflows step by step with their screenshots, edit them (make a typed value a param; saving validates, keeps the previous schema.json and never overwrites a change made on disk meanwhile) and run them on this display while their steps stream in. Listens on 127.0.0.1; the URL it prints carries a random token, and requests without it, from another Host or, for writes, from another Origin are refused.',
    )
    .option('--home <dir>', 'data root (default: $MIME_HOME, else the current directory)')
    .option('--port <n>', 'port to listen on (default: a free one)')
    .option(
      '--host <address>',
      'listen on this address instead of 127.0.0.1 (other machines can reach it; prints a warning)',
    )
    .option('--open', 'open the page in the default browser')
    .addHelpText(
      'after',
      '\nExamples:\n  mime studio --home ~/mime --open\n  mime studio --port 8700\n\nExit codes: 0 stopped (Ctrl+C), 2 bad input or usage (a bad flag, a port in use).',
    )
    .action((flags: StudioFlags) => run(runStudio(flags)));
}
