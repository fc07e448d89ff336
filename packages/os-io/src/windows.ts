/**
 * App windows: launching an app and waiting for its window, by title or class (regular expressions,
 * JavaScript syntax). On X11 the windows, their titles and classes are read through a connection of
 * mime's own to the X server (x-windows.ts, no process per window); under sway from its IPC (the class is the Wayland app
 * id, or an XWayland window's X11 class); on GNOME from the accessibility trees (the class is the
 * app's name there); elsewhere nut-js lists windows by title only.
 */
import { spawn } from 'node:child_process';
import { accessibleAppEnv, accessibleCommand } from './accessibility.ts';
import { chooseAdapter } from './desktop-session.ts';
import { DesktopFailureError, UnsupportedPlatformError } from './errors.ts';
import { wakeAccessibility } from './open-accessibility.ts';
import { pause } from './time.ts';
import { readWindowTree } from './x-window-tree.ts';
import { withXWindows } from './x-windows.ts';

/** Which window to look for; both given: both must match. */
export interface WindowQuery {
  /** Regular expression the window title must match. */
  title?: string;
  /** Regular expression the window class (X11 WM_CLASS, instance or class name) must match. */
  class?: string;
}

/** Where a window stands on the screen: its frame (a window manager's decorations included). */
export interface WindowBox {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** A window on screen. */
export interface FoundWindow {
  /** X11 window id (decimal), or the title elsewhere. */
  id: string;
  title: string;
  /** WM_CLASS names; empty where the platform does not tell. */
  classes: string[];
  /** Its box, where the lookup tells it (the window under a point, the listed windows). */
  box?: WindowBox;
}

/** The query in words, for messages: `title /Mousepad/ and class /mousepad/`. */
export function describeWindowQuery(query: WindowQuery): string {
  return [query.title && `title /${query.title}/`, query.class && `class /${query.class}/`]
    .filter(Boolean)
    .join(' and ');
}

/** The viewable X11 windows (top levels and their children), through one X connection. */
function x11Windows(env: NodeJS.ProcessEnv): Promise<FoundWindow[]> {
  return withXWindows(env, (reader) => reader.viewableWindows());
}

/** The windows of the sway session in `env` (its pids too, for {@link closeApp}). */
async function swayWindows(env: NodeJS.ProcessEnv): Promise<SessionWindow[]> {
  const socket = env.SWAYSOCK?.trim();
  if (!socket) {
    throw new UnsupportedPlatformError(
      'this Wayland compositor does not tell mime its windows (sway does, through SWAYSOCK): finding app windows works on X11 and sway',
    );
  }
  const { SwayIpc } = await import('./sway-ipc.ts');
  const ipc = await SwayIpc.open(socket);
  try {
    return (await ipc.windows())
      .filter((w) => w.visible)
      .map((w) => ({
        id: String(w.id),
        title: w.title,
        classes: w.classes,
        pid: w.pid,
        native: w.appId !== null,
      }));
  } finally {
    ipc.close();
  }
}

/** A window of the session; `native`: a Wayland app's, its classes its app id's names. */
type SessionWindow = FoundWindow & { pid?: number | null; native?: boolean };

/**
 * Whether `window` is one `query` asks for. A native Wayland window's app id is matched against a
 * class without case: X11 names the same program capitalised by its toolkit (GTK's `Mousepad`, Qt's
 * `FeatherPad` for the app ids `org.xfce.mousepad` and `featherpad`), so a workflow recorded under
 * X11 finds its app on Wayland.
 */
export function windowMatches(query: WindowQuery, window: SessionWindow): boolean {
  if (query.title !== undefined && !new RegExp(query.title, 'u').test(window.title)) return false;
  if (query.class === undefined) return true;
  const klass = new RegExp(query.class, window.native ? 'iu' : 'u');
  return window.classes.some((c) => klass.test(c));
}

/**
 * The visible windows of this session: X11, sway, GNOME's from the accessibility trees (mutter tells
 * no program its windows), or nut-js's by title elsewhere.
 */
async function sessionWindows(env: NodeJS.ProcessEnv): Promise<SessionWindow[]> {
  if (process.platform !== 'linux') return nutWindows();
  const adapter = chooseAdapter(env);
  if (adapter === 'x11') return x11Windows(env);
  if (adapter === 'gnome') {
    const { accessibleWindows } = await import('./atspi-windows.ts');
    return accessibleWindows(env);
  }
  return swayWindows(env);
}

async function nutWindows(): Promise<FoundWindow[]> {
  const { getWindows } = await import('@nut-tree-fork/nut-js');
  const windows = await getWindows();
  const titles = await Promise.all(windows.map((w) => w.title.catch(() => '')));
  return titles.map((title) => ({ id: title, title, classes: [] }));
}

/** The visible windows that match `query`. */
export async function findWindows(
  query: WindowQuery,
  env: NodeJS.ProcessEnv = process.env,
): Promise<FoundWindow[]> {
  if (process.platform !== 'linux' && query.class !== undefined) {
    throw new UnsupportedPlatformError(
      `finding a window by class works on Linux/X11 only; give a title instead`,
    );
  }
  return (await sessionWindows(env)).filter((w) => windowMatches(query, w));
}

/** A top-level window of the tree `xwininfo -root -tree` prints: its box and its client's WM_CLASS. */
interface TreeWindow {
  /** Ids of the window and everything under it (decimal, as xdotool prints them). */
  ids: Set<string>;
  title: string;
  classes: string[];
  box: { x: number; y: number; width: number; height: number };
}

/**
 * The root's children, top of the stacking order first (xwininfo lists them so), each with the
 * title and WM_CLASS of the first window at or under it that has a class (a window manager's frame
 * holds the app's window).
 */
async function topLevelWindows(env: NodeJS.ProcessEnv): Promise<TreeWindow[]> {
  const windows: TreeWindow[] = [];
  let depth: number | null = null;
  for (const line of await readWindowTree(env)) {
    depth ??= line.depth;
    if (line.depth === depth) {
      windows.push({ ids: new Set([line.id]), title: line.title, classes: line.classes, box: line.box });
      continue;
    }
    const top = windows.at(-1);
    if (!top) continue;
    top.ids.add(line.id);
    if (top.classes.length === 0 && line.classes.length > 0) {
      top.classes = line.classes;
      top.title = line.title;
    }
  }
  return windows;
}

/** The ids of the windows on screen (mapped, not hidden by an unmapped parent). */
async function visibleIds(env: NodeJS.ProcessEnv): Promise<Set<string>> {
  const ids = await withXWindows(env, (reader) => reader.viewableIds());
  return new Set(ids.map(String));
}

/**
 * The top-level window under a point (X11, physical pixels), as the pointer would hit it: the first
 * visible window of the stacking order whose box holds the point; null over the bare root window.
 */
export async function windowAt(
  point: { x: number; y: number },
  env: NodeJS.ProcessEnv = process.env,
): Promise<FoundWindow | null> {
  if (process.platform !== 'linux') {
    throw new UnsupportedPlatformError('finding the window under a point works on Linux/X11 only');
  }
  const [windows, visible] = await Promise.all([topLevelWindows(env), visibleIds(env)]);
  const hit = windows.find(
    ({ ids, box }) =>
      [...ids].some((id) => visible.has(id)) &&
      point.x >= box.x &&
      point.y >= box.y &&
      point.x < box.x + box.width &&
      point.y < box.y + box.height,
  );
  return hit ? foundOf(hit) : null;
}

const foundOf = (window: TreeWindow): FoundWindow => ({
  id: [...window.ids][0] as string,
  title: window.title,
  classes: window.classes,
  box: window.box,
});

/**
 * The visible top-level windows (X11, physical pixels), top of the stacking order first, each with
 * its box: one listing of the window tree, cheap enough to ask at each step.
 */
export async function listWindows(env: NodeJS.ProcessEnv = process.env): Promise<FoundWindow[]> {
  if (process.platform !== 'linux') {
    throw new UnsupportedPlatformError('listing the windows with their places works on Linux/X11 only');
  }
  const [windows, visible] = await Promise.all([topLevelWindows(env), visibleIds(env)]);
  return windows.filter(({ ids }) => [...ids].some((id) => visible.has(id))).map(foundOf);
}

/**
 * The window that has the keyboard focus (X11): the focused window's client, or, where the focus
 * follows the pointer (no window manager), the window under the pointer; null over the bare root.
 */
export async function focusedWindow(env: NodeJS.ProcessEnv = process.env): Promise<FoundWindow | null> {
  if (process.platform !== 'linux') {
    throw new UnsupportedPlatformError('finding the focused window works on Linux/X11 only');
  }
  const { focused, pointer } = await withXWindows(env, async (reader) => ({
    focused: await reader.focus(),
    pointer: await reader.pointer(),
  }));
  if (focused > 1) {
    const windows = await topLevelWindows(env);
    const top = windows.find((w) => w.ids.has(String(focused)));
    if (top) return { id: String(focused), title: top.title, classes: top.classes };
  }
  return windowAt(pointer, env);
}

export interface WaitForWindowOptions {
  /** Longest wait, ms. */
  timeoutMs: number;
  /** Pause between looks, ms. Default 250. */
  intervalMs?: number;
  signal?: AbortSignal;
  env?: NodeJS.ProcessEnv;
}

/** Waits until a window matches; resolves it, or null after the timeout. */
export async function waitForWindow(
  query: WindowQuery,
  options: WaitForWindowOptions,
): Promise<FoundWindow | null> {
  const { timeoutMs, intervalMs = 250, signal, env } = options;
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const [found] = await findWindows(query, env);
    if (found) return found;
    if (performance.now() >= deadline) return null;
    await pause(
      Math.min(intervalMs, Math.max(0, deadline - performance.now())),
      signal ?? new AbortController().signal,
    );
  }
}

