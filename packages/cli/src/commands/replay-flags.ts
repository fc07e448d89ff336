/**
 * The flags of `mime replay` that set a `ReplayOptions` field, derived from one typed map (as vitest
 * derives its command line from its config type): every option has an entry, either the flags that
 * set it or where its value comes from instead, so an option cannot be forgotten, and no flag is
 * described twice. Each default a flag's help states is read from the constant that sets it.
 */
import { resolve } from 'node:path';
import { describeToolkitTyping } from '@mime-desktop/os-io';
import {
  type ConfirmAnswer,
  type ConfirmRequest,
  DEFAULT_AGENT_SCOPE,
  DEFAULT_BUDGETS,
  DEFAULT_MAX_UNUSABLE_REPLIES,
  DEFAULT_MODE,
  DEFAULT_MODEL_IMAGE,
  DEFAULT_STEP_TIMEOUT_MS,
  type ReplayOptions,
  SUPPORTED_MODES,
} from '@mime-desktop/replay';
import { type Command, Option } from 'commander';
import { UsageError } from '../exit-codes.ts';
import { positiveNumber, wholeNumber } from '../numbers.ts';
import { addModelOptions, type ModelFlags, modelFlags } from './model-options.ts';

/** What commander parsed, by attribute name (`--max-iterations` is `maxIterations`). */
export type ParsedFlags = Record<string, unknown>;

/** The flags that set one option, and the option's value from what commander parsed. */
interface OptionFlags<T> {
  add(command: Command): void;
  /** The value to pass, or undefined to keep the option's default. */
  read(flags: ParsedFlags): T | undefined;
}

/** An option that no flag sets: where its value comes from instead. */
interface NotAFlag {
  from: string;
}

/** Every option of `ReplayOptions`: its flags, or where it comes from. */
export type ReplayOptionFlags = { [K in keyof ReplayOptions]-?: OptionFlags<ReplayOptions[K]> | NotAFlag };

/** A flag that takes a value, parsed with the flag's name for its messages. */
function valueFlag<T>(
  flags: string,
  description: string,
  parse: (raw: string, flag: string) => T,
  configure: (option: Option) => Option = (option) => option,
): OptionFlags<T> {
  const option = configure(new Option(flags, description));
  const key = option.attributeName();
  const name = option.long ?? flags;
  return {
    add: (command) => command.addOption(option),
    read: (parsed) => {
      const raw = parsed[key];
      return typeof raw === 'string' ? parse(raw, name) : undefined;
    },
  };
}

/** A switch: the option is true when given, its default otherwise. */
function switchFlag(flags: string, description: string): OptionFlags<boolean> {
  const option = new Option(flags, description);
  const key = option.attributeName();
  return {
    add: (command) => command.addOption(option),
    read: (parsed) => (parsed[key] === true ? true : undefined),
  };
}

/** A flag that takes one of `choices`; commander refuses others. */
function choiceFlag<T extends string>(
  flags: string,
  description: string,
  choices: readonly T[],
  fallback: T,
): OptionFlags<T> {
  return valueFlag(
    flags,
    description,
    (raw) => raw as T,
    (option) => option.choices(choices).default(fallback),
  );
}

const msOf = (seconds: number | undefined) =>
  seconds === undefined ? undefined : Math.round(seconds * 1000);

function parseImageSize(raw: string, flag: string): ReplayOptions['image'] {
  const match = /^(\d+)x(\d+)$/.exec(raw);
  if (!match) throw new UsageError(`${flag} must look like 1280x800, got "${raw}"`);
  return { maxWidth: Number(match[1]), maxHeight: Number(match[2]) };
}

const BUDGET_FLAGS = [
  new Option(
    '--max-iterations <n>',
    `model turns per subtask before it is replanned (default ${DEFAULT_BUDGETS.iterations})`,
  ),
  new Option(
    '--max-model-calls <n>',
    `model requests in the whole run, repairs and follow-ups included; 0: never call a model (auto stops at a divergence it cannot re-find) (default ${DEFAULT_BUDGETS.modelCalls})`,
  ),
  new Option('--max-replans <n>', `replans in the whole run (default ${DEFAULT_BUDGETS.replans})`),
  new Option(
    '--max-duration <seconds>',
    `wall time of the whole run (default ${DEFAULT_BUDGETS.wallTimeMs / 1000})`,
  ),
];

