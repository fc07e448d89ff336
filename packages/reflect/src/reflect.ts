import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import {
  ModelClient,
  type ModelConfig,
  type ModelEvent,
  UsageMeter,
  type UsageSnapshot,
} from '@mime-desktop/model';
import {
  backupStamp,
  checkWorkflow,
  copyFileUnique,
  makeFolder,
  PassBDraft,
  type PassBResult,
  readJsonFile,
  type StepCard,
  ValidationError,
  WORKFLOW_FILE,
  type Workflow,
  withFolderLock,
  writeJsonAtomic,
  writeWorkflow,
} from '@mime-desktop/schema';
import { readRecording, refreshAssets } from './assets.ts';
import { ReflectAbortedError } from './errors.ts';
import { mergeWorkflow } from './merge.ts';
import { modelFreeCard, modelFreePlan } from './model-free.ts';
import { runPassA } from './pass-a.ts';
import { runPassB } from './pass-b.ts';
import { StepCardStore } from './step-cards.ts';
import { buildSteps } from './steps.ts';

export const STEP_CARDS_FILE = 'step_cards.json';
export const DRAFT_FILE = 'schema.draft.json';

/** Progress of a reflect, for progress bars and logs. */
export type ReflectEvent =
  | {
      type: 'start';
      sessionId: string;
      workflowDir: string;
      steps: number;
      cardsDone: number;
      draftDone: boolean;
      schemaDone: boolean;
    }
  | { type: 'card'; i: number; done: number; total: number }
  | { type: 'retry'; reason: string }
  | { type: 'repair'; problems: number }
  | { type: 'plan-start' }
  /** No model: the workflow is made from the recording alone (see model-free.ts). */
  | { type: 'model-free' }
  | { type: 'plan-done'; subtasks: number; params: string[] }
  | { type: 'usage'; usage: UsageSnapshot }
  | { type: 'done'; file: string };

export interface ReflectOptions {
  /** Where workflows go: `<workflowsDir>/<session_id>/`. Default `<home>/workflows` beside the recording's `recordings/` folder. */
  workflowsDir?: string;
  /**
   * The model: its config, or a function that resolves it, called only if a model call is needed;
   * null makes the workflow from the recording alone (no step cards or draft kept: a later reflect
   * with a model makes them and improves the workflow).
   */
  model: ModelConfig | (() => Promise<ModelConfig>) | null;
  /** Pass A calls at once. Default 5. */
  concurrency?: number;
  /** Redo everything, ignoring all checkpoints. Default false. */
  force?: boolean;
  /** Redo from this pass on: `pass-a` drops every checkpoint, `pass-b` keeps the step cards. Default: resume. */
  from?: 'pass-a' | 'pass-b';
  /** Stops the reflect; checkpoints written so far stay. */
  signal?: AbortSignal;
  onEvent?: (event: ReflectEvent) => void;
}

export interface ReflectResult {
  sessionId: string;
  workflowDir: string;
  /** The schema.json written (or found complete). */
  file: string;
  workflow: Workflow;
  steps: number;
  /** Model usage of this run (zero calls when everything was already reflected). */
  usage: UsageSnapshot;
  durationMs: number;
}

