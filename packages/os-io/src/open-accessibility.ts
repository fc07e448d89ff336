/**
 * Which accessibility adapter this platform has, loaded only when asked: AT-SPI over D-Bus on Linux
 * (atspi.ts); none yet elsewhere (targets are then found by pixels).
 */
import type { OpenedAccessibility, WindowOrigin } from './accessibility.ts';

/**
 * Opens the desktop's accessibility trees (AT-SPI on Linux; loaded only when asked) and turns
 * accessibility on for apps that start later. Not an error when there are none: the reason says
 * why, for `doctor` and logs.
 */
export async function openAccessibility(
  env: NodeJS.ProcessEnv = process.env,
  /** Where a process's window is, where toolkits report extents relative to it (Wayland). Default: none (X11). */
  windowOrigin: WindowOrigin | null = null,
): Promise<OpenedAccessibility> {
  if (process.platform !== 'linux') {
    return {
      ok: false,
      reason: `no accessibility adapter for ${process.platform} yet: targets are found by pixels`,
    };
  }
  if (!env.DBUS_SESSION_BUS_ADDRESS) {
    return {
      ok: false,
      reason:
        'no D-Bus session bus (DBUS_SESSION_BUS_ADDRESS is not set): run mime inside the desktop session, or under dbus-run-session',
    };
  }
  const { openAtspi } = await import('./atspi.ts');
  return openAtspi(env, windowOrigin);
}

/**
 * Makes apps started next export their tree: accessibility switched on and the registry running
 * (Linux with a session bus; a no-op elsewhere). Never throws.
 */
export async function wakeAccessibility(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const address = env.DBUS_SESSION_BUS_ADDRESS;
  if (process.platform !== 'linux' || !address) return;
  const { wakeAtspi } = await import('./atspi-connect.ts');
  await wakeAtspi(address, env);
}
