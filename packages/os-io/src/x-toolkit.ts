/**
 * Which toolkit draws the window that takes typed keys, told by the window's X properties: how fast
 * an app keeps up with typing depends on it (measured, see the README's typing table), so mime types
 * into Chromium and Qt without the pauses GTK apps need.
 *
 * - GTK 3 and 4 set `_GTK_THEME_VARIANT` on every top-level window, also on the GTK dialogs other
 *   toolkits open (Chromium's file chooser is GTK in Chromium's process), so it is checked first.
 * - Chromium (and Chrome, Brave, Vivaldi, Edge) names its windows' role `browser` or `pop-up`.
 * - Qt maps its GUI library into the process the window's `_NET_WM_PID` names (on this machine).
 * - Anything else is `unknown` and typed with the GTK pauses: slower, never faster than an app keeps up.
 */
import { readFile } from 'node:fs/promises';
import { hostname } from 'node:os';

export type Toolkit = 'gtk' | 'qt' | 'chromium' | 'unknown';

/** What a top-level window tells about itself. */
export interface WindowTraits {
  /** `_GTK_THEME_VARIANT` is set (even empty). */
  gtk: boolean;
  /** `WM_WINDOW_ROLE`, or null. */
  role: string | null;
  /** `_NET_WM_PID`, or null. */
  pid: number | null;
  /** `WM_CLIENT_MACHINE`, or null: a pid names a process on this machine only when it is ours. */
  machine: string | null;
}

const CHROMIUM_ROLES = new Set(['browser', 'pop-up']);
const QT_GUI_LIBRARY = /\/libQt[56]Gui\.so/;

/** The toolkit of a window with these traits; `readMaps` reads `/proc/<pid>/maps` (null when it cannot). */
export async function toolkitOf(
  traits: WindowTraits,
  readMaps: (pid: number) => Promise<string | null> = procMaps,
): Promise<Toolkit> {
  if (traits.gtk) return 'gtk';
  if (traits.role !== null && CHROMIUM_ROLES.has(traits.role)) return 'chromium';
  if (traits.pid !== null && (traits.machine === null || traits.machine === hostname())) {
    const maps = await readMaps(traits.pid);
    if (maps !== null && QT_GUI_LIBRARY.test(maps)) return 'qt';
  }
  return 'unknown';
}

function procMaps(pid: number): Promise<string | null> {
  return readFile(`/proc/${pid}/maps`, 'utf8').catch(() => null);
}
