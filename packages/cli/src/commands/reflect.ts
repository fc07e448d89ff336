import { join, resolve } from 'node:path';
import { type ModelConfig, type ModelConfigFlags, resolveModelConfig } from '@mime-desktop/model';
import { type ReflectEvent, type ReflectResult, reflect } from '@mime-desktop/reflect';
import { OcrEngine, prepareRecorded } from '@mime-desktop/replay';
import { describeSafety, formatStep, isMimeError, unknownSafetyFacts } from '@mime-desktop/schema';
import type { Command } from 'commander';
import { EXIT, type ExitCode, UsageError } from '../exit-codes.ts';
import { type HomeOptions, resolveHome } from '../home.ts';
import { printJson, say, style } from '../output.ts';
import { createRunLog } from '../run-log.ts';
import { onStopSignals } from '../stop-signals.ts';
import { addModelOptions, type ModelFlags, modelFlags } from './model-options.ts';

interface ReflectFlags extends HomeOptions, Omit<ModelFlags, 'model'> {
  /** The model id; false with `--no-model` (commander's default for it is true: no id given). */
  model?: string | boolean;
  session: string;
  concurrency?: string;
  force?: boolean;
  from?: string;
  json?: boolean;
}

/** A one-line progress bar on a terminal, plain lines otherwise. */
function progressReporter(interactive: boolean) {
  const state = { done: 0, total: 0, retries: 0, calls: 0, tokens: 0, started: performance.now() };
  const render = () => {
    const width = 24;
    const filled = state.total ? Math.round((state.done / state.total) * width) : 0;
    const seconds = ((performance.now() - state.started) / 1000).toFixed(1);
    const bar = `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}]`;
    process.stderr.write(
      `\r\u001b[2K  Pass A ${bar} ${state.done}/${state.total} steps  ${state.calls} calls  ${state.tokens} tokens  ${state.retries} retries  ${seconds} s`,
    );
  };
  return (event: ReflectEvent) => {
    switch (event.type) {
      case 'start':
        state.total = event.steps;
        state.done = event.cardsDone;
        say(
          `Reflecting ${event.sessionId}: ${event.steps} steps${event.cardsDone ? `, ${event.cardsDone} already carded` : ''}${event.schemaDone ? ', schema.json complete' : ''}`,
        );
        return;
      case 'card':
        state.done = event.done;
        if (interactive) render();
        else say(`  ${formatStep(event.i)} carded (${event.done}/${event.total})`);
        return;
      case 'retry':
      case 'repair':
        state.retries += 1;
        if (!interactive)
          say(
            style.dim(
              `  ${event.type === 'retry' ? `retrying: ${event.reason}` : `repairing output (${event.problems} problems)`}`,
            ),
          );
        return;
      case 'usage':
        state.calls = event.usage.calls;
        state.tokens = event.usage.inputTokens + event.usage.outputTokens;
        if (interactive && state.done < state.total) render();
        return;
      case 'plan-start':
        if (interactive && state.total) process.stderr.write('\n');
        say('  Pass B: planning subtasks and params');
        return;
      case 'plan-done':
        say(`  ${event.subtasks} subtask(s), params: ${event.params.join(', ') || 'none'}`);
        return;
      default:
        return;
    }
  };
}

/**
 * The model to reflect with, resolved when it is needed; null with `--no-model`, or (said so) when
 * none is configured: the workflow is then made from the recording alone.
 */
async function modelOrNone(flags: ReflectFlags): Promise<(() => Promise<ModelConfig>) | null> {
  if (flags.model === false) return null;
  const id = typeof flags.model === 'string' ? flags.model : undefined;
  const flagsForModel: ModelConfigFlags = modelFlags({ ...flags, model: id });
  const resolveModel = () => resolveModelConfig({ flags: flagsForModel, configFile: flags.config });
  try {
    await resolveModel();
  } catch (error) {
    if (!isMimeError(error) || error.code !== 'MIME_MODEL_NOT_CONFIGURED') throw error;
    say(
      `${style.yellow('!')} no model is configured (${error.message.split('\n')[0]}): making the workflow from the recording alone; set one and reflect again to improve it`,
    );
    return null;
  }
  return resolveModel;
}

/**
 * Reads ahead what replays need from the recorded frames (where the end of each subtask shows the
 * params' examples, where each extract's example stands, the frames a run's report shows encoded),
 * kept in the workflow's `.cache/`: even the first replay does not compute them. A failure only
 * leaves that work to the first replay.
 */
