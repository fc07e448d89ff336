/**
 * What a mode executor gets from `replay()`: the materialized workflow, the desktop, the model, the
 * budgets and the run journal. Each replay mode (agent, trace, auto) is one executor.
 */
import type { ModelClient, UsageMeter } from '@mime-desktop/model';
import type { Desktop } from '@mime-desktop/os-io';
import type { Workflow } from '@mime-desktop/schema';
import type { OcrEngine } from '@mime-desktop/vision';
import type { SettleOptions } from '../actions/screen-settle.ts';
import type { HandOver } from '../agent/agent-executor.ts';
import type { AgentScope, AgentScopeSetting } from '../agent/agent-scope.ts';
import type { ModelImageOptions } from '../agent/model-image.ts';
import type { UnusableReplies } from '../agent/unusable-replies.ts';
import type { BudgetTracker } from './budgets.ts';
import type { RunJournal } from './journal.ts';
import type { ResolvedParam, SecretTyping } from './materialize.ts';
import type { PauseGate } from './pause-gate.ts';

/** An action waiting for the person's go-ahead (`--confirm`). */
export interface ConfirmRequest {
  subtask_i: number;
  iteration: number;
  /** `left_click at (157, 365)`, `type "{password}"`: sensitive values as placeholders. */
  description: string;
  observation: string;
}

/** `run` the action, `skip` it (the model is told), or `stop` the run (outcome aborted). */
export type ConfirmAnswer = 'run' | 'skip' | 'stop';

/** Settings of the agent loop, defaults filled in. */
export interface AgentSettings {
  dryRun: boolean;
  confirmAction: ((request: ConfirmRequest) => Promise<ConfirmAnswer>) | null;
  image: Required<ModelImageOptions>;
  settle: Required<SettleOptions>;
  historyLimit: number;
  noProgressRepeats: number;
  /** Where the agent may act: the workflow's app windows, or the whole screen. */
  agentScope: AgentScopeSetting;
  /** Unusable model replies in a row that stop the run. */
  maxUnusableReplies: number;
  /** Longest wait for a step's recorded screen to appear (trace, auto), ms. */
  stepTimeoutMs: number;
  /** Pause after each typed key, ms; null: the desktop's default. */
  typeDelayMs: number | null;
}

/** The model, made on first use: trace mode never needs one, auto mode only where the screen diverged. */
export interface ModelProvider {
  /** The client; throws the configuration error (`MIME_MODEL_NOT_CONFIGURED`...) if there is none. */
  client(): Promise<ModelClient>;
  /** Usage of every call made through `client()`. */
  readonly meter: UsageMeter;
}

export interface RunContext {
  /** The workflow's folder (recorded manifest and PRE frames for trace and auto). */
  workflowDir: string;
  /** The rendered workflow (sensitive params still `{name}`). */
  workflow: Workflow;
  params: readonly ResolvedParam[];
  /** What typing actions type: secrets only where the workflow or the agent put them. */
  typing: SecretTyping;
  desktop: Desktop;
  /** Reads extracts in trace and auto modes; its worker starts on the first read. */
  ocr: OcrEngine;
  model: ModelProvider;
  budgets: BudgetTracker;
  /** The model's unusable replies in a row, across the run's subtasks and hand-overs. */
  unusable: UnusableReplies;
  /** What the run did, and the only writer of its files and events. */
  journal: RunJournal;
  /** Aborts waits and model calls: the fail-safe, the caller's signal, the wall-time budget. */
  signal: AbortSignal;
  settings: AgentSettings;
  /** Executors wait here before each action while the person has paused the run. */
  pause: PauseGate;
  /**
   * Auto's hand-over: the agent finishes a subtask the recording could not (its loop is loaded at the
   * first hand-over: a run that needs no model never loads it).
   */
  handOver(request: HandOver): Promise<void>;
  /** The agent's scope, resolved (and said in the journal) at its first use; null: the whole screen. */
  agentScope(): Promise<AgentScope | null>;
}

/** Runs a replay mode; throws what ended the run early (a budget, an abort, a model failure, a divergence). */
export type ModeExecutor = (context: RunContext) => Promise<void>;
