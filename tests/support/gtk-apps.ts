/**
 * Real GTK desktop apps from Debian for tests (Mousepad, Xfce's text editor; galculator): started
 * on a harness display with their own config folders (no restored session, no state between runs),
 * their windows and dialogs found with xdotool.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import type { DesktopHarness } from './desktop-harness.ts';
import { sleep } from './wait.ts';

/** The class replay and record wait for. */
export const MOUSEPAD_CLASS = '^Mousepad$';

/** Environment for an app of its own: fresh config and data folders on the harness display. */
export async function gtkAppEnv(desktop: DesktopHarness): Promise<NodeJS.ProcessEnv> {
  const home = await mkdtemp(join(tmpdir(), 'mime-mousepad-home-'));
  return {
    ...desktop.env,
    HOME: home,
    XDG_CONFIG_HOME: join(home, 'config'),
    XDG_DATA_HOME: join(home, 'data'),
    XDG_CACHE_HOME: join(home, 'cache'),
    NO_AT_BRIDGE: '1',
    GTK_A11Y: 'none',
  };
}

/**
 * Polls until a visible window whose title matches `pattern` exists; resolves its id. The default
 * bound is for a machine with more work than cores, not a wait: beside a full CI run and a busy core
 * a Tk form's window took over 15 s (CI 10b), Mousepad's too (CI 9b).
 */
export async function waitForWindowTitle(
  desktop: DesktopHarness,
  pattern: string,
  timeoutMs = 45_000,
): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  let failure = '';
  for (;;) {
    const found = await desktop
      .xdotool('search', '--onlyvisible', '--name', pattern)
      .catch((error: { stderr?: string; timedOut?: boolean }) => {
        // No match exits 1 and says nothing; what a failing search says is kept for the error.
        const said = error.timedOut ? 'timed out' : error.stderr;
        if (said) failure = said;
        return '';
      });
    const id = found.split('\n').find(Boolean);
    if (id) return id;
    if (Date.now() > deadline) {
      // What the X server holds under that name, shown or not, for the error.
      const hidden = await desktop.xdotool('search', '--name', pattern).catch(() => '');
      throw new Error(
        `no window titled /${pattern}/ shown within ${timeoutMs} ms (unshown windows of that title: ${hidden.split('\n').filter(Boolean).length}; last search error: ${failure || 'none'})`,
      );
    }
    await sleep(150);
  }
}

/** The geometry of a window: its position and size on the screen. */
export async function windowGeometry(
  desktop: DesktopHarness,
  id: string,
): Promise<{ x: number; y: number; width: number; height: number }> {
  const text = await desktop.xdotool('getwindowgeometry', '--shell', id);
  const value = (key: string) => Number(new RegExp(`^${key}=(\\d+)`, 'm').exec(text)?.[1] ?? Number.NaN);
  return { x: value('X'), y: value('Y'), width: value('WIDTH'), height: value('HEIGHT') };
}

/**
 * Where a window's client area is on the screen, by `xwininfo` (its absolute corner): under a
 * reparenting window manager `xdotool getwindowgeometry` can count the frame's offset twice.
 */
export async function clientArea(
  desktop: DesktopHarness,
  id: string,
): Promise<{ x: number; y: number; width: number; height: number }> {
  const { stdout } = await execa('xwininfo', ['-id', id], { env: desktop.env });
  const value = (label: string) =>
    Number(new RegExp(`${label}:\\s+(-?\\d+)`).exec(stdout)?.[1] ?? Number.NaN);
  return {
    x: value('Absolute upper-left X'),
    y: value('Absolute upper-left Y'),
    width: value('Width'),
    height: value('Height'),
  };
}
