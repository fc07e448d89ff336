/**
 * A private X server (Xvfb) for work that must not touch the person's screen: batch workers each
 * replay on one of their own. Xvfb picks a free display number itself (`-displayfd`): a fixed number
 * could be someone else's. It ends with `stop()`, or with this process (parent-death signal).
 */
import { spawn } from 'node:child_process';
import { DesktopFailureError } from './errors.ts';

export interface PrivateDisplayOptions {
  /** Screen size in pixels. Default 1280x800. */
  width?: number;
  height?: number;
  /** Longest wait for Xvfb to report its display, ms. Default 10000. */
  startTimeoutMs?: number;
}

export interface PrivateDisplay {
  /** The X display, e.g. `:7`. */
  readonly display: string;
  /** The environment with `DISPLAY` set to it (and no Wayland). */
  readonly env: NodeJS.ProcessEnv;
  /** Ends the X server and, with it, every app on it. */
  stop(): Promise<void>;
  /**
   * Lets this process exit while the X server runs; it ends when this process does (its parent-death
   * signal). For processes that loaded native input or capture: Xlib in them exits the process with
   * code 1 when their X server disappears first.
   */
  release(): void;
}

/** Starts Xvfb with `-displayfd` and resolves once it reports its display; needs Xvfb and setpriv. */
export function startPrivateDisplay(options: PrivateDisplayOptions = {}): Promise<PrivateDisplay> {
  const { width = 1280, height = 800, startTimeoutMs = 10_000 } = options;
  const args = [
    '--pdeathsig',
    'TERM',
    '--',
    'Xvfb',
    '-displayfd',
    '3',
    '-screen',
    '0',
    `${width}x${height}x24`,
  ];
  const server = spawn('setpriv', [...args, '-nolisten', 'tcp', '-noreset'], {
    stdio: ['ignore', 'ignore', 'ignore', 'pipe'],
  });
  const exited = new Promise<void>((resolve) => server.once('exit', () => resolve()));
  const stop = async () => {
    if (server.exitCode === null && server.signalCode === null) server.kill('SIGTERM');
    await exited;
  };
  return new Promise((resolve, reject) => {
    let text = '';
    const fail = (reason: string, cause?: unknown) => {
      clearTimeout(timer);
      void stop();
      reject(
        new DesktopFailureError(
          `could not start a private X server (Xvfb): ${reason}; install xvfb (./setup.sh does)`,
          { cause },
        ),
      );
    };
    const timer = setTimeout(() => fail(`no display within ${startTimeoutMs} ms`), startTimeoutMs);
    server.once('error', (error) => fail(error.message, error));
    const onExit = (code: number | null) => fail(`it exited (code ${code}) before reporting a display`);
    server.once('exit', onExit);
    server.stdio[3]?.on('data', (chunk: Buffer) => {
      text += String(chunk);
      const line = /^(\d+)\n/.exec(text);
      if (!line) return;
      clearTimeout(timer);
      server.off('exit', onExit);
      server.stdio[3]?.destroy();
      const display = `:${line[1]}`;
      const env: NodeJS.ProcessEnv = { ...process.env, DISPLAY: display };
      delete env.WAYLAND_DISPLAY;
      resolve({ display, env, stop, release: () => server.unref() });
    });
  });
}
