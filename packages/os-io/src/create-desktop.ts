/**
 * The desktop of this session, by the adapter the session calls for (desktop-session.ts): wlroots for
 * a sway (or other wlroots) Wayland session, gnome for a GNOME (mutter) Wayland session, nut-js on
 * X11 and everywhere else. Each adapter is loaded only when chosen.
 */
import type { Desktop } from './desktop.ts';
import { chooseAdapter } from './desktop-session.ts';
import type { DesktopOptions } from './nut-desktop.ts';

/** Opens the desktop of the session in `process.env` (see {@link DesktopOptions}). */
export async function createDesktop(options: DesktopOptions = {}): Promise<Desktop> {
  const adapter = chooseAdapter(process.env);
  if (adapter === 'wlroots') {
    const { createWlrootsDesktop } = await import('./wlroots-desktop.ts');
    return createWlrootsDesktop(options);
  }
  if (adapter === 'gnome') {
    const { createGnomeDesktop } = await import('./gnome-desktop.ts');
    return createGnomeDesktop(options);
  }
  const { createNutDesktop } = await import('./nut-desktop.ts');
  return createNutDesktop(options);
}
