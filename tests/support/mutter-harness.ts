/**
 * A real GNOME Wayland desktop for tests: headless mutter (`--headless --wayland --no-x11` with one
 * 1280x800 virtual monitor; with `xwayland`, mutter runs its Xwayland for X11 apps) with PipeWire and WirePlumber beside it (mutter's screen cast needs them),
 * a runtime folder of its own and a private session bus that mime, mutter and the apps share (mutter's
 * RemoteDesktop and ScreenCast are on it). Mutter runs as whoever runs the tests, root included.
 * `stop()` ends exactly the processes started here, by pid.
 */
import { execFileSync } from 'node:child_process';
import { access, chmod, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { createGnomeDesktop, type Desktop, startSessionBus } from '@mime-desktop/os-io';
import { execa } from 'execa';
import { CHROMIUM_FLAGS, DEMO_APP_PATH, type DemoAppState, parseDemoTitle } from './desktop-harness.ts';
import { end, groupOf, type Owned } from './process-group.ts';
import { waitUntil } from './wait.ts';
import { type SocketClient, waylandClients } from './wayland-clients.ts';

const TOOLS = [
  'mutter',
  'pipewire',
  'wireplumber',
  'gst-launch-1.0',
  'gst-inspect-1.0',
  'dbus-daemon',
  'dbus-send',
];

function has(command: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Why headless mutter cannot run here (for `describe.skipIf`), or null when it can. */
export function mutterSkipReason(): string | null {
  const missing = TOOLS.filter((tool) => !has(tool));
  if (missing.length > 0) return `not installed: ${missing.join(', ')} (./setup.sh installs them)`;
  try {
    execFileSync('gst-inspect-1.0', ['pipewiresrc'], { stdio: 'ignore' });
  } catch {
    return 'GStreamer has no pipewiresrc: install gstreamer1.0-pipewire (./setup.sh does)';
  }
  return null;
}

/** The DevTools list gives titles HTML-escaped. */
function unescapeHtml(text: string): string {
  const named: Record<string, string> = { quot: '"', amp: '&', lt: '<', gt: '>', apos: "'" };
  return text.replace(/&(#\d+|[a-z]+);/g, (whole, name: string) =>
    name.startsWith('#') ? String.fromCodePoint(Number(name.slice(1))) : (named[name] ?? whole),
  );
}

export interface DemoApp {
  /** Chromium's browser process (the one that talks to the compositor). */
  readonly pid: number;
  readAppState(): Promise<DemoAppState>;
  waitForAppState(predicate: (state: DemoAppState) => boolean, timeoutMs?: number): Promise<DemoAppState>;
  stop(): Promise<void>;
}

export interface MutterHarness {
  /** The environment mime and apps need: the session's sockets and bus, GNOME named, no DISPLAY. */
  readonly env: Record<string, string | undefined>;
  /**
   * Waits until the screen, as mutter's screen cast shows it, satisfies `predicate` (the RGBA pixel at
   * a point); throws after `timeoutMs`. For a test's preconditions (an app's window drawn).
   */
  waitForPixel(
    point: { x: number; y: number },
    predicate: (rgba: number[]) => boolean,
    timeoutMs?: number,
  ): Promise<void>;
  /**
   * Starts Chromium on the demo app natively on Wayland, or with `x11` on mutter's Xwayland (kiosk:
   * the whole screen, as recorded under X11); its state is read from the page title through Chromium's DevTools endpoint, outside mime.
   */
  startDemoApp(query?: string, platform?: 'wayland' | 'x11'): Promise<DemoApp>;
  /**
   * The processes connected to mutter's Wayland socket: its native Wayland clients (mutter hands its
   * Xwayland a connection of its own, so neither Xwayland nor its X11 clients are among them).
   */
  waylandClients(): Promise<SocketClient[]>;
  /** mime's GNOME desktop on this session (no fail-safe), for tests that drive the adapter itself. */
  openDesktop(): Promise<Desktop>;
  /** Starts an app natively on Wayland (GTK); it is ended with the harness, or by `stop` on the handle. */
  startApp(
    command: string,
    args: string[],
    env?: Record<string, string | undefined>,
  ): { stop: () => Promise<void> };
  stop(): Promise<void>;
}

/**
 * The X display and its authority file of the Xwayland that mutter (process `pid`) started, read
 * from the child's command line (`Xwayland :N ... -auth FILE`); null until it runs.
 */
async function xwaylandOf(pid: number): Promise<{ DISPLAY: string; XAUTHORITY: string } | null> {
  const tasks = await readdir(`/proc/${pid}/task`).catch((): string[] => []);
  for (const task of tasks) {
    const children = await readFile(`/proc/${pid}/task/${task}/children`, 'utf8').catch(() => '');
    for (const child of children.split(/\s+/).filter(Boolean)) {
      const args = (await readFile(`/proc/${child}/cmdline`, 'utf8').catch(() => '')).split('\0');
      if (!/(^|\/)Xwayland$/.test(args[0] ?? '')) continue;
      const display = args.find((a) => /^:\d+$/.test(a));
      const auth = args[args.indexOf('-auth') + 1];
      if (display && auth && args.includes('-auth')) return { DISPLAY: display, XAUTHORITY: auth };
    }
  }
  return null;
}

export interface MutterHarnessOptions {
  /** How long each process may take to start, ms. Default 30000. */
  startTimeoutMs?: number;
  /** Mutter runs Xwayland, and `env` names its display (`DISPLAY`, `XAUTHORITY`). Default false. */
  xwayland?: boolean;
}

/** Starts PipeWire, WirePlumber and headless mutter on a session bus of their own. */
export async function startMutterHarness(options: MutterHarnessOptions = {}): Promise<MutterHarness> {
  const { startTimeoutMs = 30_000, xwayland = false } = options;
  const children: Owned[] = [];
  const runtime = await mkdtemp(path.join(tmpdir(), 'mime-mutter-'));
  await chmod(runtime, 0o700);
  let stopBus: (() => Promise<void>) | undefined;
  const stop = async () => {
    for (const child of children.splice(0).toReversed()) await end(child);
    await stopBus?.();
    await rm(runtime, { recursive: true, force: true });
  };
  try {
    const base: NodeJS.ProcessEnv = { ...process.env };
    delete base.DISPLAY;
    delete base.WAYLAND_DISPLAY;
    const bus = await startSessionBus(base, startTimeoutMs);
    if (!bus) throw new Error('dbus-daemon did not start a session bus');
    stopBus = bus.stop;
    const sessionEnv: Record<string, string | undefined> = {
      ...bus.env,
      DISPLAY: undefined,
      WAYLAND_DISPLAY: undefined,
      XDG_RUNTIME_DIR: runtime,
      XDG_SESSION_TYPE: 'wayland',
    };
    const spawnOwned = (command: string, args: string[], env = sessionEnv) => {
      const child = execa('setpriv', ['--pdeathsig', 'TERM', '--', command, ...args], {
        env,
        extendEnv: false,
        stdio: ['ignore', 'ignore', 'pipe'],
        reject: false,
        detached: true,
      });
      const handle = groupOf(child);
      children.push(handle);
      return { child, handle };
    };
    const alive = async (child: ReturnType<typeof execa>, name: string) => {
      if (child.exitCode !== null)
        throw new Error(`${name} exited: ${String((await child).stderr).slice(-1500)}`);
    };

    const { child: pipewire } = spawnOwned('pipewire', []);
    await waitUntil(
      async () => {
        await alive(pipewire, 'pipewire');
        return access(path.join(runtime, 'pipewire-0')).then(
          () => true,
          () => false,
        );
      },
      { timeoutMs: startTimeoutMs, what: 'pipewire making its socket' },
    );
    spawnOwned('wireplumber', []);
    const { child: mutter } = spawnOwned('mutter', [
      '--headless',
      '--wayland',
      ...(xwayland ? [] : ['--no-x11']),
      '--virtual-monitor',
      '1280x800',
    ]);
    const hasOwner = async (name: string) => {
      const { stdout } = await execa(
        'dbus-send',
        [
          '--session',
          '--print-reply',
          '--dest=org.freedesktop.DBus',
          '/org/freedesktop/DBus',
          'org.freedesktop.DBus.NameHasOwner',
          `string:${name}`,
        ],
        { env: sessionEnv, extendEnv: false, reject: false },
      );
      return /boolean true/.test(stdout);
    };
    await waitUntil(
      async () => {
        await alive(mutter, 'mutter');
        const socket = await access(path.join(runtime, 'wayland-0')).then(
          () => true,
          () => false,
        );
        return (
          socket &&
          (await hasOwner('org.gnome.Mutter.RemoteDesktop')) &&
          (await hasOwner('org.gnome.Mutter.ScreenCast'))
        );
      },
      { timeoutMs: startTimeoutMs, what: 'mutter making its Wayland socket and its D-Bus services' },
    );

    const env: Record<string, string | undefined> = {
      ...sessionEnv,
      WAYLAND_DISPLAY: 'wayland-0',
      XDG_CURRENT_DESKTOP: 'GNOME',
    };
    if (xwayland) {
      const pid = mutter.pid;
      if (pid === undefined) throw new Error('mutter has no process id');
      const x = await waitUntil(
        async () => {
          await alive(mutter, 'mutter');
          const found = await xwaylandOf(pid);
          if (!found) return null;
          // Xwayland answers once it is ready: a client can ask for the root window's size.
          const asked = await execa('xdotool', ['getdisplaygeometry'], {
            env: { ...sessionEnv, ...found },
            extendEnv: false,
            reject: false,
          });
          return asked.exitCode === 0 ? found : null;
        },
        { timeoutMs: startTimeoutMs, what: "mutter's Xwayland answering" },
      );
      Object.assign(env, x);
    }
    return {
      env,
      startApp: (command, args, appEnv = env) => {
        const { handle } = spawnOwned(command, args, { ...appEnv, GDK_BACKEND: 'wayland' });
        return {
          stop: async () => {
            const index = children.indexOf(handle);
            if (index >= 0) children.splice(index, 1);
            await end(handle);
          },
        };
      },
      startDemoApp: async (query, platform = 'wayland') => {
        if (platform === 'x11' && !env.DISPLAY) throw new Error('start the harness with `xwayland: true`');
        const profile = await mkdtemp(path.join(runtime, 'chromium-'));
        const url = pathToFileURL(DEMO_APP_PATH).href + (query ? `?${query}` : '');
        const { handle, child } = spawnOwned(
          'chromium',
          [
            `--ozone-platform=${platform}`,
            ...CHROMIUM_FLAGS,
            '--remote-debugging-port=0',
            `--user-data-dir=${profile}`,
            url,
          ],
          env,
        );
        const port = await waitUntil(
          async () => {
            await alive(child, 'chromium');
            const text = await readFile(path.join(profile, 'DevToolsActivePort'), 'utf8').catch(() => '');
            return /^\d+/.exec(text)?.[0] ?? null;
          },
          { timeoutMs: startTimeoutMs, what: 'Chromium opening its DevTools port' },
        );
        const readAppState = async () => {
          const pages = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as Array<{
            type: string;
            title: string;
          }>;
          const page = pages.find((p) => p.type === 'page');
          if (!page) throw new Error('Chromium shows no page');
          return parseDemoTitle(unescapeHtml(page.title));
        };
        const waitForAppState = (predicate: (state: DemoAppState) => boolean, timeoutMs = 5000) =>
          waitUntil(
            async () => {
              const state = await readAppState().catch(() => null);
              return state && predicate(state) ? state : null;
            },
            { timeoutMs, what: 'the demo app state matching' },
          );
        await waitForAppState((state) => state.ready, startTimeoutMs);
        if (child.pid === undefined) throw new Error('Chromium has no process id');
        return {
          pid: child.pid,
          readAppState,
          waitForAppState,
          stop: async () => {
            const index = children.indexOf(handle);
            if (index >= 0) children.splice(index, 1);
            await end(handle);
          },
        };
      },
      waylandClients: () => waylandClients(path.join(runtime, 'wayland-0')),
      openDesktop: () => createGnomeDesktop({ failSafe: false }, env),
      waitForPixel: async (point, predicate, timeoutMs = startTimeoutMs) => {
        const desktop = await createGnomeDesktop({ failSafe: false }, env);
        try {
          await waitUntil(
            async () => {
              const frame = await desktop.captureFrame();
              const at = point.y * frame.stride + point.x * 4;
              return predicate([...frame.data.subarray(at, at + 4)]);
            },
            { timeoutMs, what: `the pixel at ${point.x},${point.y} matching` },
          );
        } finally {
          await desktop.close();
        }
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
