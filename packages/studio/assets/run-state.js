/**
 * How a run with no outcome yet is said, by the state the studio told from its process: going on,
 * interrupted (its process gone with no summary: killed), or unfinished when it cannot be told.
 */
const LABELS = { running: 'running', interrupted: 'interrupted' };

/** The word for a run's `state` when it has no outcome. */
export const runStateLabel = (state) => LABELS[state] ?? 'unfinished';
