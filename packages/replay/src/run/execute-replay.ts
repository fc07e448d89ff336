import { hostname } from 'node:os';
import type { UsageMeter } from '@mime-desktop/model/usage';
import { type Desktop, encodePng } from '@mime-desktop/os-io';
import { type HealFile, isInsideFolder, processStartIdentity, RUN_FILES } from '@mime-desktop/schema';
import { OcrEngine } from '@mime-desktop/vision';
import { createAgentRuntime } from '../agent/agent-runtime.ts';
import { BudgetTracker } from '../kernel/budgets.ts';
import { EventLog } from '../kernel/event-log.ts';
import { PauseGate } from '../kernel/pause-gate.ts';
import { criterionValuesOf, planFromWorkflow } from '../kernel/plan.ts';
import { PlanCursor } from '../kernel/plan-cursor.ts';
import { createRedactor } from '../kernel/redact.ts';
import type { RunContext } from '../kernel/run-context.ts';
import { RunFolder } from '../kernel/run-folder.ts';
import { RunMemory } from '../kernel/run-memory.ts';
import { listenForPauseHotkey } from './pause-hotkey.ts';
import type { PreparedReplay } from './replay-options.ts';
import { prepareApp } from './setup-app.ts';

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
    encodePng,
  });
  const memory = RunMemory.start(log);
  const plan = new PlanCursor({
    plan: planFromWorkflow(
      materialized.workflow,
      prepared.optimizedPlan,
      criterionValuesOf(materialized.params),
    ),
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
  const pauseHooks = settings.dryRun ? null : await listenForPauseHotkey(pause, desktop, hotkey);
  const stopPauseControl = prepared.pause?.listen((paused) => pause.set(paused));
  const ocr = prepared.ocr ?? new OcrEngine();
  const agent = createAgentRuntime(prepared.agent, materialized.workflow, log);
  const context: RunContext = {
    workflowDir: prepared.workflowDir,
    cachesInWorkflow: isInsideFolder(prepared.workflowDir, prepared.runsDir),
    workflow: materialized.workflow,
    params: materialized.params,
    typing: materialized.typing,
    journal: { log, memory, plan, budgets },
    devices: { desktop, ocr, model },
    signal,
    settings,
    pause,
    handOver: async (request) => {
      const { finishWithAgent } = await import('../agent/agent-executor.ts');
      await finishWithAgent(context, agent, request);
    },
  };
  const displayParams = Object.fromEntries(materialized.params.map((p) => [p.name, p.display]));
  const criteria = plan.pending.flatMap((s) =>
    (s.criteria ?? []).map((c) => ({
      subtask_i: s.subtask_i,
      criterion: c.criterion,
      checks: c.texts.map((t) => t.text),
    })),
  );
  log.writeJson(RUN_FILES.renderedSchema, materialized.workflow);
  log.emit({
    type: 'run_start',
    run_id: folder.runId,
    dir: folder.dir,
    mode: prepared.mode.name,
    task_name: materialized.workflow.task_name,
    params: displayParams,
    budgets: budgets.snapshot(),
    dry_run: settings.dryRun,
    screen: desktop.screen.logical,
    warnings: prepared.warnings,
    process: { pid: process.pid, started: processStartIdentity(process.pid), host: hostname() },
    ...(prepared.files.read.length + prepared.files.write.length > 0 ? { files: prepared.files } : {}),
    ...(criteria.length > 0 ? { criteria } : {}),
    ...(prepared.executors.length > 0 ? { executors: prepared.executors } : {}),
  });
  let failure: { error: unknown } | null = null;
  let learned: HealFile | null = null;
  try {
    if (materialized.workflow.setup) {
      await prepareApp(materialized.workflow.setup, log, { ...prepared.setup, signal });
    }
    await prepared.mode.executor(agent)(context);
    // What the run learned about an out-of-date workflow.
    if (!settings.dryRun) {
      const heal = { runId: folder.runId, ...prepared.fingerprint, params: displayParams };
      learned = prepared.mode.learned(log, heal, materialized.workflow);
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
