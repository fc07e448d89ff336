/**
 * The {@link Desktop} adapter on nut-js (capture, input, clipboard) and uiohook-napi (hooks), loaded
 * only after the display probe passed.
 */
import { formatKeyChord, type KeyChord, normalizeKeyChord } from '@mime-desktop/schema';
import { accessibilityOnce } from './accessibility-once.ts';
import { captureFrame } from './capture.ts';
import { readClipboard } from './clipboard.ts';
import type { Desktop } from './desktop.ts';
import { assertDisplay } from './display-probe.ts';
import { FailSafe, type FailSafeOptions } from './fail-safe.ts';
import { FrameRing } from './frame-ring.ts';
import { type HookSubscription, startHooks } from './hooks.ts';
import { InputExecutor } from './input.ts';
import type { InputTiming } from './input-pacing.ts';
import { loadNut } from './native.ts';
import { openAccessibility } from './open-accessibility.ts';
import { type FoundWindow, focusedWindow, listWindows, windowAt } from './windows.ts';
import { XKeyboard } from './x-keyboard.ts';

export interface DesktopOptions {
  /**
   * The fail-safe for input (see {@link FailSafeOptions}: corners, hotkey `ctrl+alt+shift+escape`),
   * or `false` to drive input without one. Default: on, with its defaults.
   */
  failSafe?: FailSafeOptions | false;
  /** A signal of the caller's that aborts input like the fail-safe does. Default none. */
  signal?: AbortSignal;
  /** Pauses between input steps (see {@link InputTiming} for each default). */
  timing?: InputTiming;
  /**
   * When the X keyboard typing goes through opens: at the first typing (default), or now, in the
   * background, so the first typing does not wait for it (about 15 ms: a replay, which types soon).
   */
  keyboard?: 'at-first-typing' | 'now';
}

/**
 * The X11 desktop (and macOS, Windows): probes the display (throws `MIME_NO_DISPLAY` without one),
 * loads nut-js and measures the screen.
 * The fail-safe starts watching the hooks at the first input call, so a desktop used only for
 * capture and hooks (recording) never arms it.
 */
export async function createNutDesktop(options: DesktopOptions = {}): Promise<Desktop> {
  const display = await assertDisplay();
  const nut = await loadNut();
  const first = await captureFrame();
  const screen = { logical: first.logical, physical: first.physical, scale: first.scale };
  const failSafeOptions: FailSafeOptions =
    options.failSafe === false ? { corners: false, hotkey: null } : { ...options.failSafe };
  if (options.signal) {
    const signals = [options.signal, failSafeOptions.signal].filter((s) => s !== undefined);
    failSafeOptions.signal = AbortSignal.any(signals);
  }
  const failSafe = new FailSafe(screen.logical, failSafeOptions);
  // The X keyboard opens at the first typing; without one (not X11, no XTEST) typing goes through nut-js.
  let keyboard: Promise<XKeyboard | undefined> | undefined;
  const openKeyboard = () => {
    keyboard ??=
      process.platform === 'linux' ? XKeyboard.open().catch(() => undefined) : Promise.resolve(undefined);
    return keyboard;
  };
  if (options.keyboard === 'now') void openKeyboard();
  // The accessibility bus opens at the first lookup (record and replay ask at once; capture-only users never).
  const accessibility = accessibilityOnce(() => openAccessibility());
  const input = new InputExecutor(nut, failSafe, screen.logical, options.timing, openKeyboard);
  const subscriptions = new Set<HookSubscription>();
  const startTracked: Desktop['startHooks'] = async (onEvent, hookOptions) => {
    const subscription = await startHooks(onEvent, hookOptions);
    const tracked: HookSubscription = {
      stop: async () => {
        subscriptions.delete(tracked);
        await subscription.stop();
      },
    };
    subscriptions.add(tracked);
    return tracked;
  };

  return {
    display,
    screen,
    signal: failSafe.signal,
    abortHotkey: failSafe.hotkey,
    captureFrame,
    createFrameRing: (ringOptions) => new FrameRing(captureFrame, ringOptions),
    pointerPosition: () => input.pointerPosition(),
    activeWindow: async () => {
      try {
        const window = await nut.getActiveWindow();
        return { title: await window.title };
      } catch {
        return null;
      }
    },
    accessibility: accessibility.get,
    windowAt: async (point) => {
      const window = await windowAt({ x: point.x * screen.scale, y: point.y * screen.scale });
      return window && logicalWindow(window, screen.scale);
    },
    windows: async () => (await listWindows()).map((w) => logicalWindow(w, screen.scale)),
    focusedWindow: () => focusedWindow(),
    movePointer: (point, moveOptions) => input.movePointer(point, moveOptions),
    click: (point, clickOptions) => input.click(point, clickOptions),
    drag: (from, to, dragOptions) => input.drag(from, to, dragOptions),
    scroll: (direction, amount, scrollOptions) => input.scroll(direction, amount, scrollOptions),
    pressKey: (chord) => input.pressKey(chord),
    typeText: (text, typeOptions) => input.typeText(text, typeOptions),
    readClipboard: () => readClipboard(nut),
    startHooks: startTracked,
    watchHotkey: (chord, onPress) => {
      const wanted = normalizeKeyChord(chord);
      return startTracked((event) => {
        if (event.type !== 'keydown' || event.key === null) return;
        if (formatKeyChord({ modifiers: event.modifiers, key: event.key } as KeyChord) === wanted) onPress();
      });
    },
    close: async () => {
      await Promise.all([...subscriptions].map((subscription) => subscription.stop()));
      await failSafe.dispose();
      await (await keyboard)?.close();
      await accessibility.close();
    },
  };
}

/** A window whose box is in physical pixels, in logical ones. */
function logicalWindow(window: FoundWindow, scale: number): FoundWindow {
  const { box } = window;
  if (!box || scale === 1) return window;
  const at = (n: number) => Math.round(n / scale);
  return { ...window, box: { x: at(box.x), y: at(box.y), width: at(box.width), height: at(box.height) } };
}
