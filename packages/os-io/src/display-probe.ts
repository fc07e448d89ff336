/**
 * Finds out whether there is a display to work on, without loading any native module: without a
 * display uiohook aborts the process and nut-js segfaults, so this runs first and turns "no display"
 * into a {@link DisplayNotFoundError} that says how to fix it.
 */
import { connect, type Socket } from 'node:net';
import { chooseAdapter, compositorOf, type DesktopAdapter } from './desktop-session.ts';
import { DisplayNotFoundError } from './errors.ts';
import { waylandSocketPath } from './wayland-wire.ts';

/** The kind of graphical session: X11, Wayland (maybe with XWayland), macOS, Windows, or none. */
export type SessionType = 'x11' | 'wayland' | 'macos' | 'windows' | 'none';

/** Facts about the display, for `mime doctor` and for error messages. */
export interface DisplayFacts {
  platform: NodeJS.Platform;
  sessionType: SessionType;
  /** `DISPLAY` as set, or null. */
  display: string | null;
  /** `WAYLAND_DISPLAY` as set, or null. */
  waylandDisplay: string | null;
  /** The Wayland compositor the session names (`sway`, `GNOME`), or null outside Wayland or when none is named. */
  compositor: string | null;
  /** The desktop adapter mime drives this session with (`x11` also for XWayland), null without a display. */
  adapter: DesktopAdapter | null;
  /** Where the X server (or the Wayland compositor's socket) was looked for, null if not looked for. */
  endpoint: string | null;
  /** True when mime can capture and send input here: an X server or a wlroots or GNOME compositor answered, or macOS/Windows. */
  reachable: boolean;
  /** Why the display cannot be used and how to fix it; null when reachable. */
  problem: string | null;
  /** What works only partly here (e.g. XWayland), one sentence each; empty on a plain X11 session. */
  limitations: string[];
}

export interface ProbeDisplayOptions {
  /** Environment to read `DISPLAY`, `WAYLAND_DISPLAY` and `XDG_SESSION_TYPE` from. Default `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** Platform to probe for. Default `process.platform`. */
  platform?: NodeJS.Platform;
  /** Time allowed to connect to the X server, ms. Default 1000. */
  timeoutMs?: number;
}

const FIX =
  'Run mime inside a desktop session, set DISPLAY to a running X server (e.g. DISPLAY=:0), ' +
  'or run it headless under a virtual one: `xvfb-run -a mime ...`.';

const WAYLAND_LIMITS = [
  'Wayland session: no program can watch global input, so mime cannot record here (record in an X11 session); replay works.',
  'Wayland session: the pointer position is known only where mime moved it; the fail-safe corner check sees only those moves.',
];

const GNOME_WINDOWS =
  'GNOME session: mutter tells no program its windows, so there are no window titles, places or hotkey bindings; targets are found by pixels.';

const XWAYLAND_LIMITS = [
  'Wayland session: through XWayland mime sees and drives only X11 windows; native Wayland windows may capture black and ignore input.',
  'Wayland session: global input hooks (recording, the fail-safe hotkey) see only X11 windows.',
];

interface XEndpoint {
  /** Paths (unix sockets, abstract ones start with NUL) or a TCP address, tried in order. */
  targets: Array<{ path: string } | { host: string; port: number }>;
  label: string;
}

/** Parses `:0`, `:0.0`, `unix:1`, `localhost:10.0`, `host/unix:2` into where the X server listens. */
function parseDisplay(display: string): XEndpoint | null {
  const match = /^(?<host>[^:]*):(?<number>\d+)(?:\.\d+)?$/.exec(display);
  if (!match?.groups) return null;
  const host = match.groups.host ?? '';
  const number = Number(match.groups.number);
  if (host === '' || host === 'unix' || host.endsWith('/unix')) {
    const path = `/tmp/.X11-unix/X${number}`;
    return { targets: [{ path }, { path: `\0${path}` }], label: path };
  }
  if (host.startsWith('/')) return { targets: [{ path: `${host}:${number}` }], label: `${host}:${number}` };
  const port = 6000 + number;
  return { targets: [{ host, port }], label: `${host}:${port}` };
}

function tryConnect(target: { path: string } | { host: string; port: number }, timeoutMs: number) {
  return new Promise<string | null>((resolve) => {
    const socket: Socket = connect(target);
    const finish = (error: string | null) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(error);
    };
    const timer = setTimeout(() => finish(`no answer within ${timeoutMs} ms`), timeoutMs);
    socket.once('connect', () => finish(null));
    socket.once('error', (error: NodeJS.ErrnoException) => finish(error.code ?? error.message));
  });
}

