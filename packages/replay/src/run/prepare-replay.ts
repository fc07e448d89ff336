/**
 * Preparing a run: load the workflow once, fingerprint it, check params, mode and options, collect the
 * secrets, resolve every setting. Nothing touches the screen: testable without a display.
 */

import { dirname, join, resolve } from 'node:path';
import type { ModelClient } from '@mime-desktop/model';
import { UsageMeter } from '@mime-desktop/model/usage';
import {
  describeExecutors,
  describeFileAccess,
  type LoadedWorkflow,
  loadWorkflow,
  RUNS_FOLDER,
} from '@mime-desktop/schema';
import { resolveAgentSettings } from '../agent/agent-runtime.ts';
import { ModelForbiddenError, ReplayOptionError } from '../errors.ts';
import { resolveBudgets } from '../kernel/budgets.ts';
import { collectSecrets } from '../kernel/collect-secrets.ts';
import { fingerprintWorkflow } from '../kernel/fingerprint.ts';
import { checkParams, materializeParams, type RunParams } from '../kernel/materialize.ts';
import { DEFAULT_PAUSE_HOTKEY } from '../kernel/pause-gate.ts';
import type { ModelProvider } from '../kernel/run-context.ts';
import {
  checkedInteger,
  DEFAULT_SETTLE,
  DEFAULT_STEP_TIMEOUT_MS,
  type RunSettings,
} from '../kernel/settings.ts';
import { withDefaults } from '../kernel/with-defaults.ts';
import type { PreparedReplay, ReplayOptions } from './replay-options.ts';
import { DEFAULT_MODE, runModeOf } from './run-modes.ts';

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
 * The run's params, each resolved once: the caller's `checkedParams` (checked against this very
 * workflow), else `params` resolved here. Only the secrets still to collect are added later.
 */
function runParamsOf(loaded: LoadedWorkflow, options: ReplayOptions): RunParams {
  const { checkedParams } = options;
  if (checkedParams === undefined) {
    return checkParams(loaded.workflow, options.params ?? {}, { useExamples: options.useExamples === true });
  }
  if (options.params !== undefined || options.useExamples !== undefined) {
    throw new ReplayOptionError(
      'checkedParams are params resolved already: give them, or params (and useExamples), not both',
    );
  }
  if (checkedParams.workflow !== loaded.workflow) {
    throw new ReplayOptionError(
      `checkedParams were checked against another workflow than ${loaded.file}: pass replay the LoadedWorkflow they were checked against`,
    );
  }
  return checkedParams;
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
  const mode = runModeOf(options.mode ?? DEFAULT_MODE);
  const loaded = typeof workflow === 'string' ? await loadWorkflow(workflow) : workflow;
  const workflowDir = resolve(dirname(loaded.file));
  // Of the bytes loadWorkflow read: schema.json is read once per run.
  const fingerprint = await fingerprintWorkflow(loaded);
  if (options.fresh && !loaded.workflow.setup) {
    throw new ReplayOptionError(
      `fresh needs the workflow's setup (the command that starts the app and its window), and ${loaded.file} has none: add one with mime edit, or reset the app yourself`,
    );
  }
  const given = runParamsOf(loaded, options);
  const settings = resolveRunSettings(options);
  const agent = resolveAgentSettings(options);
  const limits = resolveBudgets(options.budgets ?? {});
  const forbidden = limits.modelCalls === 0;
  const model = modelProvider(options, forbidden);
  const steps = loaded.workflow.plan.subtasks.flatMap((s) => s.steps);
  await mode.checkBeforeStart({ steps, workflowDir, modelForbidden: forbidden });
  // When the model will surely be needed, a missing configuration is bad input, found before any run.
  if (!forbidden && mode.needsModel(steps)) await model.client();
  const secrets = await collectSecrets(given.pending, {
    env: options.env,
    promptSecret: options.promptSecret,
  });
  const materialized = materializeParams(given, secrets);
  // The files the run may touch and the plan's script steps, filled with the values the run types (never a secret).
  const typed = materialized.params.filter((p) => !p.sensitive && p.source !== 'unset');
  const known = Object.fromEntries(typed.map((p) => [p.name, p.display]));
  const files = describeFileAccess(loaded.optimizedPlan ?? null, known);
  return {
    mode,
    workflowDir,
    runsDir: options.runsDir ?? join(workflowDir, RUNS_FOLDER),
    materialized,
    warnings: loaded.warnings.map((w) => (w.path ? `${w.path}: ${w.message}` : w.message)),
    optimizedPlan: loaded.optimizedPlan ?? null,
    files,
    executors: describeExecutors(loaded.optimizedPlan ?? null, known),
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