async function prepareChecks(workflowDir: string, signal: AbortSignal): Promise<void> {
  const ocr = new OcrEngine();
  const started = performance.now();
  try {
    const { checks, images } = await prepareRecorded(workflowDir, ocr);
    if (checks + images > 0 && !signal.aborted) {
      say(
        `  replay checks prepared: ${checks} recorded outcome(s) and extract(s) read ahead, ${images} recorded frame(s) encoded for reports, in ${((performance.now() - started) / 1000).toFixed(1)} s (kept in .cache/)`,
      );
    }
  } catch (error) {
    say(
      `${style.yellow('!')} the replay checks were not prepared (${(error as Error).message}); the first replay reads the recorded frames instead`,
    );
  } finally {
    await ocr.close();
  }
}

/** What a finished reflect says: the file, its size, the usage, its safety facts and which are unknown. */
function sayReflected(result: ReflectResult, withoutModel: boolean): void {
  if (withoutModel) say('  made without a model: a reflect with a model later improves it in place');
  const { calls, inputTokens, outputTokens } = result.usage;
  say(
    `${style.green('✓')} ${result.file}\n  ${result.steps} steps, ${result.workflow.plan.subtasks.length} subtasks; ${calls} model calls, ${inputTokens + outputTokens} tokens (${inputTokens} in, ${outputTokens} out), ${(result.durationMs / 1000).toFixed(1)} s\n  next: mime edit ${result.workflowDir}  or  mime replay ${result.workflowDir}`,
  );
  for (const line of describeSafety(result.workflow)) say(`  ${line}`);
  const unknown = unknownSafetyFacts(result.workflow);
  if (unknown.length > 0) {
    say(
      `  unknown: ${unknown.join(', ')} (${withoutModel ? 'no model to judge them' : 'the model could not tell from the steps'}); state them with mime edit before sharing it`,
    );
  }
}

export function registerReflect(program: Command, run: (code: Promise<ExitCode>) => void): void {
  const command = program
    .command('reflect')
    .summary('turn a recording into a parametrized workflow')
    .description(
      'Reflect a recording with the vision model: Pass A describes each step from its PRE and POST screenshots, Pass B groups the steps into subtasks and finds the params. Work is checkpointed: a rerun resumes where it stopped and a finished reflect makes no model call.',
    )
    .requiredOption('--session <id>', 'session id under <home>/recordings/, or a recording folder')
    .option('--home <dir>', 'data root (default: $MIME_HOME, else the current directory)')
    .option('--concurrency <n>', 'Pass A calls at once (default 5)')
    .option('--force', 'redo everything, ignoring checkpoints')
    .option('--from <pass>', 'redo from pass-a or pass-b')
    .option('--json', 'print the result as JSON on stdout')
    .option(
      '--no-model',
      'make the workflow from the recording alone: plain intents, subtasks by app and window, a param for each typed text named after its field (also what happens when no model is configured)',
    );
  addModelOptions(command)
    .addHelpText(
      'after',
      '\nExamples:\n  mime reflect --session 20261122T101500Z-play-song\n  mime reflect --session 20261122T101500Z-play-song --from pass-b\n  MIME_BASE_URL=http://127.0.0.1:8000/v1 MIME_MODEL=qwen2.5-vl-7b mime reflect --session fixtures/recordings/play-song --home /tmp/mime\n\nExit codes: 0 reflected, 1 the model failed, 2 bad recording or configuration, 130 stopped.',
    )
    .action((flags: ReflectFlags) =>
      run(
        (async () => {
          const concurrency = flags.concurrency === undefined ? undefined : Number(flags.concurrency);
          if (
            concurrency !== undefined &&
            !(Number.isInteger(concurrency) && concurrency >= 1 && concurrency <= 32)
          ) {
            throw new UsageError(
              `--concurrency must be a whole number from 1 to 32, got "${flags.concurrency}"`,
            );
          }
          if (flags.from !== undefined && flags.from !== 'pass-a' && flags.from !== 'pass-b') {
            throw new UsageError(`--from must be pass-a or pass-b, got "${flags.from}"`);
          }
          const home = resolveHome(flags);
          const isPath = flags.session.includes('/') || flags.session.startsWith('.');
          const sessionDir = isPath ? resolve(flags.session) : join(home, 'recordings', flags.session);
          const controller = new AbortController();
          const log = createRunLog('reflect', 'reflect.log');
          const progress = progressReporter(process.stderr.isTTY === true);
          const stop = () => controller.abort();
          const stopListening = onStopSignals(stop);
          try {
            const model = await modelOrNone(flags);
            const result = await reflect(sessionDir, {
              workflowsDir: join(home, 'workflows'),
              model,
              concurrency,
              force: flags.force,
              from: flags.from as 'pass-a' | 'pass-b' | undefined,
              signal: controller.signal,
              onEvent: (event) => {
                if (event.type === 'start') log.attach(event.workflowDir);
                log.event(event);
                progress(event);
              },
            });
            if (!controller.signal.aborted) await prepareChecks(result.workflowDir, controller.signal);
            if (flags.json) printJson(result);
            sayReflected(result, model === null);
            return EXIT.ok;
          } finally {
            stopListening();
          }
        })(),
      ),
    );
}