async function readDraft(file: string): Promise<PassBResult | undefined> {
  try {
    const parsed = PassBDraft.safeParse(await readJsonFile(file));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

async function readFinished(file: string): Promise<Workflow | undefined> {
  try {
    const checked = checkWorkflow(await readJsonFile(file));
    return checked.ok ? checked.workflow : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Writes the reflected workflow over `schemaFile` once it is complete, atomically, keeping the one it
 * replaces beside it as `schema.<time>.json` (as an edit in the studio or a heal does): a hand-edited
 * workflow is never lost to a `--force`.
 */
async function replaceWorkflow(schemaFile: string, workflow: Workflow): Promise<void> {
  if (existsSync(schemaFile)) {
    await copyFileUnique(schemaFile, join(dirname(schemaFile), `schema.${backupStamp()}.json`));
  }
  await writeWorkflow(schemaFile, workflow);
}

/**
 * Reflects a recording into a workflow, resumably: assets are refreshed, then Pass A makes the
 * missing step cards (checkpointed one by one in step_cards.json), Pass B plans the task
 * (checkpointed in schema.draft.json once it merges into a valid workflow), and schema.json is
 * written. A rerun of a finished reflect makes no model call.
 */
export async function reflect(sessionDir: string, options: ReflectOptions): Promise<ReflectResult> {
  const session = resolve(sessionDir);
  const workflowDir = join(
    options.workflowsDir ?? join(dirname(dirname(session)), 'workflows'),
    basename(session),
  );
  // A recording that cannot be read creates nothing.
  const recording = await readRecording(session);
  // Never into a workflow folder that links elsewhere; a read-only or full disk is named.
  await makeFolder(workflowDir);
  // One writer at a time: a heal or an edit of this workflow waits, or is told reflect writes it.
  return withFolderLock(workflowDir, { holder: 'mime reflect' }, () =>
    reflectInto(session, workflowDir, recording, options),
  );
}

async function reflectInto(
  session: string,
  workflowDir: string,
  recording: Awaited<ReturnType<typeof readRecording>>,
  options: ReflectOptions,
): Promise<ReflectResult> {
  const started = performance.now();
  const emit = options.onEvent ?? (() => undefined);
  const sessionId = basename(session);
  const schemaFile = join(workflowDir, WORKFLOW_FILE);
  const draftFile = join(workflowDir, DRAFT_FILE);
  const cardsFile = join(workflowDir, STEP_CARDS_FILE);

  const steps = buildSteps(recording.lines, recording.metadata.screen);
  await refreshAssets(session, workflowDir, recording, steps);
  const from = options.force ? 'pass-a' : options.from;
  if (from === 'pass-a') await rm(cardsFile, { force: true });
  // The finished schema.json stays until its replacement is complete (a failing model leaves it whole).
  if (from) await rm(draftFile, { force: true });

  const meter = new UsageMeter();
  const finish = (workflow: Workflow): ReflectResult => {
    const usage = meter.snapshot();
    emit({ type: 'usage', usage });
    emit({ type: 'done', file: schemaFile });
    return {
      sessionId,
      workflowDir,
      file: schemaFile,
      workflow,
      steps: steps.length,
      usage,
      durationMs: performance.now() - started,
    };
  };

  const store = new StepCardStore(cardsFile);
  const known = new Map([...(await store.load())].filter(([i]) => i < steps.length));
  const draft = await readDraft(draftFile);
  const finished = from ? undefined : await readFinished(schemaFile);
  emit({
    type: 'start',
    sessionId,
    workflowDir,
    steps: steps.length,
    cardsDone: known.size,
    draftDone: draft !== undefined,
    schemaDone: finished !== undefined,
  });
  if (finished && known.size === steps.length) return finish(finished);
  if (options.model === null) {
    emit({ type: 'model-free' });
    const cards = new Map(steps.map((step) => [step.i, modelFreeCard(step)]));
    const merged = mergeWorkflow(recording.metadata, steps, cards, modelFreePlan(recording.metadata, steps));
    if (!merged.ok) throw new ValidationError(schemaFile, 'model-free workflow', merged.problems);
    emit({
      type: 'plan-done',
      subtasks: merged.workflow.plan.subtasks.length,
      params: merged.workflow.task_params.map((p) => p.name),
    });
    await replaceWorkflow(schemaFile, merged.workflow);
    return finish(merged.workflow);
  }
  const configured = options.model;

  let client: ModelClient | undefined;
  const model = async () => {
    client ??= new ModelClient(typeof configured === 'function' ? await configured() : configured, {
      meter,
      onEvent: (event: ModelEvent) => {
        if (event.type === 'retry') emit({ type: 'retry', reason: String(event.reason) });
        else if (event.type === 'repair') emit({ type: 'repair', problems: event.problems.length });
        emit({ type: 'usage', usage: meter.snapshot() });
      },
    });
    return client;
  };
  const stopIfAborted = () => {
    if (options.signal?.aborted) throw new ReflectAbortedError();
  };

  let cards: Map<number, StepCard> = known;
  if (known.size < steps.length) {
    const done = { count: known.size };
    cards = await runPassA({
      metadata: recording.metadata,
      steps,
      done: known,
      workflowDir,
      client: await model(),
      store,
      concurrency: options.concurrency ?? 5,
      signal: options.signal,
      onCard: (card) => {
        done.count += 1;
        emit({ type: 'card', i: card.i, done: done.count, total: steps.length });
      },
    }).catch((error: unknown) => {
      stopIfAborted();
      throw error;
    });
  }
  stopIfAborted();

  let workflow: Workflow | undefined;
  const merged = draft ? mergeWorkflow(recording.metadata, steps, cards, draft) : undefined;
  if (merged?.ok) workflow = merged.workflow;
  else {
    emit({ type: 'plan-start' });
    const planned = await runPassB({
      metadata: recording.metadata,
      steps,
      cards,
      client: await model(),
      signal: options.signal,
      onRepair: (problems) => emit({ type: 'repair', problems }),
    }).catch((error: unknown) => {
      stopIfAborted();
      throw error;
    });
    await writeJsonAtomic(draftFile, planned.plan);
    workflow = planned.workflow;
  }
  emit({
    type: 'plan-done',
    subtasks: workflow.plan.subtasks.length,
    params: workflow.task_params.map((p) => p.name),
  });
  await replaceWorkflow(schemaFile, workflow);
  return finish(workflow);
}
