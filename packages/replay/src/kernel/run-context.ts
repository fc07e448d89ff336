/**
 * What a mode executor gets from `replay()`: the materialized workflow, the run's journal (its log,
 * memory, plan cursor and budgets), its devices (the desktop, OCR, the model), and the settings of
 * every mode. Each replay mode
 * (agent, trace, auto) is one executor; the agent's own settings and state are the agent's.
 */
import type { ModelClient, UsageMeter } from '@mime-desktop/model';
import type { Desktop } from '@mime-desktop/os-io';
import type { Workflow } from '@mime-desktop/schema';
import type { OcrEngine } from '@mime-desktop/vision';
import type { BudgetTracker } from './budgets.ts';
import type { RecordedClaims } from './claims.ts';
import type { EventLog } from './event-log.ts';
import type { ResolvedParam, SecretTyping } from './materialize.ts';
import type { PauseGate } from './pause-gate.ts';
import type { PlanCursor, SubtaskEntry } from './plan-cursor.ts';
import type { RunMemory } from './run-memory.ts';
import type { RunSettings } from './settings.ts';

/** The model, made on first use: trace mode never needs one, auto mode only where the screen diverged. */
export interface ModelProvider {
  /** The client; throws the configuration error (`MIME_MODEL_NOT_CONFIGURED`...) if there is none. */
  client(): Promise<ModelClient>;
  /** Usage of every call made through `client()`. */
  readonly meter: UsageMeter;
}

/** One earlier turn of the current subtask, as the model is reminded of it. */
export interface HistoryEntry {
  /** The call as the model made it: `left_click [120, 150]`, `extract now_playing = "Faint"`. */
  call: string;
  observation: string;
  /** What came of it: `executed`, `failed: ...`, `not executed (dry run)`, ... */
  result: string;
}

/** A subtask auto mode could not finish without the model. */
export interface HandOver {
  /** The subtask's entry, already started: its traced steps are recorded in it. */
  entry: SubtaskEntry;
  /** What the traced steps did, oldest first: the model's history of this subtask. */
  done: readonly HistoryEntry[];
  /** The checks the recording makes of the model's claims in this subtask. */
  claims: RecordedClaims;
}

/** The run's journal: what it writes, what it remembers, where it is in the plan, what it may still spend. */
export interface RunJournal {
  /** The only writer of the run's events and files. */
  log: EventLog;
  /** Extracts, task memory and the completed-step lines. */
  memory: RunMemory;
  /** The subtask running now and those still to run. */
  plan: PlanCursor;
  budgets: BudgetTracker;
}

/** What the run drives and asks: the desktop, the OCR engine, the model. */
export interface RunDevices {
  desktop: Desktop;
  /** Reads extracts in trace and auto modes; its worker starts on the first read. */
  ocr: OcrEngine;
  model: ModelProvider;
}

export interface RunContext {
  /** The workflow's folder (recorded manifest and PRE frames for trace and auto). */
  workflowDir: string;
  /**
   * Whether the run may keep its recorded frames' OCR in the workflow's folder (`.cache/`): not when
   * its runs go elsewhere (`runsDir` outside it), as an exported skill's do, whose folder stays as it is.
   */
  cachesInWorkflow: boolean;
  /** The rendered workflow (sensitive params still `{name}`). */
  workflow: Workflow;
  params: readonly ResolvedParam[];
  /** What typing actions type: secrets only where the workflow or the agent put them. */
  typing: SecretTyping;
  journal: RunJournal;
  devices: RunDevices;
  /** Aborts waits and model calls: the fail-safe, the caller's signal, the wall-time budget. */
  signal: AbortSignal;
  settings: RunSettings;
  /** Executors wait here before each action while the person has paused the run. */
  pause: PauseGate;
  /**
   * Auto's hand-over: the agent finishes a subtask the recording could not, and what a replan
   * replaces it with (its loop is loaded at the first hand-over: a run that needs no model never
   * loads it). Returns when they are done.
   */
  handOver(request: HandOver): Promise<void>;
}

/** Runs a replay mode; throws what ended the run early (a budget, an abort, a model failure, a divergence). */
export type ModeExecutor = (context: RunContext) => Promise<void>;
