/**
 * `replay()` in three steps, each with one job:
 * - prepare: load the workflow once, fingerprint it, check params, mode and options, collect the
 *   secrets, resolve every setting. Nothing touches the screen: testable without a display.
 * - execute: make the run folder, log, memory and plan cursor, run the workflow's setup and the mode's
 *   executor, and return how it ended with what it learned (a heal).
 * - finish: write the summary, the heal and the report, and return the result.
 */

import { dirname, join, resolve } from 'node:path';
import type { ModelClient, ResolveModelConfigOptions } from '@mime-desktop/model';
import { UsageMeter } from '@mime-desktop/model/usage';
import {
  acquireDisplayLock,
  createDesktop,
  type Desktop,
  type DisplayLockHolder,
  type HeldDisplayLock,
} from '@mime-desktop/os-io';
import {
  type FileAccess,
  formatStep,
  type HealFile,
  isMimeError,
  type LoadedWorkflow,
  loadWorkflow,
  type OptimizedPlan,
  type ReplayMode,
  RUN_FILES,
  RUNS_FOLDER,
  type RunSummary,
  type TaskParam,
  type TypedRunEvent,
  typedRunEvent,
  workflowFileAccess,
} from '@mime-desktop/schema';
import { OcrEngine } from '@mime-desktop/vision';
import {
  type AgentRuntime,
  type AgentSettings,
  type ConfirmAnswer,
  type ConfirmRequest,
  createAgentRuntime,
  resolveAgentSettings,
} from '../agent/agent-runtime.ts';
import type { AgentScopeSetting } from '../agent/agent-scope.ts';
import type { ModelImageOptions } from '../agent/model-image.ts';
import {
  BudgetExhaustedError,
  ModelForbiddenError,
  ReplayOptionError,
  TraceUnavailableError,
} from '../errors.ts';
import { collectHeal, learnsHeal } from '../heal/collect-heal.ts';
import { type BudgetLimits, BudgetTracker, resolveBudgets } from '../kernel/budgets.ts';
import { collectSecrets } from '../kernel/collect-secrets.ts';
import { EventLog } from '../kernel/event-log.ts';
import type { ReplayEventListener } from '../kernel/events.ts';
import { fingerprintWorkflow, type WorkflowFingerprint } from '../kernel/fingerprint.ts';
import { checkParams, type MaterializedWorkflow, materializeWorkflow } from '../kernel/materialize.ts';
import { DEFAULT_PAUSE_HOTKEY, type PauseControl, PauseGate } from '../kernel/pause-gate.ts';
import { planFromWorkflow } from '../kernel/plan.ts';
import { PlanCursor } from '../kernel/plan-cursor.ts';
import { createRedactor } from '../kernel/redact.ts';
import type { ModeExecutor, ModelProvider, RunContext } from '../kernel/run-context.ts';
import { RunFolder } from '../kernel/run-folder.ts';
import { RunMemory } from '../kernel/run-memory.ts';
import {
  checkedInteger,
  DEFAULT_SETTLE,
  DEFAULT_STEP_TIMEOUT_MS,
  type RunSettings,
  type SettleOptions,
} from '../kernel/settings.ts';
import { withDefaults } from '../kernel/with-defaults.ts';
import { checkRecording } from '../recorded/recorded-step.ts';
import { runAuto, runTrace } from '../recorded/step-executor.ts';
import { cutShortReason } from './cut-short.ts';
import { buildRunSummary, formatRunSummary } from './run-summary.ts';
import { prepareApp } from './setup-app.ts';

/** The executor of each mode; the agent's gets the agent's runtime. */
const EXECUTORS: Record<ReplayMode, (agent: AgentRuntime) => ModeExecutor> = {
  // The agent loop (and the model client it imports) is loaded when a run uses it.
  agent: (agent) => async (context) => (await import('../agent/agent-executor.ts')).runAgent(context, agent),
  trace: () => runTrace,
  auto: () => runAuto,
};

/** Replay modes available now. */
export const SUPPORTED_MODES = Object.keys(EXECUTORS) as ReplayMode[];

