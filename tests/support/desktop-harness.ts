/**
 * A real desktop for tests: a private Xvfb server (display number picked by Xvfb through
 * `-displayfd`, never fixed), optionally openbox, and Chromium in kiosk mode on a local HTML file,
 * by default the demo app in `fixtures/apps/demo`. Helpers drive it with xdotool and read the app's
 * state from its window title. `stop()` ends exactly the processes this harness started, by pid; each
 * is also started under `setpriv --pdeathsig TERM`, so none outlives this process if it dies.
 *
 * Code under test that loads nut-js or uiohook reads `DISPLAY` when it loads: set
 * `process.env.DISPLAY = harness.display` before the first desktop call, one vitest file per harness.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { type PrivateDisplay, startPrivateDisplay } from '@mime-desktop/os-io';
import { execa, type ResultPromise } from 'execa';
import { sleep, waitUntil } from './wait.ts';

/** Absolute path of the demo app's page. */
export const DEMO_APP_PATH = fileURLToPath(new URL('../../fixtures/apps/demo/index.html', import.meta.url));
/** Absolute path of the address form app (Name, City, Send; variants by query: dark, dx/dy, drop=city). */
export const FORM_APP_PATH = fileURLToPath(new URL('../../fixtures/apps/form/index.html', import.meta.url));

/** A box in logical screen pixels (the demo runs in kiosk mode at 0,0, so CSS px = screen px). */
export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

const box = (x: number, y: number, width: number, height: number): Box => ({ x, y, width, height });

/** Where the demo app's elements are on a 1280x800 screen (mirrors fixtures/apps/demo/app.css). */
export const DEMO_LAYOUT = {
  header: box(0, 0, 1280, 64),
  swatchRed: box(1100, 12, 40, 40),
  swatchGreen: box(1150, 12, 40, 40),
  swatchBlue: box(1200, 12, 40, 40),
  search: box(40, 96, 400, 48),
  searchButton: box(456, 96, 164, 48),
  /** The i-th visible result row (0-based); its Play button is {@link DEMO_LAYOUT.playButton}. */
  result: (i: number): Box => box(40, 168 + 52 * i, 580, 52),
  playButton: (i: number): Box => box(512, 174 + 52 * i, 100, 40),
  nowPlaying: box(40, 616, 580, 48),
  echo: box(680, 96, 560, 96),
  scrollList: box(680, 212, 560, 200),
  dragItem: box(680, 436, 180, 64),
  dropZone: box(960, 436, 280, 100),
  clickPad: box(680, 556, 560, 100),
  status: box(40, 690, 1200, 40),
} as const;

/** Center of a box, rounded to whole pixels. */
export function centerOf(b: Box): { x: number; y: number } {
  return { x: Math.round(b.x + b.width / 2), y: Math.round(b.y + b.height / 2) };
}

/** The demo app's state, as summarized in its window title `mime-demo <JSON>`. */
export interface DemoAppState {
  ready: boolean;
  /** Random number drawn at each page load: changes when the page reloads. */
  load: number;
  /** Last action: `none`, `search:<query>`, `select:<song>`, `play:<song>`, `type`, `scroll`,
   * `drag:start`, `drop:ok`, `drop:missed`, `pad:left|middle|right|double`. */
  action: string;
  /** Text in the search box. */
  search: string;
  /** Song names shown in the result list. */
  results: string[];
  selected: string;
  /** Song set by a Play button, `''` before any. */
  playing: string;
  /** Exact value of the echo text area. */
  typed: string;
  /** Scroll offsets of the scrollable track list, CSS px. */
  scroll: number;
  scrollX: number;
  drop: 'none' | 'dragging' | 'ok' | 'missed';
  /** Last mouse button pressed on the click pad, or `double` after a double click. */
  pad: string;
  padClicks: number;
  /** Last non-modifier key the page saw, as a mime chord (`ctrl+a`, `enter`, `f2`). */
  key: string;
}

