/**
 * The desktop checks of `mime doctor` in a wlroots Wayland session: each capability of the wlroots
 * adapter (capture, pointer, keyboard, windows, hotkeys) and what Wayland does not allow (hooks).
 */
import { execFile } from 'node:child_process';
import { type DoctorCheck, failedCheck } from '@mime-desktop/schema';
import type { Desktop } from './desktop.ts';
import { createWlrootsDesktop } from './wlroots-desktop.ts';

/** Whether wtype runs: with no argument it prints its usage on stderr (and exits 1). */
function checkWtype(env: NodeJS.ProcessEnv): Promise<DoctorCheck> {
  return new Promise((resolve) => {
    execFile('wtype', [], { env, timeout: 5000 }, (error, _stdout, stderr) => {
      if (String(stderr).includes('Usage: wtype')) {
        resolve({
          name: 'keyboard',
          status: 'ok',
          detail: 'wtype (virtual keyboard): keys and any text, no clipboard',
        });
        return;
      }
      const missing = (error as NodeJS.ErrnoException | null)?.code === 'ENOENT';
      resolve({
        name: 'keyboard',
        status: 'fail',
        detail: missing
          ? 'wtype is not installed'
          : `wtype does not run: ${String(stderr).trim() || error?.message}`,
        fix: 'install wtype (./setup.sh does; apt install wtype): mime types through it on wlroots',
      });
    });
  });
}

async function checkWindows(desktop: Desktop): Promise<DoctorCheck> {
  try {
    const focused = await desktop.focusedWindow();
    return {
      name: 'windows',
      status: 'ok',
      detail: `sway IPC: titles, app ids, pids and places of windows (focused: ${focused ? JSON.stringify(focused.title.slice(0, 60)) : 'none'}); accessibility extents are offset by their window's place`,
    };
  } catch (error) {
    return {
      name: 'windows',
      status: 'warn',
      detail: error instanceof Error ? error.message : String(error),
      fix: 'replay still works by pixels; the agent scope, setup windows and accessibility extents (window-relative on Wayland) need the windows',
    };
  }
}

/** Capture, pointer, keyboard, windows and hooks of the wlroots session in `env`; never throws. */
export async function checkWlrootsDesktop(env: NodeJS.ProcessEnv): Promise<DoctorCheck[]> {
  let desktop: Desktop;
  try {
    desktop = await createWlrootsDesktop({ failSafe: false }, env);
  } catch (error) {
    return [
      failedCheck('desktop', error),
      ...['capture', 'pointer', 'keyboard', 'windows', 'hotkeys', 'input hooks'].map(
        (name): DoctorCheck => ({ name, status: 'skip', detail: 'not checked: the desktop did not open' }),
      ),
    ];
  }
  const checks: DoctorCheck[] = [];
  try {
    const started = performance.now();
    const frame = await desktop.captureFrame();
    const ms = performance.now() - started;
    checks.push({
      name: 'capture',
      status: 'ok',
      detail: `grim (wlr-screencopy): ${frame.logical.width}x${frame.logical.height} logical px, scale ${frame.scale}, ${ms.toFixed(1)} ms a frame`,
    });
  } catch (error) {
    checks.push({
      ...failedCheck('capture', error),
      fix: 'install grim (./setup.sh does; apt install grim)',
    });
  }
  checks.push({
    name: 'pointer',
    status: 'ok',
    detail:
      'zwlr_virtual_pointer_v1: moves, clicks, drags and scrolls; Wayland does not tell where the pointer is, so mime knows only where it moved it',
  });
  checks.push(await checkWtype(env));
  const windows = await checkWindows(desktop);
  checks.push(windows);
  checks.push(
    windows.status === 'ok'
      ? {
          name: 'hotkeys',
          status: 'ok',
          detail:
            'the fail-safe and pause hotkeys are bound in sway while mime drives it (a binding of yours on the same chord is replaced meanwhile)',
        }
      : {
          name: 'hotkeys',
          status: 'warn',
          detail: 'no fail-safe or pause hotkey: the compositor binds none for mime',
          fix: 'stop a run with Ctrl+C',
        },
  );
  checks.push({
    name: 'input hooks',
    status: 'warn',
    detail:
      'none on Wayland: no program may watch global input, so `mime record` is refused here (replay works)',
    fix: 'record in an X11 session, or on a virtual X server: xvfb-run -a mime record --launch "<app command>" (with -s "-screen 0 1280x800x24 -dpi 96" after -a, Qt and Tk apps draw as on Wayland)',
  });
  await desktop.close();
  return checks;
}