/** Default of {@link ReplayOptions.mode}. */
export const DEFAULT_MODE: ReplayMode = 'auto';

export interface ReplayOptions {
  /** How to replay: `auto` (recorded steps, re-found on screen; the model only where it diverged), `trace` (exactly as recorded, stop at a divergence) or `agent` (the model every turn). Default `auto`. */
  mode?: ReplayMode;
  /** Param values for this run, by name; they win over the params' `default`s. Default none. */
  params?: Readonly<Record<string, string>>;
  /**
   * Give each param without a value or a `default` its recorded example (the CLI's `--use-examples`).
   * Default false: such a param is missing (`MIME_PARAMS_INVALID`) unless it is optional.
   */
  useExamples?: boolean;
  /** Environment for `MIME_PARAM_<NAME>` (sensitive params) and the model settings. Default `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** Asks for a sensitive value missing from the environment (resolve null when nobody can answer). Default: none. */
  promptSecret?: (param: TaskParam) => Promise<string | null>;
  /** The model client (share its meter to total usage). Default: one built from `modelConfig`. */
  model?: ModelClient;
  /** Where the model settings come from when `model` is not given. Default: env and the default config file. */
  modelConfig?: ResolveModelConfigOptions;
  /**
   * The desktop to drive; the caller holds its display (`acquireDisplayLock` of @mime-desktop/os-io).
   * Default: `createDesktop` on this display, with its fail-safe, closed at the end, its display held
   * for the run (one replay per display, machine-wide: see `queue`).
   */
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
  /** Pauses and resumes the run from code (a UI's button), as the hotkey does. Default none. */
  pause?: PauseControl;
  /** Folder that holds the runs. Default `<workflow>/.replay`. */
  runsDir?: string;
  /**
   * Trace and auto: how long to wait for a step's recorded screen to appear (an app still starting, a
   * dialog still opening) before it counts as diverged, ms. Default 5000.
   */
  stepTimeoutMs?: number;
  /**
   * Pause after each typed key, ms. Default: the desktop's, by the toolkit of the window typed into
   * (`TOOLKIT_TYPING` of @mime-desktop/os-io). A step's `type_delay_ms` overrides it.
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
  /**
   * Wait while another replay (from any process) holds the display, instead of failing with
   * `MIME_DESKTOP_BUSY` naming it. Default false. (Not used with a `desktop` of the caller's.)
   */
  queue?: boolean;
  /** What runs this replay, as a busy error names it to others, e.g. `mime replay play-song`. Default `a mime replay`. */
  holder?: string;
  /** Called once when the run waits for the display (`queue`), with who holds it. Default none. */
  onDisplayWait?: (holder: DisplayLockHolder) => void;
  /**
   * The display's lock, taken by the caller, who holds it on after the run (a batch, across its
   * rows). Default: the run takes it, and releases it when it ends.
   */
  displayLock?: HeldDisplayLock;
}

/** A run that started: its folder and summary (outcome `success`, `failed` or `aborted`). */
export interface ReplayResult {
  runId: string;
  dir: string;
  summary: RunSummary;
  /** The run's report.html, or null when it could not be written. */
  report: string | null;
  /**
   * The heal.json the run wrote (an auto run that found its workflow out of date, an agent run of a
   * workflow without a recording), or null.
   */
  heal: string | null;
}

/** A run ready to start: its workflow loaded and materialized, every setting resolved and checked. */
export interface PreparedReplay {
  mode: ReplayMode;
  /** The workflow's folder. */
  workflowDir: string;
  runsDir: string;
  materialized: MaterializedWorkflow;
  /** What reading an older layout changed (see `LoadedWorkflow.warnings`). */
  warnings: string[];
  /** The workflow's optimized_plan.json (ai_mime's Pass C), when it has one. */
  optimizedPlan: OptimizedPlan | null;
  /** The files the workflow says it may read and write (its Pass C plan), shown before the run. */
  files: FileAccess;
  /** The workflow as the run started, so a heal learned from it never overwrites a newer one. */
  fingerprint: WorkflowFingerprint;
  settings: RunSettings;
  agent: AgentSettings;
  limits: Required<BudgetLimits>;
  model: ModelProvider;
  pauseHotkey: string | null;
  pause: PauseControl | undefined;
  /** Whether to run the workflow's setup command, and its `fresh` reset; their environment. */
  setup: { launch: boolean; fresh: boolean; env: NodeJS.ProcessEnv };
  onEvent: ReplayEventListener | undefined;
  signal: AbortSignal | undefined;
  /** The caller's desktop and OCR engine: used, never closed. */
  desktop: Desktop | undefined;
  ocr: OcrEngine | undefined;
}

