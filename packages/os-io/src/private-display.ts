/**
 * A private X server (Xvfb) for work that must not touch the person's screen: batch workers each
 * replay on one of their own. Xvfb picks a free display number itself (`-displayfd`): a fixed number
 * could be someone else's. It ends with `stop()`, or with this process (parent-death signal).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { accessibleAppEnv } from './accessibility.ts';
import { DesktopFailureError } from './errors.ts';

export interface PrivateDisplayOptions {
  /** Screen size in pixels. Default 1280x800. */
  width?: number;
  height?: number;
  /** Longest wait for Xvfb to report its display, ms. Default 10000. */
  startTimeoutMs?: number;
  /**
   * A private D-Bus session beside the display, so apps started there export their accessibility
   * trees to a bus of their own (the environment turns it on for GTK, Qt and Chromium). Without
   * dbus-daemon the display works without it. Default true.
   */
  accessibility?: boolean;
}

export interface PrivateDisplay {
  /** The X display, e.g. `:7`. */
  readonly display: string;
  /**
   * The environment with `DISPLAY` set to it (and no Wayland); with accessibility, its own
   * `DBUS_SESSION_BUS_ADDRESS` and `XDG_RUNTIME_DIR` and the variables that turn toolkits' trees on.
   */
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

/** Sends a signal to every process of a group; false when none is left. */
function signalGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}

/**
 * A session bus of its own: `dbus-daemon` prints its address on fd 3; ends with this process. It
 * leads a process group of its own, which the services it starts stay in (the accessibility bus
 * launcher with its own bus daemon, the registry, dconf), all with sockets and files in the bus
 * folder; `stop` ends the whole group and waits for the last of them before removing the folder
 * (removing it while they still shut down raced their own clean-up).
 */
export function startSessionBus(
  env: NodeJS.ProcessEnv,
  timeoutMs: number,
): Promise<{ env: NodeJS.ProcessEnv; stop: () => Promise<void> } | null> {
  const runtime = mkdtempSync(join(tmpdir(), 'mime-bus-'));
  const daemon = spawn(
    'setpriv',
    ['--pdeathsig', 'TERM', '--', 'dbus-daemon', '--session', '--nofork', '--nopidfile', '--print-address=3'],
    {
      stdio: ['ignore', 'ignore', 'ignore', 'pipe'],
      env: { ...env, XDG_RUNTIME_DIR: runtime },
      detached: true,
    },
  );
  const exited = new Promise<void>((resolve) => daemon.once('exit', () => resolve()));
  const stop = async () => {
    const group = daemon.pid;
    if (group !== undefined) signalGroup(group, 'SIGTERM');
    await exited;
    if (group !== undefined) await endGroup(group);
    await rm(runtime, { recursive: true, force: true });
  };
  return new Promise((resolve) => {
    let text = '';
    const none = () => {
      clearTimeout(timer);
      void stop();
      resolve(null);
    };
    const timer = setTimeout(none, timeoutMs);
    daemon.once('error', none);
    daemon.once('exit', none);
    daemon.stdio[3]?.on('data', (chunk: Buffer) => {
      text += String(chunk);
      const line = /^(\S+)\n/.exec(text);
      if (!line?.[1]) return;
      clearTimeout(timer);
      daemon.off('exit', none);
      daemon.stdio[3]?.destroy();
      daemon.unref();
      resolve({
        env: { ...accessibleAppEnv(env), DBUS_SESSION_BUS_ADDRESS: line[1], XDG_RUNTIME_DIR: runtime },
        stop,
      });
    });
  });
}

/** Polls until no process of a group is left; false if some still are after `ms`. */
async function groupGone(pgid: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (signalGroup(pgid, 0)) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return true;
}

/** Waits for the last process of a group that was sent SIGTERM; SIGKILL for those left after 3 s. */
async function endGroup(pgid: number): Promise<void> {
  if (await groupGone(pgid, 3000)) return;
  if (signalGroup(pgid, 'SIGKILL')) await groupGone(pgid, 2000);
}

/**
 * Starts Xvfb with `-displayfd` and resolves once it reports its display (and, by default, a
 * session bus for accessibility beside it); needs Xvfb and setpriv.
 */
export async function startPrivateDisplay(options: PrivateDisplayOptions = {}): Promise<PrivateDisplay> {
  const display = await startXvfb(options);
  const bus =
    options.accessibility === false
      ? null
      : await startSessionBus(display.env, options.startTimeoutMs ?? 10_000);
  if (!bus) return display;
  return {
    ...display,
    env: bus.env,
    stop: async () => {
      await bus.stop();
      await display.stop();
    },
  };
}

/**
 * The resolution the private X server reports. Xvfb's own default is 100 DPI (a made-up physical
 * size), and toolkits that size their text from the screen (Qt, Tk) then draw 4-7% bigger than on a
 * typical 96-DPI X desktop and than on Wayland (96 by definition): a workflow recorded at 100 DPI would
 * not find its elements' looks there. Measured with FeatherPad (Qt 5): at 96 its menu and toolbar
 * match their size natively on Wayland.
 */
const PRIVATE_DISPLAY_DPI = 96;

function startXvfb(options: PrivateDisplayOptions): Promise<PrivateDisplay> {
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
    '-dpi',
    String(PRIVATE_DISPLAY_DPI),
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
