/**
 * The X display's window tree as `xwininfo -root -tree` prints it: every window with its depth, its
 * title and WM_CLASS where it has them, and its box in absolute screen pixels.
 *
 * One xwininfo process stays the cheaper way to read the whole tree, mapped windows or not: with
 * Chromium, Mousepad and openbox open (420 windows) it costs about 8 ms of CPU a read (3-4 ms in
 * Node, the rest in xwininfo), while the same five requests a window sent from node-x11 cost
 * 34 ms in Node (measured 2026-11-27). The viewable windows alone are fewer: those are read through
 * mime's own X connection (x-windows.ts).
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { DesktopFailureError } from './errors.ts';

const run = promisify(execFile);

export interface TreeLine {
  /** Window id, decimal (as xdotool prints it). */
  id: string;
  /** Indentation: children are deeper than their parent. */
  depth: number;
  title: string;
  /** WM_CLASS names; empty when the window has none. */
  classes: string[];
  /** Absolute position and size, screen pixels. */
  box: { x: number; y: number; width: number; height: number };
}

/** One line of `xwininfo -tree`: `0x40002c "title": ("instance" "Class")  400x300+100+100  +100+100`. */
const TREE_LINE =
  /^(\s*)(0x[0-9a-f]+) (?:"(.*)"|\(has no name\)): \((.*)\)\s+(\d+)x(\d+)[+-]-?\d+[+-]-?\d+\s+\+?(-?\d+)\+?(-?\d+)\s*$/;

/** Every window under the root, in the order xwininfo lists them (top of the stacking order first). */
export async function readWindowTree(env: NodeJS.ProcessEnv): Promise<TreeLine[]> {
  const { stdout } = await run('xwininfo', ['-root', '-tree'], { env, maxBuffer: 16 * 1024 * 1024 }).catch(
    (error: { message: string }) => {
      throw new DesktopFailureError(`xwininfo could not list the windows: ${error.message}`, {
        cause: error,
      });
    },
  );
  return stdout.split('\n').flatMap((line) => {
    const match = TREE_LINE.exec(line);
    if (!match) return [];
    const [, indent = '', hex = '0', title = '', klass = '', w, h, x, y] = match;
    return [
      {
        id: String(Number.parseInt(hex, 16)),
        depth: indent.length,
        title,
        classes: [...klass.matchAll(/"([^"]*)"/g)].map((m) => m[1] ?? ''),
        box: { x: Number(x), y: Number(y), width: Number(w), height: Number(h) },
      },
    ];
  });
}