/**
 * Starts an app with the shell, detached: it keeps running after mime exits, its output discarded.
 * The accessibility bus is switched on and its registry started first, so the app exports its tree
 * (best effort: without a bus the app still starts). Resolves once it was started (not when its
 * window appears); rejects when the shell cannot start.
 */
export async function launchApp(command: string, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  await wakeAccessibility(env);
  return new Promise((resolve, reject) => {
    // The app exports its accessibility tree: GTK, Qt and Chromium are told to.
    const child = spawn('/bin/sh', ['-c', accessibleCommand(command)], {
      detached: true,
      stdio: 'ignore',
      env: accessibleAppEnv(env),
    });
    child.once('error', (error) =>
      reject(
        new DesktopFailureError(`could not start the app (${command}): ${error.message}`, { cause: error }),
      ),
    );
    child.once('spawn', () => {
      child.unref();
      resolve();
    });
  });
}

/**
 * The processes that own `windows` (X11 `_NET_WM_PID`, read through one X connection; sway's pid, the accessibility bus's on GNOME);
 * windows that do not tell are left out.
 */
async function ownersOf(windows: readonly FoundWindow[], env: NodeJS.ProcessEnv): Promise<number[]> {
  if (chooseAdapter(env) !== 'x11') {
    const ids = new Set(windows.map((w) => w.id));
    const owned = (await sessionWindows(env)).filter((w) => ids.has(w.id)).map((w) => w.pid ?? Number.NaN);
    return [...new Set(owned.filter((pid) => Number.isInteger(pid) && pid > 1 && pid !== process.pid))];
  }
  const pids = await withXWindows(env, (reader) =>
    Promise.all(windows.map(async (w) => (await reader.pidOf(Number(w.id))) ?? Number.NaN)),
  );
  return [...new Set(pids.filter((pid) => Number.isInteger(pid) && pid > 1 && pid !== process.pid))];
}

