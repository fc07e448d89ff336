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
import { basename, dirname, join, resolve } from 'node:path';
import {
  backupStamp,
  checkWorkflow,
  commitFiles,
  copyFileUnique,
  HealFile,
  isMissingFileError,
  RUN_FILES,
  RUNS_FOLDER,
  readJsonFile,
  readManifest,
  readPngInside,
  readTextFile,
  readWorkflowContext,
  serializeWorkflow,
  WORKFLOW_FILE,
  withFolderLock,
} from '@mime-desktop/schema';
import { createTwoFilesPatch } from 'diff';
import { fingerprintWorkflow, MANIFEST_FILE } from '../kernel/fingerprint.ts';

import { HealError } from './heal-error.ts';
import { type HealChange, rebuild } from './rebuild-workflow.ts';

export { HealError } from './heal-error.ts';
export type { HealChange, HealStepView } from './rebuild-workflow.ts';

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
      `${healPath} does not exist: this run found its workflow up to date, or was not an auto run (only auto runs learn a heal)`,
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
  const before = await readTextFile(join(workflowDir, WORKFLOW_FILE));
  const now = await fingerprintWorkflow(join(workflowDir, WORKFLOW_FILE));
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
  const recorded = (await readManifest(join(workflowDir, MANIFEST_FILE))).map((line) => line.event);
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
    if (now !== plan.before) {
      throw new HealError(
        'MIME_HEAL_CONFLICT',
        `${join(workflowDir, WORKFLOW_FILE)} changed while the heal was prepared (another heal or an edit); nothing was changed: prepare the heal again`,
      );
    }
    const stamp = backupStamp();
    const backup = await copyFileUnique(
      join(workflowDir, WORKFLOW_FILE),
      join(workflowDir, `schema.${stamp}.json`),
    );
    await copyFileUnique(join(workflowDir, MANIFEST_FILE), join(workflowDir, `manifest.${stamp}.jsonl`));
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
