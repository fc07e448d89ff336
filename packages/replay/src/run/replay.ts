import { readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import type { ModelClient, ResolveModelConfigOptions } from '@mime-desktop/model';
import { UsageMeter } from '@mime-desktop/model/usage';
import { createDesktop, type Desktop } from '@mime-desktop/os-io';
import {
  type HealFile,
  isMimeError,
  loadWorkflow,
  type ReplayMode,
  RUN_FILES,
  RUNS_FOLDER,
  type RunSummary,
  type TaskParam,
  type TypedRunEvent,
  typedRunEvent,
} from '@mime-desktop/schema';
import { OcrEngine } from '@mime-desktop/vision';
import { DEFAULT_SETTLE, type SettleOptions } from '../actions/screen-settle.ts';
import { AgentScope, type AgentScopeSetting, DEFAULT_AGENT_SCOPE } from '../agent/agent-scope.ts';
import { DEFAULT_MODEL_IMAGE, type ModelImageOptions } from '../agent/model-image.ts';
import { DEFAULT_MAX_UNUSABLE_REPLIES, UnusableReplies } from '../agent/unusable-replies.ts';
import { BudgetExhaustedError, ReplayOptionError, TraceUnavailableError } from '../errors.ts';
import { collectHeal } from '../heal/collect-heal.ts';
import { sha256 } from '../heal/heal.ts';
import { checkRecording } from '../recorded/recorded-step.ts';
import { runAuto, runTrace } from '../recorded/step-executor.ts';
import { type BudgetLimits, BudgetTracker, resolveBudgets } from './budgets.ts';
import { collectSecrets } from './collect-secrets.ts';
import type { ReplayEventListener } from './events.ts';
import { RunJournal } from './journal.ts';
import { checkParams, type MaterializedWorkflow, materializeWorkflow } from './materialize.ts';
import { DEFAULT_PAUSE_HOTKEY, PauseGate } from './pause-gate.ts';
import { planFromWorkflow } from './plan.ts';
import { createRedactor } from './redact.ts';
import type {
  AgentSettings,
  ConfirmAnswer,
  ConfirmRequest,
  ModeExecutor,
  ModelProvider,
  RunContext,
} from './run-context.ts';
import { RunFolder } from './run-folder.ts';
import { buildRunSummary, formatRunSummary } from './run-summary.ts';
import { prepareApp } from './setup-app.ts';
import { withDefaults } from './with-defaults.ts';

/** The executor of each mode. */
const EXECUTORS: Partial<Record<ReplayMode, ModeExecutor>> = {
  // The agent loop (and the model client it imports) is loaded when a run uses it.
  agent: async (context) => (await import('../agent/agent-executor.ts')).runAgent(context),
  trace: runTrace,
  auto: runAuto,
};

/** Replay modes available now. */
export const SUPPORTED_MODES = Object.keys(EXECUTORS) as ReplayMode[];

export interface ReplayOptions {
  /** How to replay: `auto` (recorded steps, re-found on screen; the model only where it diverged), `trace` (exactly as recorded, stop at a divergence) or `agent` (the model every turn). Default `auto`. */
  mode?: ReplayMode;
  /** Param values for this run, by name; they win over the workflow's examples. Default none. */
  params?: Readonly<Record<string, string>>;
  /** Environment for `MIME_PARAM_<NAME>` (sensitive params) and the model settings. Default `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** Asks for a sensitive value missing from the environment (resolve null when nobody can answer). Default: none. */
  promptSecret?: (param: TaskParam) => Promise<string | null>;
  /** The model client (share its meter to total usage). Default: one built from `modelConfig`. */
  model?: ModelClient;
  /** Where the model settings come from when `model` is not given. Default: env and the default config file. */
  modelConfig?: ResolveModelConfigOptions;
  /** The desktop to drive. Default: `createDesktop` on this display, with its fail-safe, closed at the end. */
  desktop?: Desktop;
  /**
   * The OCR engine that reads extracts in trace and auto modes. Pass one to reuse its worker across
   * the runs of a process (its start costs about 1 s); you close it. Default: one of the run's own,
   * started only if an extract needs it and closed at the end.
   */
  ocr?: OcrEngine;
  /** Aborts the run (outcome `aborted`, code `MIME_ABORTED`), like the fail-safe. Default none. */
  signal?: AbortSignal;
  /** Typed progress events (sensitive values as `{name}`); must not throw. Default none. */
  onEvent?: ReplayEventListener;
  /** Budgets; see {@link BudgetLimits} for each default. */
  budgets?: BudgetLimits;
  /** Let the model decide but execute nothing; actions are only logged. Default false. */
  dryRun?: boolean;
  /** Asked before each action is executed (the CLI's `--confirm`). Default: no confirmation. */
  confirmAction?: (request: ConfirmRequest) => Promise<ConfirmAnswer>;
  /** The screenshot sent to the model; see {@link ModelImageOptions} (default at most 1280x800). */
  image?: ModelImageOptions;
  /** Waiting for the screen to settle; see {@link SettleOptions} for each default. */
  settle?: SettleOptions;
  /** Turns of the current subtask shown to the model. Default 8. */
  historyLimit?: number;
  /** The same action on an unchanged screen this many times in a row triggers a replan. Default 3. */
  noProgressRepeats?: number;
  /**
   * Unusable model replies in a row (unreadable, an unknown tool, a call that breaks a rule) after
   * which the run stops with `MIME_MODEL_OUTPUT`; each is handed back to the model first. Default 3.
   */
  maxUnusableReplies?: number;
  /**
   * Where the agent may act: `app`, only inside the windows of the apps the workflow is about (its
   * setup window, the windows its recording touched, by WM_CLASS; elsewhere an action is refused and
   * the model told why), or `screen`, anywhere. Default `app`.
   */
  agentScope?: AgentScopeSetting;
  /** Hotkey that pauses the run before its next action and resumes it; `null` for none. Default `ctrl+alt+shift+p`. */
  pauseHotkey?: string | null;
  /** Folder that holds the runs. Default `<workflow>/.replay`. */
  runsDir?: string;
  /**
   * Trace and auto: how long to wait for a step's recorded screen to appear (an app still starting, a
   * dialog still opening) before it counts as diverged, ms. Default 5000.
   */
  stepTimeoutMs?: number;
  /**
   * Pause after each typed key, ms. Default: the desktop's, by the toolkit of the window typed into
   * (GTK and unknown apps 10 ms, and 150 ms between two presses of the same key; Qt and Chromium 0).
   * A step's `type_delay_ms` overrides it.
   */
  typeDelayMs?: number;
  /**
   * Run the workflow's `setup` command when its app window is not open. Default false: a shared
   * workflow's command runs only when you allow it; replay then waits for the window instead.
   */
  runSetup?: boolean;
  /**
   * Put the app in the state the recording starts from before the run: the workflow's `setup.reset`
   * command, or (the default) end the app that owns the setup window and run the setup command
   * again. Needs a workflow `setup`; runs its commands (as `runSetup` allows). Default false.
   */
  fresh?: boolean;
}

/** Default of {@link ReplayOptions.stepTimeoutMs}. */
export const DEFAULT_STEP_TIMEOUT_MS = 5000;

/** A run that started: its folder and summary (outcome `success`, `failed` or `aborted`). */
export interface ReplayResult {
  runId: string;
  dir: string;
  summary: RunSummary;
  /** The run's report.html, or null when it could not be written. */
  report: string | null;
}

function positiveInteger(value: number | undefined, fallback: number, name: string, floor = 1): number {
  const resolved = value ?? fallback;
  if (!Number.isInteger(resolved) || resolved < floor) {
    throw new ReplayOptionError(`${name} must be an integer >= ${floor}, got ${resolved}`);
  }
  return resolved;
}

function resolveSettings(options: ReplayOptions): AgentSettings {
  const image = withDefaults(DEFAULT_MODEL_IMAGE, options.image ?? {});
  if (image.maxWidth < 64 || image.maxHeight < 64) {
    throw new ReplayOptionError(
      `image size must be at least 64x64, got ${image.maxWidth}x${image.maxHeight}`,
    );
  }
  return {
    dryRun: options.dryRun ?? false,
    confirmAction: options.confirmAction ?? null,
    image,
    settle: withDefaults(DEFAULT_SETTLE, options.settle ?? {}),
    historyLimit: positiveInteger(options.historyLimit, 8, 'historyLimit'),
    noProgressRepeats: positiveInteger(options.noProgressRepeats, 3, 'noProgressRepeats', 2),
    agentScope: options.agentScope ?? DEFAULT_AGENT_SCOPE,
    maxUnusableReplies: positiveInteger(
      options.maxUnusableReplies,
      DEFAULT_MAX_UNUSABLE_REPLIES,
      'maxUnusableReplies',
    ),
    stepTimeoutMs: positiveInteger(options.stepTimeoutMs, DEFAULT_STEP_TIMEOUT_MS, 'stepTimeoutMs', 0),
    typeDelayMs:
      options.typeDelayMs === undefined ? null : positiveInteger(options.typeDelayMs, 0, 'typeDelayMs', 0),
  };
}

/** The model, made on first use (trace never needs it; auto only where the screen diverged). */
function modelProvider(options: ReplayOptions): ModelProvider {
  const meter = options.model?.meter ?? new UsageMeter();
  let client: Promise<ModelClient> | undefined = options.model ? Promise.resolve(options.model) : undefined;
  return {
    meter,
    client: () => {
      // The model client (and the openai SDK under it) is loaded only when a run needs a model.
      client ??= import('@mime-desktop/model').then(async ({ ModelClient, resolveModelConfig }) => {
        const config = await resolveModelConfig({ env: options.env, ...options.modelConfig });
        return new ModelClient(config, { meter });
      });
      return client;
    },
  };
}

/** How a run ended. */
interface RunEnd {
  outcome: RunSummary['outcome'];
  code: string | null;
  reason: string | null;
  /** The budget that ran out, if one did. */
  budget: BudgetExhaustedError | null;
}

/** How a run ended, from what its executor threw (`null`: it returned, success). */
function classifyEnd(failure: { error: unknown } | null, signal: AbortSignal): RunEnd {
  if (failure === null) return { outcome: 'success', code: null, reason: null, budget: null };
  const { error } = failure;
  // A wait or call cut short by the signal may throw something else than its reason.
  const cause = signal.aborted && !isMimeError(error) ? signal.reason : error;
  if (cause instanceof BudgetExhaustedError) {
    return { outcome: 'failed', code: cause.code, reason: cause.message, budget: cause };
  }
  if (signal.aborted || (isMimeError(cause) && cause.code === 'MIME_ABORTED')) {
    const reason = cause instanceof Error ? cause.message : 'the run was aborted';
    return { outcome: 'aborted', code: 'MIME_ABORTED', reason, budget: null };
  }
  if (isMimeError(cause)) return { outcome: 'failed', code: cause.code, reason: cause.message, budget: null };
  const reason = cause instanceof Error ? cause.message : String(cause);
  return { outcome: 'failed', code: INTERNAL_CODE, reason, budget: null };
}

/** The code of a run ended by a bug (an error that is not a MimeError); `replay()` rethrows it. */
const INTERNAL_CODE = 'MIME_INTERNAL';

/**
 * Replays a workflow: materializes its params, then runs the chosen mode under budgets, writing
 * `<workflow>/.replay/<run_id>/`. Throws before the run starts for bad input (workflow, params, mode,
 * options, model settings, no display); once it started, resolves with the summary whatever the
 * outcome (a budget, the fail-safe, a model failure), except for internal errors, thrown after the
 * summary is written.
 */
export async function replay(workflowDir: string, options: ReplayOptions = {}): Promise<ReplayResult> {
  const mode = options.mode ?? 'auto';
  const executor = EXECUTORS[mode];
  if (executor === undefined) {
    throw new ReplayOptionError(
      `mode must be one of ${SUPPORTED_MODES.join(', ')}, got ${JSON.stringify(mode)}`,
    );
  }
  const loaded = await loadWorkflow(workflowDir);
  const folderOfWorkflow = resolve(dirname(loaded.file));
  // What the workflow was when the run started, so a heal learned from it never overwrites a newer one.
  const fingerprint = {
    workflowSha256: sha256(await readFile(loaded.file)),
    manifestSha256: sha256(await readFile(join(folderOfWorkflow, 'manifest.jsonl')).catch(() => '')),
  };
  if (options.fresh && !loaded.workflow.setup) {
    throw new ReplayOptionError(
      `fresh needs the workflow's setup (the command that starts the app and its window), and ${loaded.file} has none: add one with mime edit, or reset the app yourself`,
    );
  }
  const overrides = options.params ?? {};
  checkParams(loaded.workflow, overrides);
  const settings = resolveSettings(options);
  const limits = resolveBudgets(options.budgets ?? {});
  const model = modelProvider(options);
  const steps = loaded.workflow.plan.subtasks.flatMap((s) => s.steps);
  const unrecorded = steps.find((step) => step.source === null);
  if (mode === 'trace' && unrecorded) {
    throw new TraceUnavailableError(
      `step ${unrecorded.i} has no recorded source (a hand-written or ai_mime workflow?); replay it in the auto or agent mode`,
    );
  }
  // A hostile recording (a path out of the folder, a FIFO, a huge image) is refused before any run.
  if (mode !== 'agent') await checkRecording(folderOfWorkflow);
  // When the model will surely be needed, a missing configuration is bad input, found before any run.
  if (mode === 'agent' || (mode === 'auto' && (unrecorded || steps.length === 0))) await model.client();
  const secretValues = await collectSecrets(loaded.workflow.task_params, {
    env: options.env,
    promptSecret: options.promptSecret,
    skip: new Set(Object.keys(overrides)),
  });
  const materialized = materializeWorkflow(loaded.workflow, { overrides, secrets: secretValues });
  // No fixed pause after an action: each mode waits for what it expects on the screen instead.
  const desktop =
    options.desktop ?? (await createDesktop({ signal: options.signal, timing: { afterActionMs: 0 } }));
  const ownDesktop = options.desktop === undefined;
  try {
    return await runReplay({
      executor,
      mode,
      workflowDir: folderOfWorkflow,
      runsDir: options.runsDir ?? join(folderOfWorkflow, RUNS_FOLDER),
      materialized,
      warnings: loaded.warnings.map((w) => (w.path ? `${w.path}: ${w.message}` : w.message)),
      fingerprint,
      settings,
      limits,
      model,
      desktop,
      options,
    });
  } finally {
    if (ownDesktop) await desktop.close();
  }
}

interface RunSetup {
  executor: ModeExecutor;
  mode: ReplayMode;
  workflowDir: string;
  runsDir: string;
  materialized: MaterializedWorkflow;
  /** What reading an older layout changed (see `LoadedWorkflow.warnings`). */
  warnings: string[];
  /** SHA-256 of schema.json and manifest.jsonl when the run started. */
  fingerprint: { workflowSha256: string; manifestSha256: string };
  settings: AgentSettings;
  limits: Required<BudgetLimits>;
  model: ModelProvider;
  desktop: Desktop;
  options: ReplayOptions;
}

async function runReplay(setup: RunSetup): Promise<ReplayResult> {
  const { materialized, model, desktop, options, settings } = setup;
  const folder = await RunFolder.create(setup.runsDir);
  const budgets = new BudgetTracker(setup.limits);
  const redact = createRedactor(materialized.secrets);
  const journal = new RunJournal({
    folder,
    redact,
    budgets,
    onEvent: options.onEvent,
    plan: planFromWorkflow(materialized.workflow),
  });
  const wallTime = new AbortController();
  const timer = setTimeout(() => wallTime.abort(budgets.exhausted('wall_time')), budgets.remainingMs);
  const signal = AbortSignal.any(
    [desktop.signal, wallTime.signal, options.signal].filter((s): s is AbortSignal => s !== undefined),
  );
  const startedAt = new Date();
  const meterAtStart = model.meter.snapshot();
  const hotkey = options.pauseHotkey === undefined ? DEFAULT_PAUSE_HOTKEY : options.pauseHotkey;
  const pause = new PauseGate((paused) =>
    journal.emit({ type: paused ? 'paused' : 'resumed', hotkey: hotkey ?? '' }),
  );
  const pauseHooks = settings.dryRun ? null : await pause.listen(desktop, hotkey);
  const ocr = options.ocr ?? new OcrEngine();
  let scope: Promise<AgentScope | null> | undefined;
  const context: RunContext = {
    pause,
    workflowDir: setup.workflowDir,
    workflow: materialized.workflow,
    params: materialized.params,
    typing: materialized.typing,
    desktop,
    ocr,
    model,
    budgets,
    unusable: new UnusableReplies(settings.maxUnusableReplies),
    journal,
    signal,
    settings,
    handOver: async (request) => {
      const { finishWithAgent } = await import('../agent/agent-executor.ts');
      await finishWithAgent(context, request);
    },
    agentScope: () => {
      scope ??= AgentScope.resolve(materialized.workflow, settings.agentScope).then(({ scope, reason }) => {
        journal.emit({ type: 'agent_scope', classes: scope ? [...scope.classes] : [], reason });
        return scope;
      });
      return scope;
    },
  };
  const displayParams = Object.fromEntries(materialized.params.map((p) => [p.name, p.display]));
  folder.writeJson(RUN_FILES.renderedSchema, redact.value(materialized.workflow));
  folder.writeJson(RUN_FILES.extracts, {});
  folder.writeJson(RUN_FILES.taskMemory, {
    task_memory: '',
    subtask_i: null,
    iteration: null,
    updated_at: null,
  });
  journal.emit({
    type: 'run_start',
    run_id: folder.runId,
    dir: folder.dir,
    mode: setup.mode,
    task_name: materialized.workflow.task_name,
    params: displayParams,
    budgets: budgets.snapshot(),
    dry_run: settings.dryRun,
    screen: desktop.screen.logical,
    warnings: setup.warnings,
  });
  let failure: { error: unknown } | null = null;
  let learned: HealFile | null = null;
  try {
    if (materialized.workflow.setup) {
      await prepareApp(materialized.workflow.setup, journal, {
        launch: options.runSetup ?? false,
        fresh: options.fresh ?? false,
        signal,
        env: { ...process.env, ...options.env },
      });
    }
    await setup.executor(context);
    // What the run learned about an out-of-date workflow.
    if (setup.mode === 'auto' && !settings.dryRun) {
      const events = journal.log.map(typedRunEvent).filter((e): e is TypedRunEvent => e !== null);
      learned = collectHeal(events, { runId: folder.runId, ...setup.fingerprint, params: displayParams });
    }
  } catch (error) {
    failure = { error };
  } finally {
    clearTimeout(timer);
    await pauseHooks?.stop();
    // The run's own OCR worker thread would keep the process alive.
    if (!options.ocr) await ocr.close();
  }
  // The screen as the run left it, success or not: the report's last frame, and the last frame of
  // the recording a heal makes from this run.
  const finalFrame = settings.dryRun
    ? null
    : await desktop.captureFrame().then(
        (frame) => journal.saveFrame(RUN_FILES.finalFrame, frame),
        () => null,
      );
  const heal: HealFile | null = learned && finalFrame ? { ...learned, final_frame: finalFrame } : null;
  journal.endOpenSubtasks();
  const { budget, ...end } = classifyEnd(failure, signal);
  const lastSubtask = journal.lastSubtask;
  if (budget) {
    const { used, limit, code } = budget;
    journal.emit({
      type: 'budget_exhausted',
      subtask_i: lastSubtask,
      budget: budget.budget,
      code,
      used,
      limit,
    });
  } else if (end.code !== null) {
    journal.emit({
      type: 'error',
      subtask_i: lastSubtask,
      iteration: null,
      code: end.code,
      message: end.reason ?? '',
    });
  }
  const endedAt = new Date();
  const meter = model.meter.snapshot();
  const summary = buildRunSummary({
    runId: folder.runId,
    workflowDir: setup.workflowDir,
    taskName: materialized.workflow.task_name,
    mode: setup.mode,
    ...end,
    startedAt,
    endedAt,
    params: materialized.params,
    subtasks: [
      ...journal.records,
      ...journal.pending.map((s) => ({
        subtask_i: s.subtask_i,
        text: s.text,
        origin: s.origin,
        outcome: 'not_run' as const,
        iterations: 0,
        duration_ms: 0,
        steps: s.steps,
        executions: [],
      })),
    ],
    usage: {
      calls: meter.calls - meterAtStart.calls,
      requests: meter.requests - meterAtStart.requests,
      repairs: meter.repairs - meterAtStart.repairs,
      inputTokens: meter.inputTokens - meterAtStart.inputTokens,
      outputTokens: meter.outputTokens - meterAtStart.outputTokens,
      durationMs: meter.durationMs - meterAtStart.durationMs,
    },
    budgets: budgets.snapshot(),
    extracts: redact.value(Object.fromEntries(journal.extracts)),
    dryRun: settings.dryRun,
  });
  let safeSummary = redact.value(summary);
  journal.emit({
    type: 'run_end',
    outcome: end.outcome,
    code: end.code,
    reason: end.reason,
    duration_ms: summary.duration_ms,
  });
  folder.writeJson(RUN_FILES.summary, safeSummary);
  folder.writeFile(RUN_FILES.textSummary, formatRunSummary(safeSummary));
  if (heal && end.outcome === 'success') folder.writeJson(RUN_FILES.heal, heal);
  await folder.flush();
  // The report is derived from the files just written; a run does not fail for want of it, but its
  // summary says why there is none.
  let report: string | null = null;
  try {
    // Loaded at the end of the run: nothing before the first step waits for it.
    const { writeReport } = await import('@mime-desktop/report');
    report = await writeReport(folder.dir);
  } catch (error) {
    safeSummary = { ...safeSummary, report_error: redact.text(describeError(error)) };
    folder.writeJson(RUN_FILES.summary, safeSummary);
    folder.writeFile(RUN_FILES.textSummary, formatRunSummary(safeSummary));
    await folder.flush();
  }
  if (failure && end.code === INTERNAL_CODE) throw failure.error;
  return { runId: folder.runId, dir: folder.dir, summary: safeSummary, report };
}

function describeError(error: unknown): string {
  if (isMimeError(error)) return `${error.code}: ${error.message}`;
  return error instanceof Error ? error.message : String(error);
}
