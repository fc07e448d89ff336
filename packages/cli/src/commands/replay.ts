import { basename, dirname, join } from 'node:path';
import { createInterface } from 'node:readline/promises';
import {
  applyHeal,
  type ConfirmAnswer,
  type ConfirmRequest,
  hasRecording,
  planHeal,
  type ReplayOptions,
  type ReplayResult,
  replay,
  runModeOf,
  secretEnvName,
} from '@mime-desktop/replay';
import {
  describeSafety,
  loadWorkflow,
  MimeError,
  RUN_FILES,
  readJsonFile,
  type TaskParam,
  type Workflow,
} from '@mime-desktop/schema';
import type { Command } from 'commander';
import { junitFileOf, reportRunToCi } from '../ci-output.ts';
import { EXIT, type ExitCode, UsageError } from '../exit-codes.ts';
import { hintFor, MODEL_FORBIDDEN } from '../hints.ts';
import { type HomeOptions, resolveWorkflowTarget } from '../home.ts';
import { inert, printData, printJson, say, style } from '../output.ts';
import { createRunLog } from '../run-log.ts';
import { collectRepeated } from '../single-flags.ts';
import { onStopSignals } from '../stop-signals.ts';
import { describeEvent } from './replay-events.ts';
import {
  addReplayOptionFlags,
  type ParsedFlags,
  replayOptionFlags,
  replayOptionsFrom,
} from './replay-flags.ts';
import { type RowsFlags, runRowsCommand, strayRowsFlags } from './replay-rows.ts';

/** The command's own flags; those that set a replay option are read through {@link OPTION_FLAGS}. */
interface ReplayFlags extends HomeOptions, RowsFlags, ParsedFlags {
  param?: string[];
  paramsFile?: string;
  dryRun?: boolean;
  confirm?: boolean;
  json?: boolean;
  heal?: boolean;
}

/** Ctrl+C at one of this command's prompts. */
class PromptInterruptedError extends MimeError {
  constructor() {
    super('MIME_ABORTED', 'Interrupted at the prompt; nothing was run.');
  }
}

/** `--param name=value` pairs (the value may hold `=`). */
function parseParamFlags(pairs: readonly string[]): Record<string, string> {
  // No prototype: a param may be named `constructor` or `__proto__`.
  const values: Record<string, string> = Object.create(null);
  for (const pair of pairs) {
    const at = pair.indexOf('=');
    if (at <= 0)
      throw new UsageError(`--param takes name=value, got "${pair}" (e.g. --param song_name=Numb)`);
    const name = pair.slice(0, at);
    const value = pair.slice(at + 1);
    if (Object.hasOwn(values, name) && values[name] !== value) {
      throw new UsageError(
        `--param ${name} is given twice, as ${JSON.stringify(values[name])} and ${JSON.stringify(value)}: give it once`,
      );
    }
    values[name] = value;
  }
  return values;
}

/** A params file: a JSON object of strings, numbers and booleans. */
async function readParamsFile(file: string): Promise<Record<string, string>> {
  // The user's own file, named on the command line: it may be a link anywhere.
  const document = await readJsonFile(file, { inside: false });
  if (document === null || typeof document !== 'object' || Array.isArray(document)) {
    throw new UsageError(`${file}: a params file is a JSON object such as {"song_name": "Numb"}`);
  }
  const values: Record<string, string> = Object.create(null);
  const bad: string[] = [];
  for (const [name, value] of Object.entries(document)) {
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean')
      values[name] = String(value);
    else bad.push(name);
  }
  if (bad.length > 0)
    throw new UsageError(`${file}: values must be strings, numbers or booleans (${bad.join(', ')})`);
  return values;
}

