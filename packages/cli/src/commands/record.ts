import { createInterface } from 'node:readline/promises';
import type { WindowQuery } from '@mime-desktop/os-io';
import {
  type Annotation,
  type LaunchOptions,
  type RecorderEvent,
  record,
  sendControl,
} from '@mime-desktop/record';
import type { Command } from 'commander';
import { EXIT, type ExitCode, UsageError } from '../exit-codes.ts';
import { type HomeOptions, resolveHome } from '../home.ts';
import { positiveNumber } from '../numbers.ts';
import { printData, printJson, say, style } from '../output.ts';
import { createRunLog } from '../run-log.ts';
import { onStopSignals } from '../stop-signals.ts';
import { TerminalKeys } from '../terminal-keys.ts';

interface RecordFlags extends HomeOptions {
  name?: string;
  description?: string;
  fps?: string;
  maxDuration?: string;
  annotateKey?: string;
  stopKey?: string;
  secretKey?: string;
  json?: boolean;
  launch?: string;
  launchWindow?: string;
  launchClass?: string;
}

/** The app launch of `--launch`, `--launch-window` and `--launch-class`. */
function launchOptions(flags: RecordFlags): LaunchOptions | undefined {
  if (!flags.launch) {
    if (flags.launchWindow || flags.launchClass) {
      throw new UsageError(
        '--launch-window and --launch-class go with --launch "<command that starts the app>"',
      );
    }
    return undefined;
  }
  const window: WindowQuery = {};
  for (const [flag, key, value] of [
    ['--launch-window', 'title', flags.launchWindow],
    ['--launch-class', 'class', flags.launchClass],
  ] as const) {
    if (value === undefined) continue;
    try {
      new RegExp(value, 'u');
    } catch (error) {
      throw new UsageError(`${flag} takes a regular expression: ${(error as Error).message}`);
    }
    window[key] = value;
  }
  return { command: flags.launch, ...(window.title || window.class ? { window } : {}) };
}

function describeEvent(event: Extract<RecorderEvent, { type: 'event' }>): string {
  const d = event.details as Record<string, unknown>;
  const at = (x: unknown, y: unknown) => `(${Math.round(Number(x))}, ${Math.round(Number(y))})`;
  switch (event.action_type) {
    case null:
      return 'end';
    case 'type':
      if (d.secret) return `type ${style.yellow('[secret, not stored]')}`;
      return `type ${JSON.stringify(d.text)}${d.unresolved ? style.yellow(' [some keys unreadable]') : ''}`;
    case 'key':
      return `key ${d.key}`;
    case 'scroll':
      return `scroll dx=${d.dx} dy=${d.dy} at ${at(d.x, d.y)}`;
    case 'drag':
      return `drag ${at(d.x, d.y)} -> ${at(d.to_x, d.to_y)}`;
    case 'extract':
      return `extract ${JSON.stringify(d.query)}`;
    default:
      return `${event.action_type} ${at(d.x, d.y)}`;
  }
}

/**
 * Progress lines wait while a prompt owns the terminal: an event stored meanwhile (the extract just
 * answered, a click on the display) would otherwise land in the middle of the prompt's line.
 */
class ProgressLines {
  #waiting: string[] | null = null;