export interface DesktopHarnessOptions {
  /** Screen width in pixels. Default 1280. */
  width?: number;
  /** Screen height in pixels. Default 800. */
  height?: number;
  /** Start openbox so windows get click-to-focus and `_NET_ACTIVE_WINDOW`. Default false. */
  windowManager?: boolean;
  /** HTML file to open in Chromium, or `false` for a bare X server. Default the demo app. */
  app?: string | false;
  /** Query string for the app URL, without `?` (e.g. `dx=40&dy=20`). Default none. */
  query?: string;
  /** Chromium's device scale factor (the page zoomed, as on a HiDPI screen). Default 1. */
  scale?: number;
  /** Time allowed for Xvfb, the window and the page to come up, ms. Default 30000. */
  startTimeoutMs?: number;
  /**
   * Leave Xvfb running after `stop()` until this process exits (the kernel then ends it). Needed when
   * this process loaded uiohook or nut-js: Xlib in them exits the process (code 1) as soon as their
   * X server disappears. Set false when only child processes used the display. Default true.
   */
  keepDisplayUntilExit?: boolean;
}

export interface DesktopHarness {
  /** The X display, e.g. `:3`. */
  readonly display: string;
  /** `process.env` with `DISPLAY` set: pass it to child processes. */
  readonly env: NodeJS.ProcessEnv;
  readonly width: number;
  readonly height: number;
  /** X window id of the app window, or undefined without an app. */
  readonly windowId: string | undefined;
  /** Runs `xdotool <args>` on this display and returns its trimmed stdout. */
  xdotool(...args: string[]): Promise<string>;
  moveMouse(x: number, y: number): Promise<void>;
  /**
   * Moves to (x, y) and clicks X button `button` (1 left, 2 middle, 3 right, 4-7 wheel), `repeat`
   * times; with `holdMs`, once, holding the button down that long as a person does, and with
   * `restMs`, after the pointer rested there that long (a person's pointer settles before a press).
   */
  click(
    x: number,
    y: number,
    options?: { button?: number; repeat?: number; holdMs?: number; restMs?: number },
  ): Promise<void>;
  /** Types with `xdotool type` (its own keymap tricks; not a test of mime's typing). */
  typeText(text: string): Promise<void>;
  /** Presses xdotool key chords, e.g. `ctrl+a`, `Return`, `ctrl+alt+shift+Escape`. */
  pressKeys(...chords: string[]): Promise<void>;
  /** The app window's title as X reports it. */
  readTitle(): Promise<string>;
  readAppState(): Promise<DemoAppState>;
  /** Polls the app state until `predicate` holds; throws with the last state after `timeoutMs` (default 5000). */
  waitForAppState(predicate: (state: DemoAppState) => boolean, timeoutMs?: number): Promise<DemoAppState>;
  /** Resets the zoom (ctrl+0), reloads the page (F5) and waits for a fresh, ready state. */
  resetApp(): Promise<DemoAppState>;
  /**
   * Ends Chromium (its process group) and openbox, the ones started here, by pid, and removes temp
   * dirs; Xvfb too, or when this process exits (see `keepDisplayUntilExit`).
   */
  stop(): Promise<void>;
}

export const CHROMIUM_FLAGS = [
  '--no-sandbox',
  '--test-type',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-default-browser-check',
  '--disable-smooth-scrolling',
  '--force-device-scale-factor=1',
  '--disable-session-crashed-bubble',
  '--noerrdialogs',
  '--password-store=basic',
  '--kiosk',
  // Pages export their accessibility tree (the harness's display has a session bus for it).
  '--force-renderer-accessibility',
];

/** What stop() needs of a started process (an execa result promise). */
interface StartedProcess extends PromiseLike<unknown> {
  readonly pid?: number | undefined;
  readonly exitCode: number | null;
}

/** Sends `name` to a process, or to its whole group; ignores processes already gone. */
function signal(child: StartedProcess, group: boolean, name: NodeJS.Signals): void {
  if (child.pid === undefined || child.exitCode !== null) return;
  try {
    process.kill(group ? -child.pid : child.pid, name);
  } catch {
    // already gone
  }
}

/** SIGTERM, then SIGKILL after 3 s; resolves once the process has exited. */
async function end(child: StartedProcess, group: boolean): Promise<void> {
  const exited = () =>
    child.then(
      () => true,
      () => true,
    );
  signal(child, group, 'SIGTERM');
  if (!(await Promise.race([exited(), sleep(3000).then(() => false)]))) {
    signal(child, group, 'SIGKILL');
    await exited();
  }
}