/** Reads a line on the TTY without echoing it. */
function askHidden(question: string): Promise<string> {
  const stdin = process.stdin;
  process.stderr.write(question);
  stdin.setRawMode(true);
  stdin.resume();
  stdin.setEncoding('utf8');
  return new Promise((resolve, reject) => {
    let value = '';
    const finish = () => {
      stdin.off('data', onData);
      stdin.setRawMode(false);
      stdin.pause();
      process.stderr.write('\n');
    };
    const onData = (chunk: string) => {
      for (const char of chunk) {
        if (char === '\r' || char === '\n') {
          finish();
          resolve(value);
          return;
        }
        if (char === '\u0003') {
          finish();
          reject(new PromptInterruptedError());
          return;
        }
        value = char === '\u007f' || char === '\b' ? value.slice(0, -1) : value + char;
      }
    };
    stdin.on('data', onData);
  });
}

async function promptSecret(param: TaskParam): Promise<string | null> {
  const about = param.description ? ` (${inert(param.description)})` : '';
  return askHidden(`${style.cyan('?')} ${inert(param.name)}${about}, sensitive, not shown: `);
}

/** The `--confirm` prompt: Enter or y runs the action, n skips it, q stops the run. */
async function confirmOnTerminal(request: ConfirmRequest): Promise<ConfirmAnswer> {
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  let interrupted = false;
  rl.on('SIGINT', () => {
    interrupted = true;
    rl.close();
  });
  try {
    const answer = (
      await rl.question(`    ${style.cyan('?')} run ${request.description}? [Y]es, [n]o (skip), [q]uit: `)
    )
      .trim()
      .toLowerCase();
    if (answer.startsWith('q')) return 'stop';
    return answer.startsWith('n') ? 'skip' : 'run';
  } catch (error) {
    if (interrupted) return 'stop';
    throw error;
  } finally {
    rl.close();
  }
}

/** The flags of every replay option (`--confirm` asks on this terminal). */
const OPTION_FLAGS = replayOptionFlags(confirmOnTerminal);

function checkInteraction(flags: ReplayFlags): void {
  if (flags.confirm && !process.stdin.isTTY) {
    throw new UsageError(
      '--confirm asks before each action on the terminal, but stdin is not a TTY; run it in a terminal, or use --dry-run to see the actions without executing them',
    );
  }
  if (flags.confirm && flags.dryRun) {
    throw new UsageError('--confirm and --dry-run do not go together: a dry run executes nothing');
  }
}

/** Values from --params-file and --param; sensitive params are refused there (they belong in the environment). */
async function readParams(flags: ReplayFlags, workflow: Workflow): Promise<Record<string, string>> {
  const params: Record<string, string> = Object.assign(
    Object.create(null),
    flags.paramsFile ? await readParamsFile(flags.paramsFile) : {},
    parseParamFlags(flags.param ?? []),
  );
  const sensitive = workflow.task_params
    .filter((p) => p.sensitive && Object.hasOwn(params, p.name))
    .map((p) => p.name);
  if (sensitive.length > 0) {
    throw new UsageError(
      `${sensitive.join(', ')} ${sensitive.length === 1 ? 'is' : 'are'} sensitive: command lines and params files are seen by others and kept in shell history. Set ${sensitive.map(secretEnvName).join(', ')} or answer the prompt instead.`,
    );
  }
  return params;
}

/** After a run that learned a heal: applies it with `--heal`, else says how to see it. */
async function offerHeal(result: ReplayResult, flags: ReplayFlags): Promise<void> {
  if (result.heal === null) return;
  if (!flags.heal) {
    say(
      style.dim(
        hasRecording(result.summary.workflow)
          ? `  the workflow is out of date here: mime heal ${result.dir} shows what to write back`
          : `  the workflow has no recording: mime heal ${result.dir} shows this run's actions as its recording, so the next auto run needs no model there`,
      ),
    );
    return;
  }
  const plan = await planHeal(result.dir);
  const { backup } = await applyHeal(plan);
  say(
    `${style.green('✓')} healed ${plan.workflowDir}: ${plan.changes.map((c) => c.text).join('; ')} (previous schema: ${backup})`,
  );
}