function resolveRunSettings(options: ReplayOptions): RunSettings {
  return {
    dryRun: options.dryRun ?? false,
    settle: withDefaults(DEFAULT_SETTLE, options.settle ?? {}),
    stepTimeoutMs: checkedInteger(options.stepTimeoutMs, DEFAULT_STEP_TIMEOUT_MS, 'stepTimeoutMs', 0),
    typeDelayMs:
      options.typeDelayMs === undefined ? null : checkedInteger(options.typeDelayMs, 0, 'typeDelayMs', 0),
  };
}

/**
 * The model, made on first use (trace never needs it; auto only where the screen diverged). A run
 * that may not call a model (`forbidden`: a model calls budget of 0) never gets a client.
 */
function modelProvider(options: ReplayOptions, forbidden: boolean): ModelProvider {
  const meter = options.model?.meter ?? new UsageMeter();
  let client: Promise<ModelClient> | undefined = options.model ? Promise.resolve(options.model) : undefined;
  return {
    meter,
    client: () => {
      if (forbidden) return Promise.reject(new ModelForbiddenError());
      // The model client (and the openai SDK under it) is loaded only when a run needs a model.
      client ??= import('@mime-desktop/model').then(async ({ ModelClient, resolveModelConfig }) => {
        const config = await resolveModelConfig({ env: options.env, ...options.modelConfig });
        return new ModelClient(config, { meter });
      });
      return client;
    },
  };
}

/**
 * Prepares a run: loads the workflow (a folder, its schema.json, or one the caller loaded already),
 * fingerprints it, checks the mode, params and options, refuses a hostile recording, asks for missing
 * secrets and resolves every setting. Throws for bad input; touches no screen.
 */