  say(line: string): void {
    if (this.#waiting) this.#waiting.push(line);
    else say(line);
  }

  hold(): void {
    this.#waiting ??= [];
  }

  release(): void {
    const waiting = this.#waiting ?? [];
    this.#waiting = null;
    for (const line of waiting) say(line);
  }
}

/** Progress on stderr; the session id on stdout (first line) so scripts can pick it up. */
function reportProgress(event: RecorderEvent, name: string, json: boolean, lines: ProgressLines): void {
  const say = (line: string) => lines.say(line);
  switch (event.type) {
    case 'started':
      if (!json) printData(event.sessionId);
      say(`${style.red('●')} Recording "${name}" into ${event.dir}`);
      say(
        style.dim(
          `  stop: Ctrl+C here or ${event.hotkeys.stop}; annotate: ${event.hotkeys.annotate}; secret typing: ${event.hotkeys.secret}`,
        ),
      );
      return;
    case 'event':
      say(`  #${event.index} ${describeEvent(event)}`);
      return;
    case 'secret':
      say(style.yellow(`  secret typing ${event.on ? 'ON: text is not stored' : 'off'}`));
      return;
    case 'annotation-requested':
      say(style.dim('  annotate from a script: mime record annotate --session <id> extract|details ...'));
      return;
    case 'stopping':
      say(style.dim(`  stopping (${event.reason})`));
      return;
    case 'ignored':
      say(style.dim(`  (not recorded: ${event.action_type}, ${event.reason})`));
      return;
    case 'warning':
      say(style.yellow(`  warning: ${event.message}`));
      return;
    default:
      return;
  }
}

/**
 * The annotation prompt, answered in this terminal: one key picks what to add (no Enter), then the
 * text is a line.
 */
async function promptInTerminal(
  keys: TerminalKeys,
  lines: ProgressLines,
  onInterrupt: () => void,
): Promise<Annotation | null> {
  return keys.hold(async () => {
    lines.hold();
    say(style.cyan('Recording paused.'));
    try {
      process.stderr.write(
        'Annotate: (e)xtract a value, add (d)etails to the next step, any other key cancels: ',
      );
      const key = await keys.readKey();
      process.stderr.write(`${key.name ?? ''}\n`);
      if (key.ctrl && key.name === 'c') {
        onInterrupt();
        return null;
      }
      if (key.name !== 'e' && key.name !== 'd') return null;
      const rl = createInterface({ input: process.stdin, output: process.stderr });
      rl.on('SIGINT', () => {
        rl.close();
        onInterrupt();
      });
      try {
        if (key.name === 'd') {
          const text = (await rl.question('Note for the next step: ')).trim();
          return text ? { type: 'details', text } : null;
        }
        const query = (await rl.question('What to extract from this screen: ')).trim();
        if (!query) return null;
        const values = (await rl.question('Example values, comma-separated (optional): '))
          .split(',')
          .map((v) => v.trim())
          .filter(Boolean);
        return { type: 'extract', query, values };
      } finally {
        rl.close();
      }
    } finally {
      say(style.cyan('Recording resumed.'));
      lines.release();
    }
  });
}

function registerControl(record: Command, run: (code: Promise<ExitCode>) => void): void {
  const send = (session: string, request: Parameters<typeof sendControl>[1], done: string) =>
    run(
      (async () => {
        const status = await sendControl(session, request);
        say(`${style.green('✓')} ${done} (${status.events} events so far)`);
        return EXIT.ok;
      })(),
    );
  const annotate = record
    .command('annotate')
    .description('Annotate a running recording from a script, as the Ctrl+I prompt does.')
    .requiredOption('--session <id>', 'session id of the running recording')
    .addHelpText(
      'after',
      '\nExamples:\n  mime record annotate --session 20261122T101500Z-play-song extract --query "the price" --value 9.99\n  mime record annotate --session 20261122T101500Z-play-song details --text "the button is hidden in a menu"',
    );
  annotate
    .command('extract')
    .description('Store an extract event on the current screen.')
    .requiredOption('--query <text>', 'what to read from the screen')
    .option('--value <text...>', 'example values')
    .action((options: { query: string; value?: string[] }) =>
      send(
        annotate.opts<{ session: string }>().session,
        { type: 'extract', query: options.query, values: options.value ?? [] },
        'extract stored',
      ),
    );
  annotate
    .command('details')
    .description('Attach a note to the next recorded event.')
    .requiredOption('--text <text>', 'the note')
    .action((options: { text: string }) =>
      send(
        annotate.opts<{ session: string }>().session,
        { type: 'details', text: options.text },
        'note attached to the next event',
      ),
    );
  record
    .command('secret')
    .description('Turn secret typing on or off in a running recording (typed text is not stored).')
    .requiredOption('--session <id>', 'session id of the running recording')
    .argument('<state>', 'on or off')
    .action((state: string, options: { session: string }) => {
      if (state !== 'on' && state !== 'off')
        throw new UsageError(`state must be "on" or "off", got "${state}"`);
      send(options.session, { type: 'secret', on: state === 'on' }, `secret typing ${state}`);
    });
  record
    .command('stop')
    .description('Stop a running recording.')
    .requiredOption('--session <id>', 'session id of the running recording')
    .action((options: { session: string }) => send(options.session, { type: 'stop' }, 'stop requested'));
}

export function registerRecord(program: Command, run: (code: Promise<ExitCode>) => void): void {
  const command = program
    .command('record')
    .summary('record a task by doing it once')
    .description(
      'Record a task: every click, drag, scroll, key chord and typing burst, each with the screen as it was just before. Stop with Ctrl+C here, the stop hotkey, or `mime record stop`. Press Ctrl+I (on the display or in this terminal) to annotate: extract a value from the screen, or add details to the next step. Toggle secret typing for passwords: their text is never stored, and reflect turns them into sensitive params.',
    )
    .option('--name <name>', 'name of the task (required)')
    .option('--description <text>', 'what the task is for')
    .option('--fps <n>', 'frames a second kept for the PRE screenshots (default 10)')
    .option('--max-duration <seconds>', 'stop by itself after this long')
    .option('--home <dir>', 'data root (default: $MIME_HOME, else the current directory)')
    .option('--annotate-key <chord>', 'annotation hotkey (default ctrl+i)')
    .option('--stop-key <chord>', 'stop hotkey (default ctrl+alt+shift+s)')
    .option('--secret-key <chord>', 'secret typing toggle (default ctrl+alt+shift+h)')
    .option('--launch <command>', 'start the app first and store the launch, so replay can start it too')
    .option(
      '--launch-window <title>',
      'with --launch: the app window to wait for, by title (a regular expression)',
    )
    .option(
      '--launch-class <class>',
      'with --launch: the app window to wait for, by class (default: the new window)',
    )
    .option('--json', 'print the result as JSON on stdout')
    .addHelpText(
      'after',
      '\nExamples:\n  mime record --name "play song" --description "play a song in the music app"\n  xvfb-run -a mime record --name smoke --max-duration 30 --json\n\nExit codes: 0 recorded, 1 recording failed, 2 bad input or no display, 75 a replay is running on the display (its input would be recorded as yours).',
    )
    .action((flags: RecordFlags) =>
      run(
        (async () => {
          const name = flags.name?.trim();
          if (!name) throw new UsageError('--name is required: mime record --name "what the task does"');
          const seconds = positiveNumber(flags.maxDuration, '--max-duration', 86_400, '60');
          const controller = new AbortController();
          const log = createRunLog('record', 'record.log');
          const interrupt = () => controller.abort('interrupt');
          const keys = process.stdin.isTTY ? new TerminalKeys() : undefined;
          const lines = new ProgressLines();
          const terminate = () => controller.abort('signal');
          const stopListening = onStopSignals(interrupt, terminate);
          try {
            const result = await record({
              name,
              description: flags.description,
              home: resolveHome(flags),
              fps: positiveNumber(flags.fps, '--fps', 60, '10'),
              launch: launchOptions(flags),
              maxDurationMs: seconds === undefined ? undefined : seconds * 1000,
              signal: controller.signal,
              hotkeys: { annotate: flags.annotateKey, stop: flags.stopKey, secret: flags.secretKey },
              promptAnnotation: keys ? () => promptInTerminal(keys, lines, interrupt) : undefined,
              // Ctrl+I in this terminal too: it need not be on the recorded display (ssh, tmux).
              annotateFrom: keys
                ? (ask) => keys.listen({ onAnnotate: ask, onInterrupt: interrupt })
                : undefined,
              // X terminal emulators (xterm, konsole, alacritty, kitty...) set WINDOWID: then the window
              // focused now is the terminal running mime, and what is typed or clicked there is left out.
              ignoreTerminal: process.stdin.isTTY === true && Boolean(process.env.WINDOWID),
              onEvent: (event) => {
                if (event.type === 'started') log.attach(event.dir);
                log.event(event);
                reportProgress(event, name, flags.json === true, lines);
              },
            });
            if (flags.json) printJson(result);
            say(
              `${style.green('✓')} ${result.events} events in ${(result.durationMs / 1000).toFixed(1)} s saved to ${result.dir}\n  next: mime reflect --session ${result.sessionId}`,
            );
            return EXIT.ok;
          } finally {
            stopListening();
          }
        })(),
      ),
    );
  registerControl(command, run);
}