/** The closing lines on stderr (and the summary on stdout with --json); the exit code of the outcome. */
function reportResult(result: ReplayResult, flags: ReplayFlags): ExitCode {
  const { summary } = result;
  if (flags.json) printJson({ ...summary, dir: result.dir, report: result.report });
  const seconds = (summary.duration_ms / 1000).toFixed(1);
  const usage = `${summary.usage.calls} model calls, ${summary.usage.input_tokens + summary.usage.output_tokens} tokens`;
  if (summary.outcome === 'success') {
    say(`${style.green('✓')} success in ${seconds} s (${usage})`);
    for (const [name, value] of Object.entries(summary.extracts)) say(`  ${inert(name)} = ${inert(value)}`);
  } else {
    const mark = summary.outcome === 'aborted' ? style.yellow('■ aborted') : style.red('✗ failed');
    say(
      `${mark} ${style.dim(`[${summary.code}]`)} after ${seconds} s (${usage}): ${inert(summary.reason ?? '', { multiline: true })}`,
    );
    // A mode that hands over to the model, in a run not allowed one: the hint says how to allow it.
    const noModel = runModeOf(summary.mode).handsOverToModel && summary.budgets.model_calls?.limit === 0;
    const hint = hintFor(summary.code, noModel ? MODEL_FORBIDDEN : summary.mode);
    if (hint) say(style.dim(`  ${hint}`));
  }
  say(style.dim(`  summary: ${join(result.dir, RUN_FILES.textSummary)}`));
  if (result.report) say(`  report: ${result.report}`);
  else if (summary.report_error) say(style.yellow(`  no report.html: ${summary.report_error}`));
  if (summary.outcome === 'success') return EXIT.ok;
  return summary.outcome === 'aborted' ? EXIT.aborted : EXIT.failed;
}

async function runReplayCommand(target: string, flags: ReplayFlags): Promise<ExitCode> {
  checkInteraction(flags);
  const junitFile = junitFileOf(flags.reporter);
  const workflowPath = resolveWorkflowTarget(target, flags);
  if (flags.rows) return runBatchCommand(workflowPath, { ...flags, rows: flags.rows });
  const stray = strayRowsFlags(flags);
  if (stray.length > 0) throw new UsageError(`${stray.join(', ')} go with --rows <file.csv|file.jsonl>`);
  const log = createRunLog('replay', RUN_FILES.log);
  /** Keys the model sent that no tool defines: said once per run. */
  const dropped = new Set<string>();
  // Loaded once: its params are checked here, and the run uses the same copy.
  const loaded = await loadWorkflow(workflowPath);
  // What the workflow says it needs and does (login, side effects, payment), before anything runs.
  for (const line of describeSafety(loaded.workflow)) say(`${style.yellow('!')} ${inert(line)}`);
  const options: ReplayOptions = {
    params: await readParams(flags, loaded.workflow),
    promptSecret: process.stdin.isTTY ? promptSecret : undefined,
    ...replayOptionsFrom(OPTION_FLAGS, flags),
    holder: `mime replay ${basename(dirname(loaded.file))}`,
    onDisplayWait: (holder) =>
      say(
        style.dim(
          `waiting for the display ${holder.display}: ${inert(holder.command)} (pid ${holder.pid}) holds it since ${holder.since}`,
        ),
      ),
    onEvent: (event) => {
      if (event.type === 'run_start') {
        log.attach(event.dir);
        if (!flags.json) printData(event.run_id);
      }
      log.event(event);
      const line = describeEvent(event);
      if (line !== null) say(line);
      const ignored = event.type === 'tool_call' ? event.dropped.filter((key) => !dropped.has(key)) : [];
      if (ignored.length > 0) {
        for (const key of ignored) dropped.add(key);
        say(
          style.dim(`  the model sends keys its tools do not define, ignored: ${inert(ignored.join(', '))}`),
        );
      }
    },
  };
  const controller = new AbortController();
  const interrupt = () => controller.abort('interrupted (Ctrl+C)');
  const terminate = () => controller.abort('terminated (SIGTERM)');
  const stopListening = onStopSignals(interrupt, terminate);
  try {
    const result = await replay(loaded, { ...options, signal: controller.signal });
    await reportRunToCi(result.summary, result.report, junitFile);
    const code = reportResult(result, flags);
    await offerHeal(result, flags);
    return code;
  } catch (error) {
    log.error(error);
    throw error;
  } finally {
    stopListening();
  }
}