export async function prepareReplay(
  workflow: string | LoadedWorkflow,
  options: ReplayOptions = {},
): Promise<PreparedReplay> {
  const mode = options.mode ?? DEFAULT_MODE;
  if (!Object.hasOwn(EXECUTORS, mode)) {
    throw new ReplayOptionError(
      `mode must be one of ${SUPPORTED_MODES.join(', ')}, got ${JSON.stringify(mode)}`,
    );
  }
  const loaded = typeof workflow === 'string' ? await loadWorkflow(workflow) : workflow;
  const workflowDir = resolve(dirname(loaded.file));
  const fingerprint = await fingerprintWorkflow(loaded.file);
  if (options.fresh && !loaded.workflow.setup) {
    throw new ReplayOptionError(
      `fresh needs the workflow's setup (the command that starts the app and its window), and ${loaded.file} has none: add one with mime edit, or reset the app yourself`,
    );
  }
  const overrides = options.params ?? {};
  const useExamples = options.useExamples === true;
  checkParams(loaded.workflow, overrides, { useExamples });
  const settings = resolveRunSettings(options);
  const agent = resolveAgentSettings(options);
  const limits = resolveBudgets(options.budgets ?? {});
  const forbidden = limits.modelCalls === 0;
  if (forbidden && mode === 'agent') {
    throw new ReplayOptionError(
      'the agent mode asks the model at every turn, and this run may not call one (its model calls budget is 0): replay in the auto mode (recorded steps re-found on the screen, no model; it stops at a divergence) or the trace mode, or allow some model calls',
    );
  }
  const model = modelProvider(options, forbidden);
  const steps = loaded.workflow.plan.subtasks.flatMap((s) => s.steps);
  const unrecorded = steps.find((step) => step.source === null);
  if (mode === 'trace' && unrecorded) {
    throw new TraceUnavailableError(
      `${formatStep(unrecorded.i)} has no recorded source (a hand-written or ai_mime workflow?); replay it in the auto or agent mode`,
    );
  }
  // A hostile recording (a path out of the folder, a FIFO, a huge image) is refused before any run.
  if (mode !== 'agent') await checkRecording(workflowDir);
  // When the model will surely be needed, a missing configuration is bad input, found before any run.
  if (!forbidden && (mode === 'agent' || (mode === 'auto' && (unrecorded || steps.length === 0)))) {
    await model.client();
  }
  const secrets = await collectSecrets(loaded.workflow.task_params, {
    env: options.env,
    promptSecret: options.promptSecret,
    skip: new Set(Object.keys(overrides)),
  });
  return {
    mode,
    workflowDir,
    runsDir: options.runsDir ?? join(workflowDir, RUNS_FOLDER),
    materialized: materializeWorkflow(loaded.workflow, { overrides, secrets, useExamples }),
    warnings: loaded.warnings.map((w) => (w.path ? `${w.path}: ${w.message}` : w.message)),
    optimizedPlan: loaded.optimizedPlan ?? null,
    files: workflowFileAccess(loaded.workflow, loaded.optimizedPlan ?? null, overrides),
    fingerprint,
    settings,
    agent,
    limits,
    model,
    pauseHotkey: options.pauseHotkey === undefined ? DEFAULT_PAUSE_HOTKEY : options.pauseHotkey,
    pause: options.pause,
    setup: {
      launch: options.runSetup ?? false,
      fresh: options.fresh ?? false,
      env: { ...process.env, ...options.env },
    },
    onEvent: options.onEvent,
    signal: options.signal,
    desktop: options.desktop,
    ocr: options.ocr,
  };
}

/**
 * Replays a workflow: prepares the run, takes the display (one replay per display, machine-wide:
 * `MIME_DESKTOP_BUSY` naming who holds it, or a wait with `queue`), then runs the chosen mode under
 * budgets, writing `<workflow>/.replay/<run_id>/`, and releases the display. Throws before the run
 * starts for bad input (workflow, params, mode, options, model settings, no display, a busy display);
 * once it started, resolves with the summary whatever the
 * outcome (a budget, the fail-safe, a model failure), except for internal errors, thrown after the
 * summary is written.
 */
export async function replay(
  workflow: string | LoadedWorkflow,
  options: ReplayOptions = {},
): Promise<ReplayResult> {
  const prepared = await prepareReplay(workflow, options);
  // A desktop the caller gives is the caller's to hold (acquireDisplayLock of @mime-desktop/os-io).
  if (prepared.desktop) return finishReplay(prepared, await executeReplay(prepared, prepared.desktop));
  const display =
    options.displayLock ??
    (await acquireDisplayLock({
      command: options.holder ?? 'a mime replay',
      workflow: prepared.materialized.workflow.task_name,
      queue: options.queue,
      signal: prepared.signal,
      onWait: options.onDisplayWait,
    }));
  try {
    // No fixed pause after an action: each mode waits for what it expects on the screen instead. The
    // keyboard opens while the run starts, not at its first typing.
    const desktop = await createDesktop({
      signal: prepared.signal,
      timing: { afterActionMs: 0 },
      keyboard: 'now',
    });
    try {
      return await finishReplay(prepared, await executeReplay(prepared, desktop));
    } finally {
      await desktop.close();
    }
  } finally {
    if (display !== options.displayLock) await display.release();
  }
}

/** What an executed run hands to `finishReplay`. */
export interface RunOutcome {
  log: EventLog;
  memory: RunMemory;
  plan: PlanCursor;
  budgets: BudgetTracker;
  desktop: Desktop;
  /** What the executor threw, or null when it returned. */
  failure: { error: unknown } | null;
  /** The signal the run ran under (the caller's, the fail-safe, the wall-time budget). */
  signal: AbortSignal;
  /** What the run learned about an out-of-date workflow (auto runs), the final frame included. */
  heal: HealFile | null;
  startedAt: Date;
  meterAtStart: ReturnType<UsageMeter['snapshot']>;
}