async function reachX(endpoint: XEndpoint, timeoutMs: number): Promise<string | null> {
  let firstError = 'not tried';
  for (const [index, target] of endpoint.targets.entries()) {
    const error = await tryConnect(target, timeoutMs);
    if (error === null) return null;
    if (index === 0) firstError = error;
  }
  return firstError;
}

/** A Wayland session mime drives directly (wlroots, GNOME): reachable when its compositor's socket answers. */
async function probeWayland(
  env: NodeJS.ProcessEnv,
  base: ProbeBase,
  adapter: 'wlroots' | 'gnome',
  timeoutMs: number,
): Promise<DisplayFacts> {
  const socket = waylandSocketPath(env);
  const facts = { ...base, sessionType: 'wayland' as const, adapter, endpoint: socket };
  const error =
    socket === null
      ? 'XDG_RUNTIME_DIR is not set'
      : await reachX({ targets: [{ path: socket }], label: socket }, timeoutMs);
  if (error === null) {
    const limitations = adapter === 'gnome' ? [...WAYLAND_LIMITS, GNOME_WINDOWS] : WAYLAND_LIMITS;
    return { ...facts, reachable: true, problem: null, limitations };
  }
  const problem =
    `cannot connect to the Wayland compositor (${base.compositor ?? adapter}) of WAYLAND_DISPLAY=${base.waylandDisplay ?? '(unset)'} ` +
    `at ${socket ?? '$XDG_RUNTIME_DIR/$WAYLAND_DISPLAY'} (${error}): run mime inside that session, with its XDG_RUNTIME_DIR and WAYLAND_DISPLAY set.`;
  return { ...facts, reachable: false, problem };
}

type ProbeBase = Pick<
  DisplayFacts,
  'platform' | 'display' | 'waylandDisplay' | 'compositor' | 'endpoint' | 'limitations'
>;

/** Probes the display and returns facts; never throws and loads no native module. */
export async function probeDisplay(options: ProbeDisplayOptions = {}): Promise<DisplayFacts> {
  const { env = process.env, platform = process.platform, timeoutMs = 1000 } = options;
  const display = env.DISPLAY?.trim() || null;
  const waylandDisplay = env.WAYLAND_DISPLAY?.trim() || null;
  const compositor = platform === 'linux' ? compositorOf(env) : null;
  const base: ProbeBase = { platform, display, waylandDisplay, compositor, endpoint: null, limitations: [] };

  if (platform === 'darwin') {
    return { ...base, sessionType: 'macos', adapter: 'x11', reachable: true, problem: null };
  }
  if (platform === 'win32') {
    return { ...base, sessionType: 'windows', adapter: 'x11', reachable: true, problem: null };
  }
  const adapter = chooseAdapter(env);
  if (adapter === 'wlroots' || adapter === 'gnome') return probeWayland(env, base, adapter, timeoutMs);

  const wayland = waylandDisplay !== null || env.XDG_SESSION_TYPE === 'wayland';
  const sessionType: SessionType = wayland ? 'wayland' : display ? 'x11' : 'none';
  const unreachable = { ...base, sessionType, adapter: null, reachable: false };
  if (!display) {
    const problem = wayland
      ? `Wayland session of ${compositor ?? 'an unnamed compositor'} without XWayland (WAYLAND_DISPLAY=${waylandDisplay ?? '(unset)'}, DISPLAY unset): ` +
        'mime drives Wayland directly only under wlroots compositors (sway) and GNOME so far, elsewhere it needs an X server. Enable XWayland so DISPLAY is set, ' +
        'log in to an X11 ("Xorg") or sway session, or run headless under `xvfb-run -a mime ...`.'
      : `DISPLAY is not set, so there is no screen to capture or drive. ${FIX}`;
    return { ...unreachable, problem };
  }

  const endpoint = parseDisplay(display);
  if (!endpoint) {
    const problem = `DISPLAY=${display} is not a display name like ":0" or "host:0". ${FIX}`;
    return { ...unreachable, problem };
  }
  const error = await reachX(endpoint, timeoutMs);
  if (error !== null) {
    const problem = `cannot connect to the X server of DISPLAY=${display} at ${endpoint.label} (${error}): it is not running or not reachable. ${FIX}`;
    return { ...unreachable, endpoint: endpoint.label, problem };
  }
  return {
    ...base,
    sessionType,
    adapter: 'x11',
    endpoint: endpoint.label,
    reachable: true,
    problem: null,
    limitations: wayland ? XWAYLAND_LIMITS : [],
  };
}

/** Probes the display and throws {@link DisplayNotFoundError} (`MIME_NO_DISPLAY`) when there is none. */
export async function assertDisplay(options: ProbeDisplayOptions = {}): Promise<DisplayFacts> {
  const facts = await probeDisplay(options);
  if (!facts.reachable) throw new DisplayNotFoundError(`No display: ${facts.problem}`);
  return facts;
}