/** Parses `mime-<app> <JSON>` out of a window title (the demo's, or another fixture app's). */
export function parseDemoTitle(title: string): DemoAppState {
  const start = title.indexOf('{');
  const end = title.lastIndexOf('}');
  if (!/^mime-[a-z]+ /.test(title) || start < 0 || end < start) {
    throw new Error(`not a demo app title: ${JSON.stringify(title)}`);
  }
  return JSON.parse(title.slice(start, end + 1)) as DemoAppState;
}

/** Starts Xvfb (+ openbox, + Chromium on the app) and waits until the app is ready. */
export async function startDesktopHarness(options: DesktopHarnessOptions = {}): Promise<DesktopHarness> {
  const { width = 1280, height = 800, windowManager = false } = options;
  const { startTimeoutMs = 30_000, keepDisplayUntilExit = true } = options;
  const app = options.app === undefined ? DEMO_APP_PATH : options.app;
  /** Processes stop() ends, in start order; Chromium's entry ends its whole process group. */
  const owned: Array<{ child: StartedProcess; group: boolean }> = [];
  const tempDirs: string[] = [];
  let xvfb: PrivateDisplay | undefined;
  let stopped = false;

  const killNow = () => {
    for (const { child, group } of owned) signal(child, group, 'SIGKILL');
  };
  process.once('exit', killNow);

  const stop = async () => {
    if (stopped) return;
    stopped = true;
    process.off('exit', killNow);
    for (const { child, group } of owned.toReversed()) await end(child, group);
    // Otherwise Xvfb gets SIGTERM from the kernel when this process exits (setpriv --pdeathsig).
    if (keepDisplayUntilExit) xvfb?.release();
    else await xvfb?.stop();
    await Promise.all(tempDirs.map((dir) => rm(dir, { recursive: true, force: true })));
  };

  try {
    xvfb = await startPrivateDisplay({ width, height, startTimeoutMs });
    const { display, env } = xvfb;

    const xdotool = async (...args: string[]): Promise<string> => {
      const result = await execa('xdotool', args, { env, timeout: 10_000 });
      return result.stdout.trim();
    };

    if (windowManager) {
      const openbox = execa('setpriv', ['--pdeathsig', 'TERM', '--', 'openbox', '--sm-disable'], {
        env,
        stdio: 'ignore',
        reject: false,
      });
      owned.push({ child: openbox, group: false });
      await waitForWindowManager(env, openbox, startTimeoutMs);
    }

    let windowId: string | undefined;
    if (app !== false) {
      const profile = await mkdtemp(path.join(tmpdir(), 'mime-chromium-'));
      tempDirs.push(profile);
      const url = pathToFileURL(app).href + (options.query ? `?${options.query}` : '');
      const browser = execa(
        'setpriv',
        [
          '--pdeathsig',
          'TERM',
          '--',
          'chromium',
          ...CHROMIUM_FLAGS.map((flag) =>
            flag.startsWith('--force-device-scale-factor=') && options.scale
              ? `--force-device-scale-factor=${options.scale}`
              : flag,
          ),
          `--user-data-dir=${profile}`,
          '--window-position=0,0',
          `--window-size=${width},${height}`,
          url,
        ],
        { env, stdio: 'ignore', reject: false, detached: true },
      );
      owned.push({ child: browser, group: true });
      windowId = await waitForWindow(xdotool, startTimeoutMs);
    }

    const readTitle = async (): Promise<string> => {
      if (!windowId) throw new Error('no app window: the harness was started with app: false');
      const name = await xdotool('getwindowname', windowId).catch((error: unknown) => {
        if (String(error).includes('BadWindow')) return null;
        throw error;
      });
      if (name?.startsWith('mime-')) return name;
      // The page's window is gone (Chromium restarted by a fresh run, or replaced under load); a new
      // Chromium may even reuse the old window's id for another window: its page's window found anew.
      windowId = await waitForWindow(xdotool, 2000);
      return xdotool('getwindowname', windowId);
    };
    const readAppState = async () => parseDemoTitle(await readTitle());
    const waitForAppState = async (predicate: (state: DemoAppState) => boolean, timeoutMs = 5000) => {
      const deadline = Date.now() + timeoutMs;
      let last: DemoAppState | string = 'no state read';
      while (Date.now() < deadline) {
        try {
          const state = await readAppState();
          if (predicate(state)) return state;
          last = state;
        } catch (error) {
          last = String(error);
        }
        await sleep(50);
      }
      throw new Error(`app state did not match within ${timeoutMs} ms; last: ${JSON.stringify(last)}`);
    };

    const harness: DesktopHarness = {
      display,
      env,
      width,
      height,
      get windowId() {
        return windowId;
      },
      xdotool,
      moveMouse: async (x, y) => {
        await xdotool('mousemove', String(x), String(y));
      },
      click: async (x, y, { button = 1, repeat = 1, holdMs, restMs } = {}) => {
        if (restMs !== undefined) {
          await xdotool('mousemove', String(x), String(y));
          await sleep(restMs);
        }
        if (holdMs === undefined) {
          await xdotool(
            'mousemove',
            String(x),
            String(y),
            'click',
            '--repeat',
            String(repeat),
            String(button),
          );
          return;
        }
        await xdotool('mousemove', String(x), String(y), 'mousedown', String(button));
        await sleep(holdMs);
        await xdotool('mouseup', String(button));
      },
      typeText: async (text) => {
        await xdotool('type', '--delay', '20', '--', text);
      },
      pressKeys: async (...chords) => {
        await xdotool('key', '--delay', '30', ...chords);
      },
      readTitle,
      readAppState,
      waitForAppState,
      resetApp: async () => {
        const before = await readAppState().catch(() => undefined);
        await xdotool('mousemove', String(Math.round(width / 2)), String(Math.round(height - 20)));
        await xdotool('key', '--delay', '30', 'ctrl+0', 'F5'); // zoom back to 100 %, reload
        return waitForAppState((s) => s.ready && s.load !== before?.load, 10_000);
      },
      stop,
    };
    if (app !== false) await waitForAppState((s) => s.ready, startTimeoutMs);
    return harness;
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * Polls until openbox manages the display (it names itself on the root window once it does), so an
 * app started next is managed from its first map rather than taken over mid-map.
 */
async function waitForWindowManager(env: NodeJS.ProcessEnv, openbox: ResultPromise, timeoutMs: number) {
  let ended: number | undefined;
  void openbox.then((result) => {
    ended = result.exitCode;
  });
  await waitUntil(
    async () => {
      if (ended !== undefined) throw new Error(`openbox ended (code ${ended}) before managing the display`);
      const { stdout } = await execa('xprop', ['-root', '_NET_SUPPORTING_WM_CHECK'], { env, reject: false });
      return /window id # 0x[0-9a-f]+/i.test(stdout);
    },
    { timeoutMs, what: 'openbox managing the display' },
  );
}

async function waitForWindow(xdotool: (...args: string[]) => Promise<string>, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const found = await xdotool('search', '--onlyvisible', '--class', 'chromium').catch(() => '');
    // The page's own window, by its title (the fixture pages' titles start `mime-`): Chromium also
    // maps windows of its class that are not the page's, which it may replace.
    for (const id of found
      .split('\n')
      .map((line) => line.trim())
      .filter(Boolean)) {
      const name = await xdotool('getwindowname', id).catch(() => '');
      if (name.startsWith('mime-')) return id;
    }
    await sleep(100);
  }
  throw new Error(`no visible Chromium window of a mime- page appeared within ${timeoutMs} ms`);
}

/**
 * A workflow `setup` that starts the demo app the way the harness does (Chromium in kiosk mode at
 * 0,0, a fresh profile), for replays on displays the test did not prepare (batch workers).
 */
export function demoAppSetup(query?: string): {
  command: string;
  window: { title: string };
  timeout_ms: number;
} {
  const url = pathToFileURL(DEMO_APP_PATH).href + (query ? `?${query}` : '');
  const flags = [...CHROMIUM_FLAGS, '--window-position=0,0', '--window-size=1280,800'].join(' ');
  return {
    command: `exec chromium ${flags} --user-data-dir="$(mktemp -d)" '${url}'`,
    window: { title: '^mime-demo ' },
    timeout_ms: 30_000,
  };
}
