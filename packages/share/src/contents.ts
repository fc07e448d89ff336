/**
 * What of a workflow folder a package carries: the workflow, its recording and frames, its Pass C
 * plan and its other files; never its runs, batches, logs, locks, interrupted writes, reflect
 * checkpoints, heal plans or backups (the same state ai_mime's marketplace leaves out of its zips:
 * `scripts/package_workflows.py`, SKIP_DIRS and SKIP_FILES, in prakhar1114/ai_mime_marketplace).
 */
import { createHash } from 'node:crypto';

/** Top-level files that are a step of making or healing the workflow, not the workflow. */
const DRAFTS = new Set(['schema.draft.json', 'step_cards.json', 'heal.json']);
/** Folders of run state, ours and ai_mime's. */
const STATE_FOLDERS = new Set(['runs', 'agent', 'outputs', '__pycache__', 'node_modules']);
/** A backup mime keeps of a replaced file: `schema.20261125T080000123Z.json`, `manifest.<stamp>-2.jsonl`. */
const BACKUP = /^(schema|manifest)\.\d{8}T\d+Z(-\d+)?\.jsonl?$/;
const STATE_SUFFIXES = ['.log', '.tmp', '.temp', '.pyc', '.mime-new'];

/**
 * Why a path inside a workflow folder is not part of its package, or null when it is: a hidden file
 * or folder (`.replay/` runs, `.batch/`, `.mime.lock`, `.mime-commit.json`), run state, a draft, a backup.
 */
export function leftOutReason(path: string): string | null {
  const parts = path.split('/');
  const name = parts.at(-1) ?? path;
  if (parts.some((part) => part.startsWith('.'))) return 'hidden (runs, locks and caches are hidden)';
  if (parts.slice(0, -1).some((part) => STATE_FOLDERS.has(part))) return 'run state';
  if (parts.length === 1 && DRAFTS.has(name)) return 'a draft or checkpoint';
  if (BACKUP.test(name)) return 'a backup of a replaced file';
  if (STATE_SUFFIXES.some((suffix) => name.endsWith(suffix))) return 'a log or temporary file';
  return null;
}

export function sha256Of(data: Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}
