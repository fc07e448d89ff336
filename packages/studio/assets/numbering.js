/**
 * The one numbering people see, as `formatStep`/`formatSubtask`/`formatPlace` in @mime-desktop/schema
 * (numbering.ts) write it for the CLI, errors and reports: 1-based, a step by its place in the whole
 * plan ("Subtask 2 · Step 3"). Files keep their 0-based `i` and `subtask_i`.
 */

const word = (name, title) => (title ? name[0].toUpperCase() + name.slice(1) : name);

/** "step 3" for step `i` (0-based in the file); "Step 3" with `title`. */
export const formatStep = (i, { title = false } = {}) => `${word('step', title)} ${i + 1}`;

/** "subtask 2" for subtask `k` (0-based in the file); "Subtask 2" with `title`. */
export const formatSubtask = (k, { title = false } = {}) => `${word('subtask', title)} ${k + 1}`;

/** "Subtask 2 · Step 3": where step `i` is, in subtask `k` ("Step 3" when its subtask is not known). */
export const formatPlace = (k, i) =>
  k === null || k === undefined
    ? formatStep(i, { title: true })
    : `${formatSubtask(k, { title: true })} · ${formatStep(i, { title: true })}`;
