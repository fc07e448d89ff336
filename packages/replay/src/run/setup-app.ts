/**
 * The workflow's `setup`: before the first subtask, its app window must be open. Replay runs the
 * setup command only when the caller allows it (a shared workflow's command is code from someone
 * else); otherwise it waits for the window the person or a script opens.
 */
import { describeWindowQuery, findWindows, launchApp, waitForWindow } from '@mime-desktop/os-io';
import type { WorkflowSetup } from '@mime-desktop/schema';
import { SetupError } from '../errors.ts';
import type { RunJournal } from './journal.ts';

export interface PrepareAppOptions {
  /** Run the setup command when the window is not open. */
  launch: boolean;
  signal: AbortSignal;
  env: NodeJS.ProcessEnv;
}

/** Makes sure the setup window is open: found, or launched and waited for; throws {@link SetupError} when it never appears. */
export async function prepareApp(
  setup: WorkflowSetup,
  journal: RunJournal,
  options: PrepareAppOptions,
): Promise<void> {
  const started = performance.now();
  const window = describeWindowQuery(setup.window);
  const [open] = await findWindows(setup.window, options.env);
  if (open) {
    journal.emit({ type: 'setup', command: null, window, launched: false, waited_ms: 0 });
    return;
  }
  if (options.launch) await launchApp(setup.command, options.env);
  const found = await waitForWindow(setup.window, {
    timeoutMs: setup.timeout_ms,
    signal: options.signal,
    env: options.env,
  });
  const waited = performance.now() - started;
  if (!found) {
    throw new SetupError(
      options.launch
        ? `the app window (${window}) did not appear within ${setup.timeout_ms / 1000} s of running the setup command \`${setup.command}\`: check that the command starts the app here, or raise setup.timeout_ms`
        : `the app window (${window}) did not appear within ${setup.timeout_ms / 1000} s: start the app yourself, or allow replay to run the workflow's setup command \`${setup.command}\` (option runSetup)`,
    );
  }
  journal.emit({
    type: 'setup',
    command: options.launch ? setup.command : null,
    window,
    launched: options.launch,
    waited_ms: Math.round(waited),
  });
}
