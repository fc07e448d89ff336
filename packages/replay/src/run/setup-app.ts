/**
 * The workflow's `setup`: before the first subtask, its app window must be open. Replay runs the
 * setup command only when the caller allows it (a shared workflow's command is code from someone
 * else); otherwise it waits for the window the person or a script opens.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { closeApp, describeWindowQuery, findWindows, launchApp, waitForWindow } from '@mime-desktop/os-io';
import type { WorkflowSetup } from '@mime-desktop/schema';
import { SetupError } from '../errors.ts';
import type { EventSink } from '../kernel/event-log.ts';

const run = promisify(execFile);

export interface PrepareAppOptions {
  /** Run the setup command when the window is not open. */
  launch: boolean;
  /** First put the app in its recorded starting state (`setup.reset`, default a restart); implies `launch`. */
  fresh: boolean;
  signal: AbortSignal;
  env: NodeJS.ProcessEnv;
}

/** Runs the workflow's reset command and waits for it; throws {@link SetupError} when it fails. */
async function runReset(command: string, timeoutMs: number, options: PrepareAppOptions): Promise<void> {
  try {
    await run('/bin/sh', ['-c', command], { env: options.env, timeout: timeoutMs, signal: options.signal });
  } catch (error) {
    const { code, stderr } = error as { code?: unknown; stderr?: string };
    throw new SetupError(
      `the workflow's setup.reset command \`${command}\` failed (${code === 'ETIMEDOUT' || code === undefined ? `not done within ${timeoutMs / 1000} s` : `exit ${code}`})${stderr?.trim() ? `: ${stderr.trim().slice(0, 300)}` : ''}; fix it with mime edit`,
    );
  }
}

/** Puts the app in its recorded starting state: the reset command, or the app ended (relaunched after). */
async function resetApp(setup: WorkflowSetup, options: PrepareAppOptions): Promise<void> {
  const reset = setup.reset ?? 'restart';
  if (reset !== 'restart') return runReset(reset.command, reset.timeout_ms, options);
  try {
    await closeApp(setup.window, { signal: options.signal, env: options.env });
  } catch (error) {
    throw new SetupError(`--fresh could not restart the app: ${(error as Error).message}`);
  }
}

/**
 * Makes sure the setup window is open: found, or launched and waited for (after a reset with
 * `fresh`); throws {@link SetupError} when it never appears.
 */
export async function prepareApp(
  setup: WorkflowSetup,
  events: EventSink,
  options: PrepareAppOptions,
): Promise<void> {
  const started = performance.now();
  const window = describeWindowQuery(setup.window);
  if (options.fresh) await resetApp(setup, options);
  const [open] = await findWindows(setup.window, options.env);
  if (open) {
    events.emit({
      type: 'setup',
      command: null,
      window,
      launched: false,
      waited_ms: 0,
      fresh: options.fresh,
    });
    return;
  }
  const launch = options.launch || options.fresh;
  if (launch) await launchApp(setup.command, options.env);
  const found = await waitForWindow(setup.window, {
    timeoutMs: setup.timeout_ms,
    signal: options.signal,
    env: options.env,
  });
  const waited = performance.now() - started;
  if (!found) {
    throw new SetupError(
      launch
        ? `the app window (${window}) did not appear within ${setup.timeout_ms / 1000} s of running the setup command \`${setup.command}\`: check that the command starts the app here, or raise setup.timeout_ms`
        : `the app window (${window}) did not appear within ${setup.timeout_ms / 1000} s: start the app yourself, or allow replay to run the workflow's setup command \`${setup.command}\` (option runSetup)`,
    );
  }
  events.emit({
    type: 'setup',
    command: launch ? setup.command : null,
    window,
    launched: launch,
    waited_ms: Math.round(waited),
    fresh: options.fresh,
  });
}

/**
 * The setup's window in words when none matching it is open any more, else null (null too when the
 * windows cannot be listed): a failed run tells with it that the app it drove was closed.
 */
export async function setupWindowGone(setup: WorkflowSetup, env: NodeJS.ProcessEnv): Promise<string | null> {
  const open = await findWindows(setup.window, env).catch(() => null);
  return open?.length === 0 ? describeWindowQuery(setup.window) : null;
}
