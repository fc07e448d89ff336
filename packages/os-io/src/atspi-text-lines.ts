/**
 * The line of an element's text at a point, as the app places its characters: by the offset it says
 * is at the point, else (Qt's plain text editor answers -1 to every point) by its characters' boxes.
 */
import type { ElementBox } from '@mime-desktop/schema';
import { type AtspiCalls, type Ref, TEXT } from './atspi-calls.ts';

/** Most lines whose boxes are read to tell which one is at a point. */
const MAX_LINES = 60;
/** How far apart, px, two boxes on one row may start. */
const SAME_ROW = 2;

/** The line (between line ends) of `text` that holds the character at `offset`. */
export function lineHolding(text: string, offset: number): string {
  const start = offset === 0 ? 0 : text.lastIndexOf('\n', offset - 1) + 1;
  const end = text.indexOf('\n', offset);
  return text.slice(start, end < 0 ? text.length : end);
}

/**
 * The line of the element's text at a point in the app's own pixels, counted from the screen or its
 * window (`coords`); null where it has no text, no character there, or its boxes do not tell.
 */
export async function lineAt(
  calls: AtspiCalls,
  ref: Ref,
  point: { x: number; y: number },
  coords: number,
): Promise<string | null> {
  const text = await calls.text(ref);
  if (text === null || text === '') return null;
  const [offset] = await calls
    .call(ref, TEXT, 'GetOffsetAtPoint', 'iiu', [point.x, point.y, coords])
    .catch(() => [null]);
  if (typeof offset === 'number' && offset >= 0 && offset <= text.length) return lineHolding(text, offset);
  const box = async (at: number): Promise<ElementBox | null> => {
    const [x, y, width, height] = await calls
      .call(ref, TEXT, 'GetCharacterExtents', 'iu', [at, coords])
      .catch(() => []);
    return typeof y === 'number' && typeof height === 'number' && height > 0
      ? { x: Number(x), y, width: Number(width), height }
      : null;
  };
  return lineByBoxes(text, point.y, box);
}

/**
 * The line at height `y` from the characters' boxes: the first character's gives the top and the
 * line height. Taken only where no line up to it wraps (each one's last character on its first's
 * row) and each starts where a line of that height would, or (Qt: boxes counted from each line's
 * own top) where the first does.
 */
export async function lineByBoxes(
  text: string,
  y: number,
  box: (offset: number) => Promise<ElementBox | null>,
): Promise<string | null> {
  const lines = text.split('\n');
  const first = await box(0);
  if (!first) return null;
  const k = Math.floor((y - first.y) / first.height);
  if (k < 0 || k >= Math.min(lines.length, MAX_LINES)) return null;
  const starts: number[] = [];
  let at = 0;
  for (const line of lines.slice(0, k + 1)) {
    starts.push(at);
    at += line.length + 1;
  }
  const rows = await Promise.all(
    starts.map(async (start, i) => {
      const [head, tail] = await Promise.all([
        box(start),
        box(start + Math.max(0, (lines[i] ?? '').length - 1)),
      ]);
      if (!head || !tail || Math.abs(head.y - tail.y) > SAME_ROW) return false;
      const placed = first.y + i * first.height;
      return Math.abs(head.y - placed) <= SAME_ROW || Math.abs(head.y - first.y) <= SAME_ROW;
    }),
  );
  return rows.every(Boolean) ? (lines[k] ?? null) : null;
}
