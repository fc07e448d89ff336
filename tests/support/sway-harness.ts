/**
 * A real Wayland desktop for tests: headless sway (wlroots, pixman renderer, one 1280x800 output) with
 * a runtime folder of its own, a private session bus for mime and the apps (accessibility), and
 * Chromium on the demo app natively on Wayland (`--ozone-platform=wayland`, kiosk). sway refuses to
 * run as root: as root the harness starts it as an unprivileged user (`runuser`, user
 * {@link SWAY_USER}, which `./setup.sh` creates); mime and the apps stay root, which may use that
 * user's sockets. `stop()` ends exactly the processes started here, by pid.
 */
import { execFileSync } from 'node:child_process';
import { chmod, chown, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { startSessionBus } from '@mime-desktop/os-io';
import { execa } from 'execa';
import { CHROMIUM_FLAGS, DEMO_APP_PATH, type DemoAppState, parseDemoTitle } from './desktop-harness.ts';
import { end, groupOf, type Owned } from './process-group.ts';
import { sleep } from './wait.ts';

/** The unprivileged user sway runs as when the tests run as root (`MIME_WAYLAND_USER`, default `mime-wl`). */
export const SWAY_USER = process.env.MIME_WAYLAND_USER ?? 'mime-wl';

const TOOLS = ['sway', 'swaymsg', 'grim', 'wtype', 'chromium', 'dbus-daemon'];

const isRoot = () => process.getuid?.() === 0;

function has(command: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

function userIds(user: string): { uid: number; gid: number } | null {
  try {
    const uid = Number(
      execFileSync('id', ['-u', user], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }),
    );
    const gid = Number(
      execFileSync('id', ['-g', user], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }),
    );
    return { uid, gid };
  } catch {
    return null;
  }
}

/** Why headless sway cannot run here (for `describe.skipIf`), or null when it can. */
export function swaySkipReason(): string | null {
  const missing = TOOLS.filter((tool) => !has(tool));
  if (missing.length > 0) return `not installed: ${missing.join(', ')} (./setup.sh installs them)`;
  if (isRoot() && !userIds(SWAY_USER)) {
    return `sway refuses root and there is no user ${SWAY_USER} to run it as (./setup.sh creates it: useradd --system --create-home ${SWAY_USER})`;
  }
  return null;
}

export interface SwayHarness {
  /** The environment mime and apps need: the sway session's sockets, the session bus, no DISPLAY. */
  readonly env: Record<string, string | undefined>;
  /** Runs a sway command through swaymsg; returns its stdout. */
  swaymsg(...args: string[]): Promise<string>;
  readAppState(): Promise<DemoAppState>;
  waitForAppState(predicate: (state: DemoAppState) => boolean, timeoutMs?: number): Promise<DemoAppState>;
  /** Parks the pointer at the bottom, resets the zoom, reloads the page and waits for a fresh state. */
  resetApp(): Promise<DemoAppState>;
  /**
   * Starts an app in the session (native Wayland unless its toolkit is told otherwise; `DISPLAY` is
   * XWayland's when the harness has it); it is ended with the harness, or by `stop` on the handle.
   */
  startApp(
    command: string,
    args: string[],
    env?: Record<string, string | undefined>,
  ): { stop(): Promise<void> };
  /** Waits for an app window whose app id or X11 class matches `app`, floats it and moves its corner to `at`. */
  placeWindow(app: RegExp, at: { x: number; y: number }, timeoutMs?: number): Promise<SwayView>;
  /**
   * The app window whose app id or X11 class matches `app`, as sway tells it now (its `shell` says
   * how the app reached sway: `xdg_shell` natively on Wayland, `xwayland` as an X11 client), or null.
   */
  findWindow(app: RegExp): Promise<SwayView | null>;
  /** The process id of the XWayland sway runs (`xwayland: true`), or null. */
  xwaylandPid(): Promise<number | null>;
  stop(): Promise<void>;
}

/** An app window as sway tells it (its content's place in the layout). */
export interface SwayView {
  pid: number;
  title: string;
  rect: { x: number; y: number; width: number; height: number };
  shell: string;
}

async function waitFor<T>(what: string, look: () => Promise<T | null>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const found = await look().catch(() => null);
    if (found !== null) return found;
    await sleep(50);
  }
  throw new Error(`${what} did not happen within ${timeoutMs} ms`);
}

/** The process id of the XWayland serving X display `display` (`:1`), or null. */
async function xwaylandOf(display: string): Promise<number | null> {
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const [command = '', first] = (await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '')).split(
      '\0',
    );
    if (path.basename(command) === 'Xwayland' && first === display) return Number(entry);
  }
  return null;
}

