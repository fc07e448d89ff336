/**
 * The {@link Desktop} adapter for GNOME's Wayland sessions (mutter), chosen by desktop-session.ts:
 * input through `org.gnome.Mutter.RemoteDesktop` over D-Bus, frames through the ScreenCast stream tied
 * to it, read by one long-lived PipeWire consumer. What mutter does not tell a client is refused with
 * `MIME_UNSUPPORTED_PLATFORM`, never guessed: windows (titles, places: GNOME Shell keeps them to
 * itself), so accessibility elements have no place on the screen (toolkits report them relative to
 * their window) until replay measured their window's place; global input hooks (recording); the real pointer position; a hotkey.
 */
import { accessibilityOnce } from './accessibility-once.ts';
import type { Desktop } from './desktop.ts';
import { assertDisplay } from './display-probe.ts';
import { UnsupportedPlatformError } from './errors.ts';
import { FailSafe, type FailSafeOptions } from './fail-safe.ts';
import { FrameRing } from './frame-ring.ts';
import { openUnplacedAccessibility } from './measured-windows.ts';
import { mutterKeyboard } from './mutter-keyboard.ts';
import { MutterRemoteDesktop } from './mutter-remote-desktop.ts';
import type { DesktopOptions } from './nut-desktop.ts';
import { PipeWireFrames } from './pipewire-frames.ts';
import { pause } from './time.ts';
import { WaylandInput } from './wayland-input.ts';

/**
 * How long the first events wait after the session starts, ms: apps bind the seat's new virtual
 * pointer and keyboard only once mutter has announced them, and events sent before that are lost
 * (the probe on this machine: the first click and keys were dropped without a motion, a key and
 * about 300 ms first). Nothing a client can watch tells when the apps have bound them.
 */
const WARM_UP_MS = 300;
/** The key pressed and released to make mutter add its virtual keyboard to the seat: Shift. */
const WARM_UP_KEYSYM = 0xffe1;

const NO_WINDOWS =
  'GNOME (mutter) tells no program its windows (titles, places): mime finds targets by pixels and accessibility names there';

/**
 * Opens the GNOME desktop of the session in `env`: throws `MIME_NO_DISPLAY` when the compositor does
 * not answer, `MIME_DESKTOP_FAILED` when mutter's remote desktop or the PipeWire stream does not start.
 */
export async function createGnomeDesktop(
  options: DesktopOptions = {},
  env: NodeJS.ProcessEnv = process.env,
): Promise<Desktop> {
  const display = await assertDisplay({ env });
  const address = env.DBUS_SESSION_BUS_ADDRESS?.trim();
  if (!address) {
    throw new UnsupportedPlatformError(
      'a GNOME Wayland session is driven over its D-Bus session bus, and DBUS_SESSION_BUS_ADDRESS is not set: run mime inside the session',
    );
  }
  const started = performance.now();
  const remote = await MutterRemoteDesktop.open(address);
  const resources: Array<() => Promise<void> | void> = [() => remote.close()];
  const closeAll = async () => {
    for (const release of resources.splice(0).toReversed()) await release();
  };
  try {
    const { width, height, scale } = remote.monitor;
    const frames = await PipeWireFrames.open(remote.node, { width, height }, scale, env);
    resources.push(() => frames.close());
    const capture = () => frames.capture();
    const first = await capture();
    const screen = { logical: first.logical, physical: first.physical, scale };

    // No compositor binding for mime on GNOME: the fail-safe watches no hotkey.
    const failSafeOptions: FailSafeOptions =
      options.failSafe === false ? { corners: false } : { ...options.failSafe };
    if (options.signal) {
      failSafeOptions.signal = AbortSignal.any(
        [options.signal, failSafeOptions.signal].filter((s) => s !== undefined),
      );
    }
    const failSafe = new FailSafe(screen.logical, { ...failSafeOptions, hotkey: null });
    const keyboard = mutterKeyboard(remote, (ms, signal) => pause(ms, signal ?? failSafe.signal));
    const input = new WaylandInput(remote, keyboard, failSafe, screen.logical, options.timing);

    await remote.moveTo({ x: screen.logical.width / 2, y: screen.logical.height - 1 });
    await remote.keysym(WARM_UP_KEYSYM, true);
    await remote.keysym(WARM_UP_KEYSYM, false);
    await pause(started + WARM_UP_MS - performance.now(), failSafe.signal);

    // Toolkits report extents relative to their window, and mutter does not say where windows are:
    // elements are placed once replay measured their window (measured-windows.ts).
    const accessibility = accessibilityOnce(() => openUnplacedAccessibility(env));
    resources.push(() => accessibility.close());
    const noWindows = async (): Promise<never> => {
      throw new UnsupportedPlatformError(NO_WINDOWS);
    };

    return {
      display,
      screen,
      signal: failSafe.signal,
      abortHotkey: null,
      captureFrame: capture,
      createFrameRing: (ringOptions) => new FrameRing(capture, ringOptions),
      pointerPosition: () => input.pointerPosition(),
      activeWindow: async () => null,
      accessibility: accessibility.get,
      windowAt: noWindows,
      windows: noWindows,
      focusedWindow: noWindows,
      movePointer: (point, moveOptions) => input.movePointer(point, moveOptions),
      click: (point, clickOptions) => input.click(point, clickOptions),
      drag: (from, to, dragOptions) => input.drag(from, to, dragOptions),
      scroll: (direction, amount, scrollOptions) => input.scroll(direction, amount, scrollOptions),
      pressKey: (chord) => input.pressKey(chord),
      typeText: (text, typeOptions) => input.typeText(text, typeOptions),
      // The clipboard belongs to the focused window's client on GNOME Wayland: no data-control protocol.
      readClipboard: async () => null,
      startHooks: async () => {
        throw new UnsupportedPlatformError(
          'global input hooks do not exist on Wayland (GNOME): no program may watch all input. ' +
            'Record in an X11 session; replay here runs without hooks.',
        );
      },
      watchHotkey: async () => {
        throw new UnsupportedPlatformError(
          'GNOME (mutter) binds no hotkey for mime: stop a run with Ctrl+C in its terminal',
        );
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
