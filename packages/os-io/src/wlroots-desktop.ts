/**
 * The {@link Desktop} adapter for wlroots compositors (sway and its kin), chosen for their Wayland
 * sessions (desktop-session.ts): the pointer through a long-lived `zwlr_virtual_pointer_v1`, keys and
 * text through wtype (an idle one keeping a keyboard on the seat for the run), frames through grim,
 * windows and the fail-safe hotkey through sway's IPC (other wlroots compositors: no windows, no
 * hotkey). What Wayland does not allow is refused with `MIME_UNSUPPORTED_PLATFORM`, never guessed:
 * global input hooks (recording), the real pointer position.
 */
import { execFile } from 'node:child_process';
import { setTimeout as delay } from 'node:timers/promises';
import { accessibilityOnce } from './accessibility-once.ts';
import type { Desktop } from './desktop.ts';
import { assertDisplay } from './display-probe.ts';
import { UnsupportedPlatformError } from './errors.ts';
import { DEFAULT_ABORT_HOTKEY, FailSafe, type FailSafeOptions } from './fail-safe.ts';
import { FrameRing } from './frame-ring.ts';
import { grimCapture } from './grim-capture.ts';
import type { TypedWindow } from './input-pacing.ts';
import type { DesktopOptions } from './nut-desktop.ts';
import { openAccessibility } from './open-accessibility.ts';
import { bindSwayHotkey, type SwayHotkey } from './sway-hotkey.ts';
import { SwayIpc, type SwayWindow } from './sway-ipc.ts';
import { WaylandInput, wtypeKeyboard } from './wayland-input.ts';
import { waylandSocketPath } from './wayland-wire.ts';
import type { FoundWindow } from './windows.ts';
import { VirtualPointer } from './wlr-virtual-pointer.ts';
import { keepKeyboard } from './wtype-keyboard.ts';

const CHROMIUM_APPS = /chrom|brave|vivaldi|msedge|electron/i;

/** How long the kept keyboard (see {@link keepKeyboard}) is waited for on sway's seat, ms. */
const KEPT_KEYBOARD_MS = 2000;

/** Waits (a bounded while) until sway's seats have more keyboards than `before`. */
async function keyboardAdded(sway: SwayIpc, before: number): Promise<void> {
  const deadline = performance.now() + KEPT_KEYBOARD_MS;
  while (performance.now() < deadline && (await sway.keyboards()) <= before) await delay(20);
}

function found(window: SwayWindow): FoundWindow {
  return { id: String(window.id), title: window.title, classes: window.classes, box: window.rect };
}

/** The window keys go to, as the typing pauses need it (Chromium by its app id, GTK and Qt by their libraries). */
function typedWindow(window: SwayWindow | undefined): TypedWindow | null {
  if (!window) return null;
  const chromium = window.classes.some((c) => CHROMIUM_APPS.test(c));
  return {
    id: window.id,
    traits: { gtk: false, role: chromium ? 'browser' : null, pid: window.pid, machine: null },
  };
}

/** The clipboard's text through wl-paste (wl-clipboard); null when it is not installed or holds none. */
function readWaylandClipboard(env: NodeJS.ProcessEnv): Promise<string | null> {
  return new Promise((resolve) => {
    execFile(
      'wl-paste',
      ['--no-newline', '--type', 'text'],
      { env, timeout: 2000, maxBuffer: 1 << 20 },
      (error, stdout) => resolve(error ? null : stdout),
    );
  });
}

/**
 * Opens the wlroots desktop of the session in `env`: throws `MIME_NO_DISPLAY` when the compositor
 * does not answer, `MIME_DESKTOP_FAILED` when it has no virtual pointer or grim fails.
 */