/** The flags of every replay option; `confirm` is how `--confirm` asks before each action. */
export function replayOptionFlags(
  confirm: (request: ConfirmRequest) => Promise<ConfirmAnswer>,
): ReplayOptionFlags {
  return {
    mode: choiceFlag(
      '--mode <mode>',
      'replay mode: auto (recorded steps, the model where the screen diverged), trace (recorded steps only), agent (the model every turn)',
      SUPPORTED_MODES,
      DEFAULT_MODE,
    ),
    params: { from: '--param and --params-file, read by the command (sensitive params are refused there)' },
    useExamples: switchFlag(
      '--use-examples',
      'give each param that has no value (and no default in the workflow) its recorded example (default: such a param is missing, exit 2)',
    ),
    checkedParams: {
      from: '--param, --params-file and --use-examples, resolved by the run itself (--rows: by the batch)',
    },
    env: { from: "the process's environment" },
    promptSecret: { from: 'a hidden prompt on the terminal, when stdin is one' },
    desktop: { from: 'this display' },
    ocr: { from: "the run's own" },
    signal: { from: 'Ctrl+C and SIGTERM' },
    onEvent: { from: 'the console lines and the run log' },
    budgets: {
      add: (command) => {
        for (const option of BUDGET_FLAGS) command.addOption(option);
      },
      read: (parsed) => {
        const text = (key: string) => (typeof parsed[key] === 'string' ? (parsed[key] as string) : undefined);
        const seconds = wholeNumber(text('maxDuration'), '--max-duration');
        return {
          iterations: wholeNumber(text('maxIterations'), '--max-iterations'),
          modelCalls: wholeNumber(text('maxModelCalls'), '--max-model-calls', 0),
          replans: wholeNumber(text('maxReplans'), '--max-replans', 0),
          wallTimeMs: seconds === undefined ? undefined : seconds * 1000,
        };
      },
    },
    dryRun: switchFlag('--dry-run', 'let the model decide but execute nothing'),
    confirmAction: {
      add: (command) => void command.option('--confirm', 'ask on the terminal before each action'),
      read: (parsed) => (parsed.confirm === true ? confirm : undefined),
    },
    image: valueFlag(
      '--image-size <WxH>',
      `largest screenshot sent to the model (default ${DEFAULT_MODEL_IMAGE.maxWidth}x${DEFAULT_MODEL_IMAGE.maxHeight})`,
      parseImageSize,
    ),
    settle: { from: 'its defaults (a library option: the screen-settle wait after an action)' },
    historyLimit: { from: 'its default (a library option)' },
    noProgressRepeats: { from: 'its default (a library option)' },
    maxUnusableReplies: valueFlag(
      '--max-unusable-replies <n>',
      `model replies in a row that name no usable action before the run stops with MIME_MODEL_OUTPUT (default ${DEFAULT_MAX_UNUSABLE_REPLIES})`,
      (raw, flag) => wholeNumber(raw, flag, 1),
    ),
    agentScope: choiceFlag(
      '--agent-scope <scope>',
      "where the model may act: app, only inside the windows of the workflow's apps (its setup window, the windows the recording touched; an action elsewhere is refused and the model told why), or screen, anywhere",
      ['app', 'screen'] as const,
      DEFAULT_AGENT_SCOPE,
    ),
    pauseHotkey: { from: 'its default (the hotkey is printed when the run starts)' },
    pause: { from: 'the pause hotkey (a library option: the pause button of a UI)' },
    runsDir: valueFlag(
      '--runs-dir <dir>',
      "folder the run's folder is written into (default <workflow>/.replay, or the batch folder with --rows); an exported skill's run script points it at the mime home",
      (raw) => resolve(raw),
    ),
    stepTimeoutMs: valueFlag(
      '--step-timeout <seconds>',
      `trace and auto: how long to wait for a step's recorded screen (an app starting, a dialog opening) before it counts as diverged (default ${DEFAULT_STEP_TIMEOUT_MS / 1000})`,
      (raw, flag) => msOf(positiveNumber(raw, flag, 3600)),
    ),
    typeDelayMs: valueFlag(
      '--type-delay <ms>',
      `pause after each typed key, for an app that drops keys typed fast (default by the app's toolkit: ${describeToolkitTyping()}; a step's type_delay_ms wins)`,
      (raw, flag) => wholeNumber(raw, flag, 0),
    ),
    runSetup: switchFlag(
      '--run-setup',
      "run the workflow's setup command when its app window is not open (without it, replay waits for the window)",
    ),
    fresh: switchFlag(
      '--fresh',
      "put the app in its recorded starting state first (and before each --rows row on this display): the workflow's setup.reset command, else end the app and run its setup command again",
    ),
    queue: switchFlag(
      '--queue',
      'wait while another replay (from any process: mime replay, mime mcp, the studio) holds this display, instead of exiting 75 naming it',
    ),
    holder: { from: '`mime replay <workflow>`, as a busy error names this run to others' },
    onDisplayWait: { from: 'a line saying who holds the display while --queue waits' },
    displayLock: { from: 'the run, or --rows on this display, which holds it across its rows' },
    // The model flags come last: reflect and doctor share them.
    model: { from: 'the model settings (modelConfig)' },
    modelConfig: {
      add: (command) => void addModelOptions(command),
      read: (parsed) => ({
        flags: modelFlags(parsed as ModelFlags),
        configFile: typeof parsed.config === 'string' ? parsed.config : undefined,
      }),
    },
  };
}

const isFlag = (entry: OptionFlags<unknown> | NotAFlag): entry is OptionFlags<unknown> => 'add' in entry;

/** Adds the flag of every option that has one, in the map's order. */
export function addReplayOptionFlags(command: Command, flags: ReplayOptionFlags): Command {
  for (const entry of Object.values<OptionFlags<unknown> | NotAFlag>(flags))
    if (isFlag(entry)) entry.add(command);
  return command;
}

/** The options the parsed flags set (options no flag gave keep their defaults). */
export function replayOptionsFrom(flags: ReplayOptionFlags, parsed: ParsedFlags): ReplayOptions {
  const options: Record<string, unknown> = {};
  for (const [key, entry] of Object.entries<OptionFlags<unknown> | NotAFlag>(flags)) {
    const value = isFlag(entry) ? entry.read(parsed) : undefined;
    if (value !== undefined) options[key] = value;
  }
  return options as ReplayOptions;
}
