/**
 * Unsaved drafts kept in this browser (localStorage), one a workflow, with the version of schema.json
 * they were made from: a reload or a return finds the draft again; a file changed on disk since makes
 * the draft stale (it is dropped, and the page says so).
 */

const key = (id) => `mime-studio-draft:${id}`;

/** The draft kept for workflow `id`: `{version, workflow, at}`, or null. */
export function readDraft(id) {
  try {
    const kept = JSON.parse(localStorage.getItem(key(id)) ?? 'null');
    return kept && typeof kept.version === 'string' && kept.workflow ? kept : null;
  } catch {
    return null;
  }
}

/** Keeps `workflow` as the draft of `id`, made from the file at `version`. */
export function keepDraft(id, version, workflow) {
  try {
    localStorage.setItem(key(id), JSON.stringify({ version, workflow, at: new Date().toISOString() }));
    return true;
  } catch {
    // Storage full or refused (a private window): the draft lives in the page only.
    return false;
  }
}

export function dropDraft(id) {
  localStorage.removeItem(key(id));
}

export const hasDraft = (id) => readDraft(id) !== null;
