/**
 * The desktop checks of `mime doctor` in a GNOME Wayland session: each capability of the gnome
 * adapter (capture through ScreenCast and PipeWire, pointer and keyboard through RemoteDesktop) and
 * what mutter or Wayland does not give (windows, hotkeys, hooks).
 */
import { type DoctorCheck, failedCheck } from '@mime-desktop/schema';
import { createGnomeDesktop } from './gnome-desktop.ts';

const CAPABILITIES = ['capture', 'pointer', 'keyboard', 'windows', 'hotkeys', 'input hooks'];

const FIX =
  'mime drives GNOME through org.gnome.Mutter.RemoteDesktop and ScreenCast: run it inside the GNOME session (its DBUS_SESSION_BUS_ADDRESS), ' +
  'with pipewire and wireplumber running and gst-launch-1.0 with the PipeWire plugin installed (./setup.sh installs pipewire, wireplumber, gstreamer1.0-tools, gstreamer1.0-pipewire)';

/** Capture, pointer, keyboard, windows, hotkeys and hooks of the GNOME session in `env`; never throws. */
export async function checkGnomeDesktop(env: NodeJS.ProcessEnv): Promise<DoctorCheck[]> {
  const started = performance.now();
  let desktop: Awaited<ReturnType<typeof createGnomeDesktop>>;
  try {
    desktop = await createGnomeDesktop({ failSafe: false }, env);
  } catch (error) {
    return [
      { ...failedCheck('desktop', error), fix: FIX },
      ...CAPABILITIES.map(
        (name): DoctorCheck => ({ name, status: 'skip', detail: 'not checked: the desktop did not open' }),
      ),
    ];
  }
  const opened = performance.now() - started;
  const checks: DoctorCheck[] = [];
  try {
    const before = performance.now();
    const frame = await desktop.captureFrame();
    const ms = performance.now() - before;
    checks.push({
      name: 'capture',
      status: 'ok',
      detail: `mutter ScreenCast -> PipeWire (one gst-launch-1.0 reader): ${frame.logical.width}x${frame.logical.height} logical px, scale ${frame.scale}, ${ms.toFixed(1)} ms to take the last frame mutter sent (it sends one when the screen changes); session ready in ${opened.toFixed(0)} ms`,
    });
  } catch (error) {
    checks.push({ ...failedCheck('capture', error), fix: FIX });
  }
  checks.push(
    {
      name: 'pointer',
      status: 'ok',
      detail:
        'mutter RemoteDesktop: moves (absolute, on the screen cast stream), clicks, drags and scrolls; Wayland does not tell where the pointer is, so mime knows only where it moved it',
    },
    {
      name: 'keyboard',
      status: 'ok',
      detail:
        "mutter RemoteDesktop keysyms: keys and text; characters with no key on the session's keyboard layout are not typed",
    },
    {
      name: 'windows',
      status: 'warn',
      detail:
        "none: mutter tells no program its windows (titles, places); toolkits give accessibility extents relative to their window, so replay measures a window's place from its recorded elements (a distinctive one found on the screen, confirmed by a second)",
      fix: 'where that cannot be measured, replay works by pixels; setup windows and the agent scope need an X11 or sway session',
    },
    {
      name: 'hotkeys',
      status: 'warn',
      detail: 'no fail-safe or pause hotkey: GNOME binds none for mime',
      fix: 'stop a run with Ctrl+C',
    },
    {
      name: 'input hooks',
      status: 'warn',
      detail:
        'none on Wayland: no program may watch global input, so `mime record` is refused here (replay works)',
      fix: 'record in an X11 session, or on a virtual X server: xvfb-run -a mime record --launch "<app command>" (with -s "-screen 0 1280x800x24 -dpi 96" after -a, Qt and Tk apps draw as on Wayland)',
    },
  );
  await desktop.close();
  return checks;
}
