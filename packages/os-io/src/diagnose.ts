/** The desktop checks of `mime doctor`: a display to reach, frames to capture, hooks to start. */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { type DoctorCheck, failedCheck } from '@mime-desktop/schema';
import { createDesktop } from './create-desktop.ts';
import { chooseAdapter } from './desktop-session.ts';
import { probeDisplay } from './display-probe.ts';
import { checkNativeModules } from './native-modules.ts';
import { openAccessibility } from './open-accessibility.ts';

async function checkDisplay(env: NodeJS.ProcessEnv): Promise<DoctorCheck> {
  const facts = await probeDisplay({ env });
  if (!facts.reachable) {
    const [detail = 'no display', ...fix] = (facts.problem ?? 'no display').split(/(?<=\.) /);
    return { name: 'display', status: 'fail', detail, fix: fix.join(' ') || undefined };
  }
  const where =
    facts.adapter === 'wlroots' || facts.adapter === 'gnome'
      ? `wayland session of ${facts.compositor ?? `a ${facts.adapter} compositor`} at ${facts.endpoint}, adapter ${facts.adapter}`
      : `${facts.sessionType}${facts.compositor ? ` session of ${facts.compositor}` : ''} display ${facts.display}, adapter x11${facts.sessionType === 'wayland' ? ' (XWayland)' : ''}`;
  const limits = facts.limitations.length > 0 ? ` (${facts.limitations.join(' ')})` : '';
  return { name: 'display', status: 'ok', detail: `${where}${limits}` };
}

/** Capture and hooks on a reachable display: what record and replay use. */
async function checkDesktop(): Promise<DoctorCheck[]> {
  let desktop: Awaited<ReturnType<typeof createDesktop>>;
  try {
    desktop = await createDesktop({ failSafe: false });
  } catch (error) {
    return [
      failedCheck('capture', error),
      { name: 'input hooks', status: 'skip', detail: 'not checked: no desktop' },
    ];
  }
  const checks: DoctorCheck[] = [];
  try {
    const started = performance.now();
    const frame = await desktop.captureFrame();
    const ms = performance.now() - started;
    const { width, height } = frame.logical;
    checks.push({
      name: 'capture',
      status: 'ok',
      detail: `${width}x${height} logical px, scale ${frame.scale}, ${ms.toFixed(1)} ms a frame`,
    });
  } catch (error) {
    checks.push(failedCheck('capture', error));
  }
  try {
    const hooks = await desktop.startHooks(() => undefined);
    await hooks.stop();
    checks.push({
      name: 'input hooks',
      status: 'ok',
      detail: 'global mouse and keyboard hooks start (recording, fail-safe hotkey)',
    });
  } catch (error) {
    checks.push(failedCheck('input hooks', error));
  } finally {
    await desktop.close();
  }
  return checks;
}

/**
 * xwininfo (x11-utils) lists the window tree on X11: the window under a point (recording), the
 * windows' places (replay); app windows themselves are found through mime's own X connection.
 */
export async function checkXwininfo(env: NodeJS.ProcessEnv): Promise<DoctorCheck> {
  try {
    const { stdout } = await promisify(execFile)('xwininfo', ['-version'], { env, timeout: 5000 });
    return { name: 'xwininfo', status: 'ok', detail: stdout.trim() };
  } catch (error) {
    const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
    return {
      name: 'xwininfo',
      status: 'fail',
      detail: missing ? 'xwininfo is not installed' : `xwininfo does not run: ${(error as Error).message}`,
      fix: 'install x11-utils (./setup.sh does; apt install x11-utils): mime lists the window tree with xwininfo',
    };
  }
}

const PIXELS_ONLY =
  'without it, replay finds targets by their pixels only (moved, themed or zoomed apps need the model)';

/** The accessibility bus, and which running apps expose their tree on it. */
export async function checkAccessibility(env: NodeJS.ProcessEnv): Promise<DoctorCheck> {
  const opened = await openAccessibility(env);
  if (!opened.ok) {
    return {
      name: 'accessibility',
      status: 'warn',
      detail: opened.reason,
      fix: `run mime in your desktop session (or under dbus-run-session) with at-spi2-core installed; ${PIXELS_ONLY}`,
    };
  }
  try {
    const apps = await opened.accessibility.apps();
    if (apps.length > 0) {
      return {
        name: 'accessibility',
        status: 'ok',
        detail: `bus reachable; apps exposing a tree: ${apps.join(', ')}`,
      };
    }
    return {
      name: 'accessibility',
      status: 'warn',
      detail: 'bus reachable, but no running app exposes a tree',
      fix: 'apps mime starts (setup, record --launch) get it turned on; for your own, start GTK apps with GTK_MODULES=atk-bridge, Qt apps with QT_LINUX_ACCESSIBILITY_ALWAYS_ON=1, Chromium and Electron with --force-renderer-accessibility (accessibility is now switched on for apps started from here on)',
    };
  } finally {
    await opened.accessibility.close();
  }
}

/**
 * Checks the display, then (when it is reachable) screen capture and the global input hooks; never
 * throws for a failed check. Without a display the later checks are skipped, not failed. A wlroots
 * or GNOME Wayland session gets its adapter's checks (diagnose-wlroots.ts, diagnose-gnome.ts): no
 * native module is loaded there.
 */
export async function diagnoseDesktop(env: NodeJS.ProcessEnv = process.env): Promise<DoctorCheck[]> {
  const adapter = chooseAdapter(env);
  const wayland = adapter !== 'x11';
  const native = wayland ? null : await checkNativeModules();
  // Binaries built for another machine cannot load: capture, input and hooks are not tried.
  if (native?.status === 'fail') return [native];
  const display = await checkDisplay(env);
  const first = native ? [native, display] : [display];
  if (display.status !== 'ok') {
    const later = wayland
      ? ['capture', 'pointer', 'keyboard', 'windows', 'hotkeys', 'input hooks', 'accessibility']
      : ['capture', 'input hooks', 'xwininfo', 'accessibility'];
    return [
      ...first,
      ...later.map((name): DoctorCheck => ({ name, status: 'skip', detail: 'not checked: no display' })),
    ];
  }
  if (adapter === 'wlroots') {
    const { checkWlrootsDesktop } = await import('./diagnose-wlroots.ts');
    return [...first, ...(await checkWlrootsDesktop(env)), await checkAccessibility(env)];
  }
  if (adapter === 'gnome') {
    const { checkGnomeDesktop } = await import('./diagnose-gnome.ts');
    return [...first, ...(await checkGnomeDesktop(env)), await checkAccessibility(env)];
  }
  return [...first, ...(await checkDesktop()), await checkXwininfo(env), await checkAccessibility(env)];
}
