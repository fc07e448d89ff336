/** How an outcome (of a run or a subtask) reads in the report. */
import { type Html, html } from './html.ts';

export const OUTCOME_LABELS: Record<string, string> = {
  success: 'success',
  failed: 'failed',
  aborted: 'aborted',
  replanned: 'replanned',
  not_run: 'not run',
  running: 'running',
  interrupted: 'interrupted',
  unfinished: 'unfinished',
};

/** A coloured pill with the outcome's name. */
export function renderOutcomePill(outcome: string): Html {
  return html`<span class="pill pill-${outcome}">${OUTCOME_LABELS[outcome] ?? outcome}</span>`;
}