export interface CloseAppOptions {
  /** How long the app gets to close after SIGTERM before SIGKILL, ms. Default 5000. */
  graceMs?: number;
  signal?: AbortSignal;
  env?: NodeJS.ProcessEnv;
}

/**
 * Ends the app whose windows match `query` (X11): SIGTERM to the processes that own them, SIGKILL to
 * those still there after `graceMs`, until none of the windows is left. Resolves the number of
 * processes ended; throws {@link DesktopFailureError} when a window stays.
 */
export async function closeApp(query: WindowQuery, options: CloseAppOptions = {}): Promise<number> {
  const { graceMs = 5000, signal, env = process.env } = options;
  const windows = await findWindows(query, env);
  const pids = await ownersOf(windows, env);
  if (windows.length > 0 && pids.length === 0) {
    throw new DesktopFailureError(
      `the app window (${describeWindowQuery(query)}) does not tell which process owns it (no _NET_WM_PID): close it yourself, or give the workflow a setup.reset command`,
    );
  }
  const send = (sig: NodeJS.Signals) => {
    for (const pid of pids) {
      try {
        process.kill(pid, sig);
      } catch {
        // Already gone.
      }
    }
  };
  send('SIGTERM');
  const gone = async (ms: number) => (await waitForNoWindow(query, { timeoutMs: ms, signal, env })) === true;
  if (!(await gone(graceMs))) {
    send('SIGKILL');
    if (!(await gone(2000))) {
      throw new DesktopFailureError(
        `the app window (${describeWindowQuery(query)}) is still open after SIGKILL`,
      );
    }
  }
  return pids.length;
}

/** Waits until no window matches; true when none is left within the timeout. */
async function waitForNoWindow(query: WindowQuery, options: WaitForWindowOptions): Promise<boolean> {
  const { timeoutMs, intervalMs = 100, signal, env } = options;
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    if ((await findWindows(query, env)).length === 0) return true;
    if (performance.now() >= deadline) return false;
    await pause(
      Math.min(intervalMs, Math.max(0, deadline - performance.now())),
      signal ?? new AbortController().signal,
    );
  }
}
