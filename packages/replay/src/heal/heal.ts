/**
 * `mime heal`: turns what an auto run learned (`heal.json`) into a new recording of the workflow, as
 * if it had been recorded on today's screen: every executed action becomes a manifest event whose PRE
 * frame is the run's frame before it; steps re-found at a new place keep their text with the new
 * place; a subtask the agent did gets the agent's actions as its recorded steps (typed param values
 * written back as `{param}`, secrets never stored). Each change (a step at a new place, a subtask the
 * agent redid) is one change a subtask, which can be rejected on its own: that subtask then keeps its
 * recorded steps and events.
 * The change is shown as a diff of schema.json and applied atomically, after validation, keeping the
 * previous files beside it.
 */
import { existsSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import {
  backupStamp,
  checkWorkflow,
  commitFiles,
  copyFileUnique,
  formatStep,
  formatSubtask,
  type HealAction,
  HealFile,
  isMissingFileError,
  type ManifestEvent,
  RUN_FILES,
  RUNS_FOLDER,
  readJsonFile,
  readManifest,
  readPngInside,
  readTextFile,
  readTextFileWithDigest,
  readWorkflowContext,
  type StepActionType,
  serializeWorkflow,
  WORKFLOW_FILE,
  type Workflow,
  type WorkflowStep,
  withFolderLock,
} from '@mime-desktop/schema';
import { createTwoFilesPatch } from 'diff';
import { fingerprintWorkflow, MANIFEST_FILE } from '../kernel/fingerprint.ts';
import { HealError } from './heal-error.ts';
import { agentStep, manifestEvent, movedStep } from './heal-steps.ts';

export { HealError };

/** A step as a heal shows it beside its counterpart: its frame is in the workflow folder or the run's. */
export interface HealStepView {
  intent: string;
  action_type: StepActionType;
  action_value: string | null;
  /** The step's PRE frame, relative to `in`'s folder, or null. */
  screenshot: string | null;
  in: 'workflow' | 'run';
  point: { x: number; y: number } | null;
  box: { x: number; y: number; width: number; height: number } | null;
}

/**
 * What a heal changes in one subtask (steps found at a new place, actions the agent took), accepted
 * unless its id is rejected.
 */
export interface HealChange {
  /** `subtask-<n>`. */
  id: string;
  /** `agent` when the agent acted in the subtask, else `moved`. */
  kind: 'moved' | 'agent';
  subtask_i: number;
  text: string;
  /** The recorded steps it replaces, and the steps it writes instead. */
  before: HealStepView[];
  after: HealStepView[];
}

export interface HealOptions {
  /** Ids of changes to leave out: their steps keep what was recorded. */
  reject?: readonly string[];
}

/** What a heal changes, ready to show or apply. */
export interface HealPlan {
  runDir: string;
  workflowDir: string;
  runId: string;
  /** schema.json now, and as the heal writes it. */
  before: string;
  after: string;
  /** The new manifest.jsonl. */
  manifest: string;
  /** Whether the workflow had a recording (manifest.jsonl) before: else the heal writes its first. */
  recorded: boolean;
  /** Run frames copied into the workflow folder (`to` is relative to it). */
  frames: Array<{ from: string; to: string }>;
  /** Unified diff of schema.json. */
  diff: string;
  /** Every change the run learned, rejected ones included. */
  changes: HealChange[];
  /** Ids of the changes left out. */
  rejected: string[];
  heal: HealFile;
}

/** Reads a run's heal.json and plans the change to its workflow (`<workflow>/.replay/<run>/`). */
export async function planHeal(runDir: string, options: HealOptions = {}): Promise<HealPlan> {
  const healPath = join(runDir, RUN_FILES.heal);
  const raw = await readJsonFile(healPath).catch((error: unknown) => {
    // Only a missing file means there is nothing to heal: a damaged one (a duplicate key, a FIFO, a
    // link out) is named by its own error.
    if (!isMissingFileError(error)) throw error;
    throw new HealError(
      'MIME_HEAL_NOTHING',
      `${healPath} does not exist: this run found its workflow up to date, or was not an auto run (only auto runs learn a heal, and agent runs of a workflow without a recording)`,
    );
  });
  const parsed = HealFile.safeParse(raw);
  if (!parsed.success) throw new HealError('MIME_HEAL_INVALID', `${healPath} is not a heal file mime wrote`);
  const heal = parsed.data;
  if (basename(dirname(resolve(runDir))) !== RUNS_FOLDER) {
    throw new HealError(
      'MIME_HEAL_INVALID',
      `${runDir} is not a run folder inside a workflow (<workflow>/${RUNS_FOLDER}/<run>)`,
    );
  }
  const workflowDir = resolve(runDir, '..', '..');
  const file = join(workflowDir, WORKFLOW_FILE);
  // Read once: the text checked and patched is the text whose fingerprint is compared.
  const { text: before, sha256 } = await readTextFileWithDigest(file);
  const now = await fingerprintWorkflow({ file, sha256 });
  if (now.workflowSha256 !== heal.workflow_sha256 || now.manifestSha256 !== heal.manifest_sha256) {
    throw new HealError(
      'MIME_HEAL_CONFLICT',
      `the workflow in ${workflowDir} changed since run ${heal.run_id} (edited, re-reflected or healed already): not overwriting it; replay it again and heal that run`,
    );
  }
  const context = await readWorkflowContext(workflowDir);
  const checked = checkWorkflow(JSON.parse(before), context);
  if (!checked.ok)
    throw new HealError(
      'MIME_HEAL_INVALID',
      `${join(workflowDir, WORKFLOW_FILE)} is not valid; fix it with mime edit first`,
    );
  // A workflow without a recording (hand-written, or from ai_mime's files alone) has no manifest: the
  // heal writes its first one.
  const recording = await readRecording(workflowDir);
  const recorded = (recording ?? []).map((line) => line.event);
  const reject = new Set(options.reject ?? []);
  const built = rebuild(checked.workflow, heal, recorded, reject);
  const unknown = [...reject].filter((id) => !built.changes.some((c) => c.id === id));
  if (unknown.length > 0) {
    throw new HealError(
      'MIME_HEAL_INVALID',
      `this heal has no change ${unknown.join(', ')}; its changes are ${built.changes.map((c) => c.id).join(', ') || 'none'}`,
    );
  }
  if (built.changes.length > 0 && built.changes.every((c) => built.rejected.has(c.id))) {
    throw new HealError(
      'MIME_HEAL_NOTHING',
      'every change of this heal is rejected: there is nothing to write',
    );
  }
  // Written back in the layout it was read from: a file from ai_mime stays in ai_mime's.
  const after = serializeWorkflow(built.workflow, checked.from);
  const valid = checkWorkflow(JSON.parse(after), context);
  if (!valid.ok) {
    const problems = valid.problems.map((p) => `${p.path}: ${p.message}`).join('; ');
    throw new HealError(
      'MIME_HEAL_INVALID',
      `the healed workflow would not be valid (${problems}); nothing was changed`,
    );
  }
  return {
    runDir,
    workflowDir,
    runId: heal.run_id,
    before,
    after,
    manifest: `${built.events.map((e) => JSON.stringify(e)).join('\n')}\n`,
    recorded: recording !== null,
    frames: built.frames,
    diff: createTwoFilesPatch(
      WORKFLOW_FILE,
      WORKFLOW_FILE,
      before,
      after,
      'now',
      `healed by run ${heal.run_id}`,
    ),
    changes: built.changes,
    rejected: [...built.rejected],
    heal,
  };
}

/**
 * Applies a plan: frames copied in, then manifest.jsonl and schema.json written atomically; the
 * previous two kept as `schema.<time>.json` and `manifest.<time>.jsonl`. Refused when the workflow
 * changed after the plan was made.
 */
export async function applyHeal(plan: HealPlan): Promise<{ backup: string }> {
  const { workflowDir } = plan;
  // Checked and written under the folder's lock: two heals at once never both pass the check.
  return withFolderLock(workflowDir, { holder: 'mime heal --apply' }, async () => {
    const now = await readTextFile(join(workflowDir, WORKFLOW_FILE));
    // A recording that appeared since the plan (a reflect) is not overwritten either.
    if (now !== plan.before || hasRecording(workflowDir) !== plan.recorded) {
      throw new HealError(
        'MIME_HEAL_CONFLICT',
        `the workflow in ${workflowDir} changed while the heal was prepared (another heal, an edit or a new recording); nothing was changed: prepare the heal again`,
      );
    }
    const stamp = backupStamp();
    const backup = await copyFileUnique(
      join(workflowDir, WORKFLOW_FILE),
      join(workflowDir, `schema.${stamp}.json`),
    );
    if (plan.recorded) {
      await copyFileUnique(join(workflowDir, MANIFEST_FILE), join(workflowDir, `manifest.${stamp}.jsonl`));
    }
    const frames = await Promise.all(
      plan.frames.map(async (frame) => ({
        path: frame.to,
        data: await readPngInside(plan.runDir, frame.from, 'run frame'),
      })),
    );
    // One change: killed at any moment, the workflow is the old one or the healed one, never a mix.
    await commitFiles(workflowDir, [
      ...frames,
      { path: MANIFEST_FILE, data: plan.manifest },
      { path: WORKFLOW_FILE, data: plan.after },
    ]);
    return { backup };
  });
}

/** Whether the workflow in `workflowDir` has a recording (a manifest.jsonl) to heal, or gets its first. */
export function hasRecording(workflowDir: string): boolean {
  return existsSync(join(workflowDir, MANIFEST_FILE));
}

/** The workflow's recording, or none (no manifest.jsonl). */
async function readRecording(workflowDir: string) {
  return readManifest(join(workflowDir, MANIFEST_FILE)).catch((error: unknown) => {
    if (isMissingFileError(error)) return null;
    throw error;
  });
}

interface Rebuilt {
  workflow: Workflow;
  events: ManifestEvent[];
  frames: Array<{ from: string; to: string }>;
  changes: HealChange[];
  /** The changes left out. */
  rejected: Set<string>;
}

/** A step as a heal shows it, its frame in `place`'s folder. */
function viewOf(step: WorkflowStep, place: HealStepView['in']): HealStepView {
  return {
    intent: step.intent,
    action_type: step.action_type,
    action_value: step.action_value,
    screenshot: step.source?.screenshot ?? null,
    in: place,
    point: step.source?.point ?? null,
    box: step.source?.box ?? null,
  };
}

/**
 * The workflow recorded again from the run: every change accepted unless `reject` names it (a rejected
 * step or subtask keeps its recorded steps, with their recorded events and frames).
 */
function rebuild(
  workflow: Workflow,
  heal: HealFile,
  recorded: readonly ManifestEvent[],
  reject: ReadonlySet<string>,
): Rebuilt {
  const events: ManifestEvent[] = [];
  const frames: Array<{ from: string; to: string }> = [];
  const copied = new Map<string, string>();
  const started = Date.parse(heal.created_at) / 1000;
  const frameFor = (from: string) => {
    let to = copied.get(from);
    if (!to) {
      to = `screenshots/heal-${heal.run_id}/${String(frames.length).padStart(3, '0')}.png`;
      copied.set(from, to);
      frames.push({ from, to });
    }
    return to;
  };
  const record = (action: HealAction): { index: number; screenshot: string } => {
    const screenshot = frameFor(action.frame);
    events.push(manifestEvent(action, screenshot, started + events.length * 0.001));
    return { index: events.length - 1, screenshot };
  };
  /** A recorded step kept as it was, with its recorded event. */
  const keep = (step: WorkflowStep): WorkflowStep => {
    if (!step.source) return step;
    const event = recorded[step.source.event_index];
    if (!event || event.action_type === null) {
      throw new HealError(
        'MIME_HEAL_INVALID',
        `${formatStep(step.i)} names event ${step.source.event_index}, which manifest.jsonl does not hold; fix the workflow with mime edit first`,
      );
    }
    events.push({ ...event, timestamp: started + events.length * 0.001 });
    return { ...step, source: { ...step.source, event_index: events.length - 1 } };
  };
  /** A screen with no action (the recorder ends a recording with one). */
  const screenOnly = (screenshot: string) =>
    events.push({
      action_type: null,
      action_details: {},
      screenshot,
      timestamp: started + events.length * 0.001,
      details: null,
    });
  /** An executed action recorded as its step: a recorded step at this run's place, or the agent's. */
  const placed = (action: HealAction, original: WorkflowStep | undefined): WorkflowStep => {
    const { index, screenshot } = record(action);
    return original
      ? movedStep(original, action, index, screenshot)
      : agentStep(action, index, screenshot, heal);
  };
  const parts = workflow.plan.subtasks.map((subtask) => subtaskPart(subtask, heal));
  const changes = parts.flatMap((part) => {
    const change = changeOf(part, heal);
    return change ? [change] : [];
  });
  const rejected = new Set(changes.map((c) => c.id).filter((id) => reject.has(id)));
  const isKept = (part: SubtaskPart | undefined) => part !== undefined && rejected.has(part.id);
  const subtasks = parts.map((part, k) => {
    const { subtask, actions, originalOf } = part;
    const kept = isKept(part);
    const steps = kept ? subtask.steps.map(keep) : actions.map((a) => placed(a, originalOf(a)));
    // Where the next subtask comes from the other screen (the recording's or the run's), this one's
    // last step keeps the screen that followed it on its own: a marker with no action holds it.
    const following = parts[k + 1];
    if (following && isKept(following) !== kept && steps.length > 0) {
      const last = steps.at(-1)?.source?.event_index ?? -1;
      const screen = kept
        ? recorded[(subtask.steps.at(-1)?.source?.event_index ?? -2) + 1]?.screenshot
        : (following.actions[0]?.frame ?? heal.final_frame);
      if (last === events.length - 1 && screen) screenOnly(kept ? screen : frameFor(screen));
    }
    return { ...subtask, steps };
  });
  // The end: the recording's last screen after a kept last subtask, else the run's.
  const recordedEnd = recorded.at(-1);
  screenOnly(
    isKept(parts.at(-1)) && recordedEnd?.action_type === null && recordedEnd.screenshot
      ? recordedEnd.screenshot
      : frameFor(heal.final_frame),
  );
  let next = 0;
  const numbered = subtasks.map((s) => ({ ...s, steps: s.steps.map((step) => ({ ...step, i: next++ })) }));
  return {
    workflow: { ...workflow, plan: { ...workflow.plan, subtasks: numbered } },
    events,
    frames,
    changes,
    rejected,
  };
}

/** What a subtask did in the run: its actions, the recorded step of each, and its change's id. */
interface SubtaskPart {
  subtask: Workflow['plan']['subtasks'][number];
  actions: HealAction[];
  /** The recorded step an action replayed (trace or re-found), or undefined for the agent's. */
  originalOf(action: HealAction): WorkflowStep | undefined;
  id: string;
}

function subtaskPart(subtask: SubtaskPart['subtask'], heal: HealFile): SubtaskPart {
  const actions = heal.actions.filter((a) => a.subtask_i === subtask.subtask_i);
  if (actions.length === 0 && subtask.steps.length > 0) {
    throw new HealError(
      'MIME_HEAL_INVALID',
      `run ${heal.run_id} did not replay ${formatSubtask(subtask.subtask_i)}; heal a run that replayed the whole workflow`,
    );
  }
  return {
    subtask,
    actions,
    originalOf: (action) =>
      action.step_i === null || action.by === 'agent'
        ? undefined
        : subtask.steps.find((s) => s.i === action.step_i),
    id: `subtask-${subtask.subtask_i}`,
  };
}

/**
 * The change a subtask makes, or null when it replayed as recorded. One change a subtask: its steps
 * were replayed on one screen, and a trace places each step after a re-found one by the same shift,
 * so a subtask is recorded again whole, or kept whole.
 */
function changeOf({ subtask, actions, originalOf, id }: SubtaskPart, heal: HealFile): HealChange | null {
  const moved = actions.filter((a) => a.by === 'regrounded' && originalOf(a));
  const agentActions = actions.filter((a) => !originalOf(a));
  if (moved.length === 0 && agentActions.length === 0) return null;
  const replaced = subtask.steps.filter((s) => !actions.some((a) => originalOf(a) === s));
  const texts = moved.map((a) => {
    const original = originalOf(a) as WorkflowStep;
    return `${formatStep(original.i, { title: true })} (${original.intent}) is found at its new place`;
  });
  if (agentActions.length > 0) {
    const title = formatSubtask(subtask.subtask_i, { title: true });
    // Steps written by hand (or by ai_mime without a recording) have no recorded source to replay.
    texts.push(
      replaced.length > 0 && replaced.every((s) => !s.source)
        ? `${title}: ${agentActions.length} action(s) the agent took are recorded in place of ${replaced.length} step(s) that had no recording`
        : `${title}: ${agentActions.length} action(s) the agent took replace ${replaced.length} recorded step(s) that no longer fit the screen`,
    );
  }
  const changed = new Set([...moved.map(originalOf), ...replaced]);
  return {
    id,
    kind: agentActions.length > 0 ? 'agent' : 'moved',
    subtask_i: subtask.subtask_i,
    text: texts.join('; '),
    before: subtask.steps.filter((s) => changed.has(s)).map((s) => viewOf(s, 'workflow')),
    after: actions
      .filter((a) => moved.includes(a) || agentActions.includes(a))
      .map((a) => {
        const original = originalOf(a);
        return viewOf(original ? movedStep(original, a, 0, a.frame) : agentStep(a, 0, a.frame, heal), 'run');
      }),
  };
}