/**
 * Executes a prepared run on `desktop`: its folder, log, memory and plan cursor, the workflow's setup,
 * then the mode's executor under the budgets. Returns how it ended; what ended it early is in
 * `failure`, never thrown.
 */
export async function executeReplay(prepared: PreparedReplay, desktop: Desktop): Promise<RunOutcome> {
  const { materialized, model, settings } = prepared;
  const folder = await RunFolder.create(prepared.runsDir);
  const budgets = new BudgetTracker(prepared.limits);
  const log = new EventLog({
    folder,
    redact: createRedactor(materialized.secrets),
    onEvent: prepared.onEvent,
  });
  const memory = new RunMemory(log);
  const plan = new PlanCursor({
    plan: planFromWorkflow(materialized.workflow, prepared.optimizedPlan),
    events: log,
    budgets,
  });
  const wallTime = new AbortController();
  const timer = setTimeout(() => wallTime.abort(budgets.exhausted('wall_time')), budgets.remainingMs);
  const signal = AbortSignal.any(
    [desktop.signal, wallTime.signal, prepared.signal].filter((s): s is AbortSignal => s !== undefined),
  );
  const startedAt = new Date();
  const meterAtStart = model.meter.snapshot();
  const hotkey = prepared.pauseHotkey;
  const pause = new PauseGate((paused) =>
    log.emit({ type: paused ? 'paused' : 'resumed', hotkey: hotkey ?? '' }),
  );
  const pauseHooks = settings.dryRun ? null : await pause.listen(desktop, hotkey);
  const stopPauseControl = prepared.pause?.listen((paused) => pause.set(paused));
  const ocr = prepared.ocr ?? new OcrEngine();
  const agent = createAgentRuntime(prepared.agent, materialized.workflow, log);
  const context: RunContext = {
    workflowDir: prepared.workflowDir,
    workflow: materialized.workflow,
    params: materialized.params,
    typing: materialized.typing,
    desktop,
    ocr,
    model,
    budgets,
    log,
    memory,
    plan,
    signal,
    settings,
    pause,
    handOver: async (request) => {
      const { finishWithAgent } = await import('../agent/agent-executor.ts');
      await finishWithAgent(context, agent, request);
    },
  };
  const displayParams = Object.fromEntries(materialized.params.map((p) => [p.name, p.display]));
  log.writeJson(RUN_FILES.renderedSchema, materialized.workflow);
  log.emit({
    type: 'run_start',
    run_id: folder.runId,
    dir: folder.dir,
    mode: prepared.mode,
    task_name: materialized.workflow.task_name,
    params: displayParams,
    budgets: budgets.snapshot(),
    dry_run: settings.dryRun,
    screen: desktop.screen.logical,
    warnings: prepared.warnings,
    ...(prepared.files.read.length + prepared.files.write.length > 0 ? { files: prepared.files } : {}),
  });
  let failure: { error: unknown } | null = null;
  let learned: HealFile | null = null;
  try {
    if (materialized.workflow.setup) {
      await prepareApp(materialized.workflow.setup, log, { ...prepared.setup, signal });
    }
    await EXECUTORS[prepared.mode](agent)(context);
    // What the run learned about an out-of-date workflow.
    if (learnsHeal(prepared.mode, materialized.workflow) && !settings.dryRun) {
      const events = typedEvents(log);
      learned = collectHeal(events, { runId: folder.runId, ...prepared.fingerprint, params: displayParams });
    }
  } catch (error) {
    failure = { error };
  } finally {
    clearTimeout(timer);
    await pauseHooks?.stop();
    stopPauseControl?.();
    // The run's own OCR worker thread would keep the process alive.
    if (!prepared.ocr) await ocr.close();
  }
  // The screen as the run left it, success or not: the report's last frame, and the last frame of
  // the recording a heal makes from this run.
  const finalFrame = settings.dryRun
    ? null
    : await desktop.captureFrame().then(
        (frame) => log.saveFrame(RUN_FILES.finalFrame, frame),
        () => null,
      );
  const heal = learned && finalFrame ? { ...learned, final_frame: finalFrame } : null;
  plan.endOpen();
  return { log, memory, plan, budgets, desktop, failure, signal, heal, startedAt, meterAtStart };
}

