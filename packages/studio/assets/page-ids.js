/** The ids of a workflow page's places that the focus and the jumps go to (stable across re-renders). */

/** Step `i`'s card (focused by "go to step" and the problems panel). */
export const stepCardId = (i) => `step-${i}`;

/** A field of step `i`'s form: `intent`, `target`, `value`, `expected`. */
export const stepFieldId = (i, name) => `step-${i}-${name}`;

/** Subtask `k`'s heading (focused by the problems panel). */
export const subtaskHeadingId = (k) => `subtask-${k}`;
