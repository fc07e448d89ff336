import { describeWindowQuery, findWindows, launchApp } from '@mime-desktop/os-io';
import { MimeError, type WorkflowSetup } from '@mime-desktop/schema';
import type { LaunchOptions } from './record-options.ts';

/** The app to record never showed its window (`MIME_LAUNCH_FAILED`). */
export class LaunchError extends MimeError {
  constructor(message: string) {
    super('MIME_LAUNCH_FAILED', message);
  }
}

/** Escapes text for use as a literal inside a regular expression. */
function literal(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Starts the app and waits for its window; returns the setup to store. Without a window to wait for,
 * the first window that was not open before is taken, and named by its class.
 */
export async function launchForRecording(launch: LaunchOptions): Promise<WorkflowSetup> {
  const timeoutMs = launch.timeoutMs ?? 30_000;
  const before = new Set((await findWindows({})).map((w) => w.id));
  await launchApp(launch.command);
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const windows = await findWindows(launch.window ?? {});
    const found = launch.window ? windows[0] : windows.find((w) => !before.has(w.id) && w.classes.length > 0);
    if (found) {
      const window = launch.window ?? { class: `^${literal(found.classes.at(-1) ?? '')}$` };
      return { command: launch.command, window, timeout_ms: timeoutMs };
    }
    if (performance.now() >= deadline) {
      throw new LaunchError(
        `the app started by \`${launch.command}\` showed no ${launch.window ? `window matching ${describeWindowQuery(launch.window)}` : 'new window'} within ${timeoutMs / 1000} s`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
