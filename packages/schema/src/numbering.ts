/**
 * The one numbering people read, everywhere mime shows a step or a subtask (the CLI's lines, errors,
 * report.html, heal review, the studio, generated descriptions): 1-based, a step by its place in the
 * whole plan, "Subtask 2 · Step 3". Files and model contracts keep their 0-based `i` and `subtask_i`;
 * only these functions turn them into words. The studio's page mirrors them in `assets/numbering.js`.
 */

export interface NumberingOptions {
  /** Capitalized, to start a sentence or a heading ("Step 3"). Default false ("step 3"). */
  title?: boolean;
}

const word = (name: string, title: boolean | undefined) =>
  title ? `${name[0]?.toUpperCase()}${name.slice(1)}` : name;

/** "step 3" for step `i` (0-based in the file). */
export function formatStep(i: number, options: NumberingOptions = {}): string {
  return `${word('step', options.title)} ${i + 1}`;
}

/** "subtask 2" for subtask `k` (0-based in the file). */
export function formatSubtask(k: number, options: NumberingOptions = {}): string {
  return `${word('subtask', options.title)} ${k + 1}`;
}

/** "Subtask 2 · Step 3": where step `i` is, in subtask `k` ("Step 3" when its subtask is not known). */
export function formatPlace(k: number | null, i: number): string {
  const step = formatStep(i, { title: true });
  return k === null ? step : `${formatSubtask(k, { title: true })} · ${step}`;
}
