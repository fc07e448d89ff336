import { basename, dirname, join } from 'node:path';
import { createInterface } from 'node:readline/promises';
import { chooseAdapter, DEFAULT_ABORT_HOTKEY } from '@mime-desktop/os-io';
import {
  applyHeal,
  type ConfirmAnswer,
  type ConfirmRequest,
  DEFAULT_PAUSE_HOTKEY,
  hasRecording,
  planHeal,
  type ReplayEvent,
  type ReplayOptions,
  type ReplayResult,
  replay,
  secretEnvName,
} from '@mime-desktop/replay';
import {
  describeSafety,
  formatPlace,
  formatStep,
  formatSubtask,
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
import { hintFor } from '../hints.ts';
import { type HomeOptions, resolveWorkflowTarget } from '../home.ts';
import { inert, printData, printJson, say, style } from '../output.ts';
import { createRunLog } from '../run-log.ts';
import { collectRepeated } from '../single-flags.ts';
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

/** A claim of the model checked on the live app: verified, refused (the model is told), unverified. */
function describeClaim(event: Extract<ReplayEvent, { type: 'claim' }>): string {
  const read = { app: ' (read from the app)', ocr: ' (read by OCR)' };
  const what = event.claim === 'done' ? 'the subtask' : 'the value';
  const detail = inert(event.detail);
  switch (event.verdict) {
    case 'verified':
      return style.dim(`    ✓ ${what} verified${event.read ? read[event.read] : ''}: ${detail}`);
    case 'refused':
      return style.yellow(`    ! the model's ${event.claim} refused: ${detail}`);
    case 'unverified':
      return style.yellow(
        `    ~ ${event.claim === 'done' ? 'done by the model, unverified' : 'value unverified'}: ${detail}`,
      );
  }
}

/** Where a divergence was found: at a step, or at its subtask's outcome check. */
function divergenceAt(subtask_i: number | null, step_i: number | null): string {
  if (step_i !== null) return formatStep(step_i);
  return `${subtask_i === null ? 'the subtask' : formatSubtask(subtask_i)} outcome`;
}

/** The files a workflow says it may touch (its optimized_plan.json), one line, or none without a plan. */
function describeFiles(files: { read: string[]; write: string[] } | undefined): string[] {
  if (!files) return [];
  const list = (paths: string[]) => (paths.length > 0 ? inert(paths.join(', ')) : 'none');
  return [`  files it may read: ${list(files.read)}; write: ${list(files.write)}`];
}

/** The run's first lines: what replays, where its folder is, its params and how to stop it. */
function describeStart(event: Extract<ReplayEvent, { type: 'run_start' }>): string {
  const params = Object.entries(event.params).map(([k, v]) => `${inert(k)}=${inert(v)}`);
  return [
    `${style.cyan('▶')} Replaying "${inert(event.task_name)}" (${event.mode} mode${event.dry_run ? ', dry run: nothing is executed' : ''})`,
    style.dim(`  run folder: ${event.dir}`),
    style.dim(`  params: ${params.length > 0 ? params.join(', ') : 'none'}`),
    ...event.warnings.map((w) => `  ${style.yellow('warning')} ${inert(w)}`),
    ...describeFiles(event.files),
    style.dim(
      // Wayland tells no program where the pointer is: the corner works only on X11.
      {
        wlroots: `  stop: Ctrl+C or ${DEFAULT_ABORT_HOTKEY}; pause: ${DEFAULT_PAUSE_HOTKEY}`,
        // GNOME binds no hotkey for mime.
        gnome: '  stop: Ctrl+C',
        x11: `  stop: Ctrl+C, ${DEFAULT_ABORT_HOTKEY}, or move the pointer into a screen corner; pause: ${DEFAULT_PAUSE_HOTKEY}`,
      }[chooseAdapter(process.env)],
    ),
  ].join('\n');
}

/** A passed check that read the app's content says how it read (a layout check prints nothing). */
function describeVerified(event: Extract<ReplayEvent, { type: 'verify' }>): string | null {
  if (!event.read) return null;
  const what = event.check === 'subtask_outcome' ? 'outcome' : 'typed text';
  const how = event.read === 'app' ? 'read from the app' : 'read by OCR';
  const took = event.took_ms === undefined ? '' : `, ${event.took_ms} ms`;
  return `    ${style.green('✓')} ${what} verified ${style.dim(`(${how}${took})`)}`;
}

/** A failed check: where, and what it found (by content) or how alike the crops were (by pixels). */
function describeDivergence(event: Extract<ReplayEvent, { type: 'divergence' }>): string {
  const where = divergenceAt(event.subtask_i ?? null, event.step_i);
  const when = { before_step: 'before it ran', after_step: 'after it ran', subtask_outcome: '' }[event.check];
  const found =
    event.read && event.reason
      ? `${inert(event.reason)} (${event.read === 'app' ? 'read from the app' : 'read by OCR'})`
      : `${Math.round(event.similarity * 100)}% alike (needs ${Math.round(event.threshold * 100)}%)`;
  return style.red(
    `    ✗ ${where} diverged${when ? ` ${when}` : ''}: ${found}; crops ${event.expected}, ${event.observed}`,
  );
}

function describeEvent(event: ReplayEvent): string | null {
  switch (event.type) {
    case 'run_start':
      return describeStart(event);
    case 'subtask_start':
      return `${style.bold(`[${event.position}/${event.count}]`)} ${inert(event.text)}${event.origin === 'replan' ? style.dim(' (replanned)') : ''}`;
    case 'action': {
      const marks = {
        executed: '',
        dry_run: style.dim(' (dry run)'),
        skipped: style.yellow(' (skipped)'),
        failed: style.red(` (failed: ${inert(event.error ?? '')})`),
        refused: style.yellow(` (refused: ${inert(event.error ?? '')})`),
      };
      return `    ${style.dim(`#${(event.iteration ?? 0) + 1}`)} ${inert(event.description)}${marks[event.status]}`;
    }
    case 'step': {
      const how = {
        trace: style.dim('trace'),
        regrounded: style.cyan('re-grounded'),
        agent: style.yellow('to agent'),
        skipped: style.yellow('skipped'),
      };
      const rung = event.rung ? style.dim(` [${event.rung}]`) : '';
      return `    ${style.dim(formatPlace(event.subtask_i ?? null, event.step_i))} ${how[event.executed_by]}${rung} ${inert(event.description)}${style.dim(` (${inert(event.reason)})`)}`;
    }
    case 'paused':
      return style.yellow(`  ⏸ paused before the next action; press ${event.hotkey} again to resume`);
    case 'resumed':
      return style.green('  ▶ resumed');
    case 'divergence':
      return describeDivergence(event);
    case 'agent_scope':
      return style.dim(`  the model may act on: ${inert(event.reason)}`);
    case 'handover':
      return style.yellow(`    → the model takes over the rest of this subtask: ${inert(event.reason)}`);
    case 'setup':
      return style.dim(
        `${event.fresh ? '  reset the app to its recorded starting state;' : ''}${
          event.launched
            ? `  launched ${event.command}; its window (${event.window}) appeared after ${(event.waited_ms / 1000).toFixed(1)} s`
            : `  the app's window (${event.window}) is open`
        }`,
      );
    case 'extract':
      return `    ${style.dim(`#${(event.iteration ?? 0) + 1}`)} extract ${inert(event.variable)} = ${inert(JSON.stringify(event.value))}`;
    case 'repair':
      return style.yellow(
        `    ! invalid call, asking again: ${event.problems.map((p) => p.message).join('; ')}`,
      );
    case 'done':
      return `    ${style.green('✓')} done: ${inert(event.result ?? event.observation)}`;
    case 'claim':
      return describeClaim(event);
    case 'verify':
      return describeVerified(event);
    case 'replan':
      return style.yellow(`  ↻ replanning (${event.trigger}): ${inert(event.reason)}`);
    case 'budget_exhausted':
      return style.red(`  budget exhausted: ${event.budget} (${event.used}/${event.limit})`);
    case 'error':
      return event.iteration === null
        ? null
        : style.yellow(`    ! ${event.code}: ${inert(event.message.split('\n')[0] ?? '')}`);
    default:
      return null;
  }
}

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
    const noModel = summary.mode === 'auto' && summary.budgets.model_calls?.limit === 0;
    const hint = hintFor(summary.code, noModel ? 'auto-no-model' : summary.mode);
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
  process.once('SIGINT', interrupt);
  process.once('SIGTERM', terminate);
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
    process.off('SIGINT', interrupt);
    process.off('SIGTERM', terminate);
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
  process.once('SIGINT', interrupt);
  process.once('SIGTERM', interrupt);
  try {
    return await runRowsCommand(
      workflowPath,
      flags,
      { ...replayOptionsFrom(OPTION_FLAGS, flags), holder: `mime replay --rows ${basename(workflowPath)}` },
      controller.signal,
    );
  } finally {
    process.off('SIGINT', interrupt);
    process.off('SIGTERM', interrupt);
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