/**
 * Finishes an executed run: its last events, summary.json and summary.txt, heal.json (only after a
 * success) and report.html. Rethrows an internal error (a bug) once the summary is written.
 */
export async function finishReplay(prepared: PreparedReplay, outcome: RunOutcome): Promise<ReplayResult> {
  const { log, memory, plan, budgets, failure } = outcome;
  const { materialized, model, settings } = prepared;
  const { budget, ...end } = classifyEnd(failure, outcome.signal);
  // A budget that ended a hand-over: its divergence is named first, then the budget.
  if (budget) end.reason = cutShortReason(typedEvents(log), budget);
  const lastSubtask = plan.current?.subtask_i ?? null;
  if (budget) {
    const { used, limit, code } = budget;
    log.emit({ type: 'budget_exhausted', subtask_i: lastSubtask, budget: budget.budget, code, used, limit });
  } else if (end.code !== null) {
    log.emit({
      type: 'error',
      subtask_i: lastSubtask,
      iteration: null,
      code: end.code,
      message: end.reason ?? '',
    });
  }
  const meter = model.meter.snapshot();
  const start = outcome.meterAtStart;
  const summary = log.redact.value(
    buildRunSummary({
      runId: log.folder.runId,
      workflowDir: prepared.workflowDir,
      taskName: materialized.workflow.task_name,
      mode: prepared.mode,
      ...end,
      startedAt: outcome.startedAt,
      endedAt: new Date(),
      params: materialized.params,
      subtasks: plan.outcomes(),
      usage: {
        calls: meter.calls - start.calls,
        requests: meter.requests - start.requests,
        repairs: meter.repairs - start.repairs,
        inputTokens: meter.inputTokens - start.inputTokens,
        outputTokens: meter.outputTokens - start.outputTokens,
        durationMs: meter.durationMs - start.durationMs,
      },
      budgets: budgets.snapshot(),
      extracts: Object.fromEntries(memory.extracts),
      dryRun: settings.dryRun,
    }),
  );
  log.emit({
    type: 'run_end',
    outcome: end.outcome,
    code: end.code,
    reason: end.reason,
    duration_ms: summary.duration_ms,
  });
  const writeSummary = (written: RunSummary) => {
    log.writeJson(RUN_FILES.summary, written);
    log.writeText(RUN_FILES.textSummary, formatRunSummary(written));
  };
  writeSummary(summary);
  const heal = outcome.heal && end.outcome === 'success' ? outcome.heal : null;
  if (heal) log.writeJson(RUN_FILES.heal, heal);
  await log.flush();
  const { dir, runId } = log.folder;
  // The report is derived from the files just written; a run does not fail for want of it, but its
  // summary says why there is none.
  let report: string | null = null;
  let written = summary;
  try {
    // Loaded at the end of the run: nothing before the first step waits for it.
    const { writeReport } = await import('@mime-desktop/report');
    report = await writeReport(dir);
  } catch (error) {
    written = { ...summary, report_error: log.redact.text(describeError(error)) };
    writeSummary(written);
    await log.flush();
  }
  if (failure && end.code === INTERNAL_CODE) throw failure.error;
  return { runId, dir, summary: written, report, heal: heal ? join(dir, RUN_FILES.heal) : null };
}

/** The run's events so far, each with its data typed. */
function typedEvents(log: EventLog): TypedRunEvent[] {
  return log.events.map(typedRunEvent).filter((e): e is TypedRunEvent => e !== null);
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

function describeError(error: unknown): string {
  if (isMimeError(error)) return `${error.code}: ${error.message}`;
  return error instanceof Error ? error.message : String(error);
}