interface TreeNode {
  name?: string | null;
  app_id?: string | null;
  pid?: number;
  shell?: string;
  rect?: SwayView['rect'];
  window_properties?: { class?: string };
  nodes?: TreeNode[];
  floating_nodes?: TreeNode[];
}

/** The first app window whose app id (native) or X11 class (XWayland) matches `app`. */
function findView(node: TreeNode, app: RegExp): TreeNode | null {
  if (node.pid && app.test(node.app_id ?? node.window_properties?.class ?? '')) return node;
  for (const child of [...(node.nodes ?? []), ...(node.floating_nodes ?? [])]) {
    const hit = findView(child, app);
    if (hit) return hit;
  }
  return null;
}

const viewOf = (node: TreeNode): SwayView => ({
  pid: node.pid ?? 0,
  title: node.name ?? '',
  rect: node.rect ?? { x: 0, y: 0, width: 0, height: 0 },
  shell: node.shell ?? '',
});

/**
 * Starts headless sway, a session bus and Chromium on the demo app (`query` appended to its URL;
 * `app: false`: no app). With `xwayland`, sway runs XWayland and `chromium: 'x11'` puts the demo
 * on it (an X11 app in the Wayland session); else XWayland is off and Chromium is native.
 */
export async function startSwayHarness(
  options: {
    query?: string;
    startTimeoutMs?: number;
    app?: false;
    xwayland?: boolean;
    chromium?: 'x11';
  } = {},
): Promise<SwayHarness> {
  const { startTimeoutMs = 30_000 } = options;
  const owned: Owned[] = [];
  const runtime = await mkdtemp(path.join(tmpdir(), 'mime-sway-'));
  let stopBus: (() => Promise<void>) | undefined;
  const stop = async () => {
    for (const child of owned.splice(0).toReversed()) await end(child);
    await stopBus?.();
    await rm(runtime, { recursive: true, force: true });
  };
  try {
    const config = path.join(runtime, 'config');
    await writeFile(
      config,
      // The headless output draws the pointer into its frames (no hardware cursor plane; Xvfb's frames
      // have none): hidden once it rests 50 ms, frames show the app alone, as recorded under X11.
      // A black background (swaybg), as Xvfb's root window where the workflows were recorded.
      // zenity's dialogs float from the start, at their own size, as a window manager shows them: tiled
      // first (the whole output) and floated by the test, one told its OK button about (1020, 640) px
      // from its place, off the screen, as if still laid out at the output's size (CI 14e, 16b, 17e).
      `output HEADLESS-1 resolution 1280x800 position 0,0\nxwayland ${options.xwayland ? 'force' : 'disable'}\ndefault_border none\nseat * hide_cursor 50\noutput * bg #000000 solid_color\nfor_window [app_id="zenity"] floating enable\n`,
    );
    const ids = isRoot() ? userIds(SWAY_USER) : null;
    if (ids) {
      await chown(runtime, ids.uid, ids.gid);
      await chown(config, ids.uid, ids.gid);
    }
    await chmod(runtime, 0o700);
    const swayEnv = [
      `PATH=${process.env.PATH ?? '/usr/bin:/bin'}`,
      `XDG_RUNTIME_DIR=${runtime}`,
      'WLR_BACKENDS=headless',
      'WLR_LIBINPUT_NO_DEVICES=1',
      'WLR_RENDERER=pixman',
      'WLR_HEADLESS_OUTPUTS=1',
    ];
    const command = ['env', '-i', ...swayEnv, 'sway', '-c', config];
    const sway = execa(
      'setpriv',
      ['--pdeathsig', 'TERM', '--', ...(ids ? ['runuser', '-u', SWAY_USER, '--'] : []), ...command],
      { stdio: ['ignore', 'ignore', 'pipe'], reject: false },
    );
    owned.push({ kill: (s) => sway.kill(s), done: sway });
    const sockets = await waitFor(
      'sway making its sockets',
      async () => {
        if (sway.exitCode !== null) throw new Error(`sway exited: ${(await sway).stderr.slice(-1000)}`);
        const names = await readdir(runtime);
        const ipc = names.find((n) => /^sway-ipc\..*\.sock$/.test(n));
        const wayland = names.find((n) => /^wayland-\d+$/.test(n));
        return ipc && wayland ? { ipc: path.join(runtime, ipc), wayland } : null;
      },
      startTimeoutMs,
    );

    const base: NodeJS.ProcessEnv = { ...process.env };
    delete base.DISPLAY;
    const bus = await startSessionBus(base, startTimeoutMs);
    if (!bus) throw new Error('dbus-daemon did not start a session bus');
    stopBus = bus.stop;
    const env: Record<string, string | undefined> = {
      ...bus.env,
      DISPLAY: undefined,
      XDG_RUNTIME_DIR: runtime,
      WAYLAND_DISPLAY: sockets.wayland,
      SWAYSOCK: sockets.ipc,
      XDG_SESSION_TYPE: 'wayland',
    };

    const swaymsg = async (...args: string[]) =>
      (await execa('swaymsg', ['-s', sockets.ipc, ...args], { timeout: 10_000 })).stdout;
    if (options.xwayland) {
      // sway names XWayland's display only to what it starts: a program it runs writes it down.
      const file = path.join(runtime, 'xwayland-display');
      await swaymsg('exec', `printenv DISPLAY > ${file}`);
      env.DISPLAY = await waitFor(
        'sway naming its XWayland display',
        async () => (await readFile(file, 'utf8')).trim() || null,
        startTimeoutMs,
      );
    }
    const tree = async () => JSON.parse(await swaymsg('-t', 'get_tree', '-r')) as TreeNode;

    const readTitle = async () => {
      const view = findView(await tree(), /^chromium$/i);
      if (!view?.name) throw new Error('no Chromium window in sway');
      return view.name;
    };
    const readAppState = async () => parseDemoTitle(await readTitle());
    const waitForAppState = (predicate: (state: DemoAppState) => boolean, timeoutMs = 5000) =>
      waitFor(
        'the app state matching',
        async () => {
          const state = await readAppState();
          return predicate(state) ? state : null;
        },
        timeoutMs,
      );
    const startApp = (command: string, args: string[], appEnv = env) => {
      const child = execa('setpriv', ['--pdeathsig', 'TERM', '--', command, ...args], {
        env: appEnv,
        extendEnv: false,
        stdio: 'ignore',
        reject: false,
        detached: true,
      });
      const handle = groupOf(child);
      owned.push(handle);
      return {
        stop: async () => {
          const index = owned.indexOf(handle);
          if (index >= 0) owned.splice(index, 1);
          await end(handle);
        },
      };
    };
    const findWindow = async (app: RegExp) => {
      const view = findView(await tree(), app);
      return view?.pid && view.rect ? viewOf(view) : null;
    };
    const placeWindow = async (app: RegExp, at: { x: number; y: number }, timeoutMs = startTimeoutMs) => {
      const found = await waitFor(
        'the app window in sway',
        async () => findView(await tree(), app),
        timeoutMs,
      );
      await swaymsg(`[pid=${found.pid}] floating enable, move absolute position ${at.x} ${at.y}`);
      return waitFor(
        `the app window at ${at.x},${at.y}`,
        async () => {
          const view = findView(await tree(), app);
          return view?.rect?.x === at.x && view.rect.y === at.y ? viewOf(view) : null;
        },
        timeoutMs,
      );
    };
    const xwaylandPid = async () => (env.DISPLAY ? xwaylandOf(env.DISPLAY) : null);
    const harness = {
      env,
      swaymsg,
      readAppState,
      waitForAppState,
      startApp,
      placeWindow,
      findWindow,
      xwaylandPid,
      stop,
    };
    if (options.app === false) {
      return {
        ...harness,
        resetApp: () => Promise.reject(new Error('no app: the harness was started with app: false')),
      };
    }

    const profile = path.join(runtime, 'chromium-profile');
    const url = pathToFileURL(DEMO_APP_PATH).href + (options.query ? `?${options.query}` : '');
    const browser = execa(
      'setpriv',
      [
        '--pdeathsig',
        'TERM',
        '--',
        // XWayland lets in only the user sway runs as (it has no auth file root could use): in a
        // real session everything runs as that one user, so the X11 app does here.
        ...(options.chromium === 'x11' && ids ? ['runuser', '-u', SWAY_USER, '--'] : []),
        'chromium',
        `--ozone-platform=${options.chromium ?? 'wayland'}`,
        ...CHROMIUM_FLAGS,
        `--user-data-dir=${profile}`,
        url,
      ],
      { env, extendEnv: false, stdio: 'ignore', reject: false, detached: true },
    );
    owned.push(groupOf(browser));

    await waitForAppState((s) => s.ready, startTimeoutMs);
    return {
      ...harness,
      resetApp: async () => {
        const before = await readAppState().catch(() => undefined);
        await swaymsg('seat', '-', 'cursor', 'set', '640', '780');
        // A Chromium that has just started takes no keys from wtype for a few seconds (measured: the
        // first two F5s within 3.6 s of its page being ready were lost, later ones all reloaded): its
        // seat has no keyboard but wtype's. Press again until the page reloads.
        const deadline = Date.now() + 30_000;
        for (;;) {
          await execa('wtype', ['-s', '50', '-M', 'ctrl', '0', '-m', 'ctrl', '-k', 'F5'], {
            env,
            extendEnv: false,
          });
          try {
            return await waitForAppState((s) => s.ready && s.load !== before?.load, 2500);
          } catch (error) {
            if (Date.now() > deadline) throw error;
          }
        }
      },
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