export async function createWlrootsDesktop(
  options: DesktopOptions = {},
  env: NodeJS.ProcessEnv = process.env,
): Promise<Desktop> {
  const display = await assertDisplay({ env });
  const swaySocket = env.SWAYSOCK?.trim() || null;
  const sway = swaySocket ? await SwayIpc.open(swaySocket) : null;
  const resources: Array<() => Promise<void> | void> = [() => sway?.close()];
  const closeAll = async () => {
    for (const release of resources.splice(0).toReversed()) await release();
  };
  try {
    const outputs = sway ? (await sway.outputs()).filter((o) => o.active) : [];
    const scale = Math.max(1, ...outputs.map((o) => o.scale));
    const capture = () => grimCapture(env, scale);
    const first = await capture();
    const screen = { logical: first.logical, physical: first.physical, scale };

    const failSafeOptions: FailSafeOptions =
      options.failSafe === false ? { corners: false } : { ...options.failSafe };
    const hotkeyChord = options.failSafe === false ? null : (failSafeOptions.hotkey ?? DEFAULT_ABORT_HOTKEY);
    if (options.signal) {
      failSafeOptions.signal = AbortSignal.any(
        [options.signal, failSafeOptions.signal].filter((s) => s !== undefined),
      );
    }
    // The hotkey is sway's binding, not a hook's: the fail-safe itself watches no keys.
    const failSafe = new FailSafe(screen.logical, { ...failSafeOptions, hotkey: null });
    let hotkey: SwayHotkey | null = null;
    if (sway && swaySocket && hotkeyChord) {
      hotkey = await bindSwayHotkey(swaySocket, hotkeyChord, () =>
        failSafe.abort('hotkey', `the fail-safe hotkey ${hotkeyChord} was pressed`),
      );
      resources.push(() => hotkey?.stop());
    }

    const socket = waylandSocketPath(env);
    if (socket === null) throw new UnsupportedPlatformError('WAYLAND_DISPLAY names no socket');
    const pointer = await VirtualPointer.open(socket, screen.logical);
    resources.push(() => pointer.close());
    const keyboards = (await sway?.keyboards()) ?? 0;
    const kept = await keepKeyboard(env);
    if (kept) {
      resources.push(() => kept.release());
      if (sway) await keyboardAdded(sway, keyboards);
    }

    const windows = async (): Promise<SwayWindow[]> => {
      if (!sway) {
        throw new UnsupportedPlatformError(
          `the Wayland compositor ${display.compositor ?? '(unnamed)'} does not tell mime its windows (sway does, through SWAYSOCK)`,
        );
      }
      return sway.windows();
    };
    const focused = async () => (await windows()).find((w) => w.focused && w.visible);
    const toXWayland = async () => (await focused().catch(() => undefined))?.shell === 'xwayland';
    const input = new WaylandInput(
      pointer,
      wtypeKeyboard(env, toXWayland),
      failSafe,
      screen.logical,
      options.timing,
      async () => typedWindow(await focused().catch(() => undefined)),
    );

    // Toolkits on Wayland report extents relative to their window: sway tells where it is, by pid.
    const origin = async ({ pid }: { pid: number }) => {
      const window = (await windows()).find((w) => w.pid === pid && w.visible);
      return window ? { x: window.rect.x, y: window.rect.y } : null;
    };
    const accessibility = accessibilityOnce(() => openAccessibility(env, origin));
    resources.push(() => accessibility.close());

    return {
      display,
      screen,
      signal: failSafe.signal,
      abortHotkey: hotkey?.chord ?? null,
      captureFrame: capture,
      createFrameRing: (ringOptions) => new FrameRing(capture, ringOptions),
      pointerPosition: () => input.pointerPosition(),
      activeWindow: async () => {
        const window = await focused().catch(() => undefined);
        return window ? { title: window.title } : null;
      },
      accessibility: accessibility.get,
      windowAt: async (point) => {
        // Floating windows come after tiled ones in the tree and lie over them: the last hit is on top.
        const hit = (await windows()).findLast(
          ({ rect, visible }) =>
            visible &&
            point.x >= rect.x &&
            point.y >= rect.y &&
            point.x < rect.x + rect.width &&
            point.y < rect.y + rect.height,
        );
        return hit ? found(hit) : null;
      },
      windows: async () =>
        (await windows())
          .filter((w) => w.visible)
          .reverse()
          .map(found),
      focusedWindow: async () => {
        const window = await focused();
        return window ? found(window) : null;
      },
      movePointer: (point, moveOptions) => input.movePointer(point, moveOptions),
      click: (point, clickOptions) => input.click(point, clickOptions),
      drag: (from, to, dragOptions) => input.drag(from, to, dragOptions),
      scroll: (direction, amount, scrollOptions) => input.scroll(direction, amount, scrollOptions),
      pressKey: (chord) => input.pressKey(chord),
      typeText: (text, typeOptions) => input.typeText(text, typeOptions),
      readClipboard: () => readWaylandClipboard(env),
      startHooks: async () => {
        throw new UnsupportedPlatformError(
          `global input hooks do not exist on Wayland (${display.compositor ?? 'wlroots'}): no program may watch all input. ` +
            'Record in an X11 session; replay here runs without hooks.',
        );
      },
      watchHotkey: async (chord, onPress) => {
        if (!swaySocket) {
          throw new UnsupportedPlatformError(
            `the Wayland compositor ${display.compositor ?? '(unnamed)'} binds no hotkey for mime (sway does, through SWAYSOCK)`,
          );
        }
        const bound = await bindSwayHotkey(swaySocket, chord, onPress);
        resources.push(() => bound.stop());
        return bound;
      },
      close: async () => {
        await failSafe.dispose();
        await closeAll();
      },
    };
  } catch (error) {
    await closeAll();
    throw error;
  }
}