/** `--rows`: the batch, with the same replay options for every row. */
async function runBatchCommand(
  workflowPath: string,
  flags: ReplayFlags & { rows: string },
): Promise<ExitCode> {
  if (flags.dryRun || flags.confirm) throw new UsageError('--dry-run and --confirm do not go with --rows');
  const controller = new AbortController();
  const interrupt = () => controller.abort('interrupted (Ctrl+C)');
  const stopListening = onStopSignals(interrupt);
  try {
    return await runRowsCommand(
      workflowPath,
      flags,
      { ...replayOptionsFrom(OPTION_FLAGS, flags), holder: `mime replay --rows ${basename(workflowPath)}` },
      controller.signal,
    );
  } finally {
    stopListening();
  }
}

export function registerReplay(program: Command, run: (code: Promise<ExitCode>) => void): void {
  const command = program
    .command('replay')
    .summary('replay a workflow with new params')
    .description(
      'Replay a workflow on the live screen with new params. auto (the default) replays the recorded steps, re-finding each target on the screen, and hands a subtask to the vision model only where the screen diverged; trace replays the recording exactly and stops at the first divergence; agent lets the model look at the screen each turn and act, subtask by subtask, replanning when stuck. Every run is saved to <workflow>/.replay/<run_id>/ (screenshots, events.jsonl, extracts.json, summary.json, replay_summary.txt, report.html). Sensitive params come from MIME_PARAM_<NAME> or a hidden prompt and are never stored or shown.',
    )
    .argument('<workflow>', 'workflow folder, its schema.json, or a session id under <home>/workflows/')
    .option('--param <name=value>', 'a param value for this run (repeatable)', collectRepeated)
    .option('--params-file <file>', 'param values from a JSON object; --param wins');
  addReplayOptionFlags(command, OPTION_FLAGS)
    .option(
      '--heal',
      'after a successful auto run that found the workflow out of date, write what it learned back (see mime heal)',
    )
    .option('--rows <file>', 'one run per row of a .csv (a header of param names) or .jsonl file, as a batch')
    .option(
      '--workers <n>',
      'with --rows: rows in parallel, each on a private X server with the app from the workflow setup (default 0: this display, one after another)',
    )
    .option('--from-row <n>', 'with --rows: start at this row (1-based)')
    .option('--only-failed <batch-dir>', 'with --rows: run again the rows of that batch that did not succeed')
    .option('--row-index <k>', 'with --rows: run only row k, 0-based (a Kubernetes JOB_COMPLETION_INDEX)')
    .option('--out <dir>', 'with --rows: the batch folder (default <workflow>/.batch/<time>)')
    .option(
      '--allow-secrets-in-rows',
      'with --rows: let the rows file give sensitive params (default: only MIME_PARAM_<NAME>)',
    )
    .option('--home <dir>', 'data root for session ids (default: $MIME_HOME, else the current directory)')
    .option('--json', 'print the run summary as JSON on stdout (an error as {ok: false, error})')
    .option(
      '--reporter <kind file...>',
      'for CI: --reporter junit <file> also writes JUnit XML (a test case per subtask, or per row with --rows); under GitHub Actions failures are also annotations',
    )
    .addHelpText(
      'after',
      '\nExamples:\n  mime replay workflows/20261122T101500Z-play-song --param song_name=Numb\n  MIME_PARAM_PASSWORD=... mime replay workflows/login --params-file params.json --max-duration 300\n  mime replay workflows/20261122T101500Z-play-song --dry-run --json\n  mime replay workflows/play-song --rows songs.csv --reporter junit results.xml\n  mime replay workflows/play-song --param song_name=Faint --queue\n\nExit codes: 0 success, 1 the run failed (a budget ran out, the model failed), 2 bad input or usage, 75 the display is busy (another replay holds it: run again later, or with --queue), 130 aborted (Ctrl+C, the fail-safe).',
    )
    .action((target: string, flags: ReplayFlags) => run(runReplayCommand(target, flags)));
}
