/**
 * Where an app's window draws its content on an X11 screen, for toolkits that report their elements'
 * extents relative to their window only (GTK 4 answers "Screen coordinates not supported" and gives
 * window coordinates): the X window's place, past the client-side margin the toolkit draws around
 * its content (a CSD window's shadow, `_GTK_FRAME_EXTENTS`, or its resize border).
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { LogicalPoint } from './units.ts';
import { readWindowTree, type TreeLine } from './x-window-tree.ts';

const run = promisify(execFile);

/** A window as its app reports it: its title and its size. */
export interface ReportedWindow {
  pid: number;
  title: string;
  width: number;
  height: number;
}

/**
 * The margin left and above a window's content inside its X window: `_GTK_FRAME_EXTENTS` (left,
 * right, top, bottom) where the toolkit set it, else half of what the X window is larger than the
 * content (a border as wide on every side, as GTK 4 draws without a compositor); null when the X
 * window is smaller than the content (not this window).
 */
export function contentOffset(
  xWindow: { width: number; height: number },
  content: { width: number; height: number },
  frameExtents: readonly number[] | null,
): LogicalPoint | null {
  if (frameExtents && frameExtents.length === 4) {
    const [left = 0, , top = 0] = frameExtents;
    return { x: left, y: top };
  }
  const dx = xWindow.width - content.width;
  const dy = xWindow.height - content.height;
  if (dx < 0 || dy < 0) return null;
  return { x: Math.floor(dx / 2), y: Math.floor(dy / 2) };
}

/** The numbers of a CARDINAL property as `xprop` prints it (`NAME(CARDINAL) = 1, 2`); null when unset. */
export function parseCardinals(xpropLine: string): number[] | null {
  const match = /\(CARDINAL\) = ([\d, ]+)$/m.exec(xpropLine);
  return match?.[1] ? match[1].split(',').map((v) => Number(v.trim())) : null;
}

async function cardinals(env: NodeJS.ProcessEnv, id: string, property: string): Promise<number[] | null> {
  const { stdout } = await run('xprop', ['-id', id, property], { env, timeout: 3000 });
  return parseCardinals(stdout);
}

/**
 * The screen point where the content of `window` starts: the X window with its title whose
 * `_NET_WM_PID` is its app's (the largest, when a toolkit keeps another of that title), moved past
 * its margin (see {@link contentOffset}); null when no X window is that window.
 */
export async function xContentOrigin(
  env: NodeJS.ProcessEnv,
  window: ReportedWindow,
): Promise<LogicalPoint | null> {
  const candidates = (await readWindowTree(env)).filter(
    (w) => w.title === window.title && w.box.width >= window.width && w.box.height >= window.height,
  );
  const owned: TreeLine[] = [];
  for (const line of candidates) {
    const pid = await cardinals(env, line.id, '_NET_WM_PID').catch(() => null);
    if (pid?.[0] === window.pid) owned.push(line);
  }
  const [best] = owned.sort((a, b) => b.box.width * b.box.height - a.box.width * a.box.height);
  if (!best) return null;
  const frame = await cardinals(env, best.id, '_GTK_FRAME_EXTENTS').catch(() => null);
  const offset = contentOffset(best.box, window, frame);
  return offset && { x: best.box.x + offset.x, y: best.box.y + offset.y };
}
