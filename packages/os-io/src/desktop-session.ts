/**
 * Which desktop adapter a session gets, from its environment alone: a Wayland session of a wlroots
 * compositor (sway and its kin) gets the wlroots adapter, a GNOME Wayland session (mutter) the gnome
 * one; everything else the X11 one (nut-js), which in another Wayland session (KDE) reaches only
 * XWayland's windows. `MIME_DESKTOP=x11`, `=wlroots` or `=gnome` overrides the choice.
 */

/**
 * The adapters mime has: X11 (nut-js, uiohook, an X connection of its own), wlroots (virtual pointer, wtype, grim, sway
 * IPC) and gnome (mutter's RemoteDesktop and ScreenCast over D-Bus, frames through PipeWire).
 */
export type DesktopAdapter = 'x11' | 'wlroots' | 'gnome';

const ADAPTERS: readonly string[] = ['x11', 'wlroots', 'gnome'] satisfies DesktopAdapter[];
const isAdapter = (name: string): name is DesktopAdapter => ADAPTERS.includes(name);

/** `XDG_CURRENT_DESKTOP` names of compositors built on wlroots. */
const WLROOTS_DESKTOPS = /^(sway|wlroots|river|hyprland|wayfire|labwc|dwl|cage|niri)$/i;

/**
 * The Wayland compositor the session names (`sway` when `SWAYSOCK` is set, else the first name of
 * `XDG_CURRENT_DESKTOP`), or null outside Wayland or when nothing tells.
 */
export function compositorOf(env: NodeJS.ProcessEnv): string | null {
  if (!env.WAYLAND_DISPLAY?.trim() && env.XDG_SESSION_TYPE !== 'wayland') return null;
  if (env.SWAYSOCK?.trim()) return 'sway';
  const [first] = (env.XDG_CURRENT_DESKTOP ?? '').split(':').filter(Boolean);
  return first ?? null;
}

/** Whether `XDG_CURRENT_DESKTOP` names GNOME among its names (`GNOME`, `ubuntu:GNOME`, `GNOME-Classic:GNOME`). */
function namesGnome(env: NodeJS.ProcessEnv): boolean {
  return (env.XDG_CURRENT_DESKTOP ?? '').split(':').some((name) => /^gnome$/i.test(name));
}

/** The adapter for the session in `env` (see the module comment). */
export function chooseAdapter(env: NodeJS.ProcessEnv): DesktopAdapter {
  const forced = env.MIME_DESKTOP?.trim() ?? '';
  if (isAdapter(forced)) return forced;
  if (!env.WAYLAND_DISPLAY?.trim()) return 'x11';
  const compositor = compositorOf(env);
  if (compositor !== null && WLROOTS_DESKTOPS.test(compositor)) return 'wlroots';
  return namesGnome(env) ? 'gnome' : 'x11';
}
