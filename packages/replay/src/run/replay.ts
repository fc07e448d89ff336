/**
 * `replay()` in three steps, each with one job:
 * - prepare: load the workflow once, fingerprint it, check params, mode and options, collect the
 *   secrets, resolve every setting. Nothing touches the screen: testable without a display.
 * - execute: make the run folder, log, memory and plan cursor, run the workflow's setup and the mode's
 *   executor, and return how it ended with what it learned (a heal).
 * - finish: write the summary, the heal and the report, and return the result.
 */

import { acquireDisplayLock, createDesktop } from '@mime-desktop/os-io';
import type { LoadedWorkflow } from '@mime-desktop/schema';
import { executeReplay } from './execute-replay.ts';
import { finishReplay } from './finish-replay.ts';
import { prepareReplay } from './prepare-replay.ts';
import type { ReplayOptions, ReplayResult } from './replay-options.ts';

export { executeReplay, type RunOutcome } from './execute-replay.ts';
export { finishReplay } from './finish-replay.ts';
export { prepareReplay } from './prepare-replay.ts';
export type { PreparedReplay, ReplayOptions, ReplayResult } from './replay-options.ts';
export { DEFAULT_MODE, type RunMode, runModeOf, SUPPORTED_MODES } from './run-modes.ts';

/**
 * Replays a workflow: prepares the run, takes the display (one replay per display, machine-wide:
 * `MIME_DESKTOP_BUSY` naming who holds it, or a wait with `queue`), then runs the chosen mode under
 * budgets, writing `<workflow>/.replay/<run_id>/`, and releases the display. Throws before the run
 * starts for bad input (workflow, params, mode, options, model settings, no display, a busy display);
 * once it started, resolves with the summary whatever the
 * outcome (a budget, the fail-safe, a model failure), except for internal errors, thrown after the
 * summary is written.
 */
export async function replay(
  workflow: string | LoadedWorkflow,
  options: ReplayOptions = {},
): Promise<ReplayResult> {
  const prepared = await prepareReplay(workflow, options);
  // A desktop the caller gives is the caller's to hold (acquireDisplayLock of @mime-desktop/os-io).
  if (prepared.desktop) return finishReplay(prepared, await executeReplay(prepared, prepared.desktop));
  const display =
    options.displayLock ??
    (await acquireDisplayLock({
      command: options.holder ?? 'a mime replay',
      workflow: prepared.materialized.workflow.task_name,
      queue: options.queue,
      signal: prepared.signal,
      onWait: options.onDisplayWait,
    }));
  try {
    // No fixed pause after an action: each mode waits for what it expects on the screen instead. The
    // keyboard opens while the run starts, not at its first typing.
    const desktop = await createDesktop({
      signal: prepared.signal,
      timing: { afterActionMs: 0 },
      keyboard: 'now',
    });
    try {
      return await finishReplay(prepared, await executeReplay(prepared, desktop));
    } finally {
      await desktop.close();
    }
  } finally {
    if (display !== options.displayLock) await display.release();
  }
}
