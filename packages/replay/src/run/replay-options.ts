/** What `replay()` takes (every option with its default), what it returns, and a run prepared to start. */

import type { ModelClient, ResolveModelConfigOptions } from '@mime-desktop/model';
import type { Desktop, DisplayLockHolder, HeldDisplayLock } from '@mime-desktop/os-io';
import type {
  FileAccess,
  OptimizedPlan,
  PlanExecutor,
  ReplayMode,
  RunSummary,
  TaskParam,
} from '@mime-desktop/schema';
import type { OcrEngine } from '@mime-desktop/vision';
import type { AgentSettings, ConfirmAnswer, ConfirmRequest } from '../agent/agent-runtime.ts';
import type { AgentScopeSetting } from '../agent/agent-scope.ts';
import type { ModelImageOptions } from '../agent/model-image.ts';
import type { BudgetLimits } from '../kernel/budgets.ts';
import type { ReplayEventListener } from '../kernel/events.ts';
import type { WorkflowFingerprint } from '../kernel/fingerprint.ts';
import type { MaterializedWorkflow, RunParams } from '../kernel/materialize.ts';
import type { PauseControl } from '../kernel/pause-gate.ts';
import type { ModelProvider } from '../kernel/run-context.ts';
import type { RunSettings, SettleOptions } from '../kernel/settings.ts';
import type { RunMode } from './run-modes.ts';

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
  /**
   * The params as `checkParams` resolved them, for a caller that checked them before the run (the
   * studio, MCP, a batch's rows): the run resolves none again. Checked against the workflow replayed:
   * pass that `LoadedWorkflow` as replay's first argument. Not with `params` or `useExamples`.
   * Default: `params` resolved when the run is prepared.
   */
  checkedParams?: RunParams;
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
  /** The heal.json the run wrote (an auto run that found its workflow out of date), or null. */
  heal: string | null;
}

/** A run ready to start: its workflow loaded and materialized, every setting resolved and checked. */
export interface PreparedReplay {
  /** The mode's descriptor: what it checks, its executor, what it learns. */
  mode: RunMode;
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
  /** The Pass C steps ai_mime does by a script or a browser script: shown, never run (see plan-executors.ts). */
  executors: PlanExecutor[];
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
