/**
 * The line of a text element at a point, from the characters' boxes where the app answers no offset
 * at a point (Qt's plain text editor): boxes as a true layout gives them, and as Qt gives them
 * (counted from each line's own top).
 */
import { describe, expect, it } from 'vitest';
import { lineByBoxes, lineHolding } from '../src/atspi-text-lines.ts';

const TEXT = 'Alpha\nSecond line from replay\nThird';
const HEIGHT = 17;

/** Boxes of a monospaced layout from (294, 251), 8 px a character; `rowOf` says each character's row. */
function boxes(rowOf: (line: number, column: number) => number) {
  return async (offset: number) => {
    const before = TEXT.slice(0, offset).split('\n');
    const line = before.length - 1;
    const column = (before.at(-1) ?? '').length;
    return { x: 294 + column * 8, y: 251 + rowOf(line, column) * HEIGHT, width: 8, height: HEIGHT };
  };
}

describe('the line at a point, from the characters’ boxes', () => {
  it('is the line whose row holds the point, in a true layout and in Qt’s', async () => {
    const laidOut = boxes((line) => line);
    const qt = boxes(() => 0);
    expect(await lineByBoxes(TEXT, 257, laidOut)).toBe('Alpha');
    expect(await lineByBoxes(TEXT, 277, laidOut)).toBe('Second line from replay');
    expect(await lineByBoxes(TEXT, 277, qt)).toBe('Second line from replay');
    expect(await lineByBoxes(TEXT, 295, qt)).toBe('Third');
  });

  it('tells nothing above the text, below its last line, or where a line before wraps', async () => {
    const laidOut = boxes((line) => line);
    expect(await lineByBoxes(TEXT, 240, laidOut)).toBeNull();
    expect(await lineByBoxes(TEXT, 320, laidOut)).toBeNull();
    // The second line wraps after 10 characters: the third is a row lower than counted.
    const wrapped = boxes((line, column) => (line === 0 ? 0 : line === 1 ? 1 + Math.floor(column / 10) : 4));
    expect(await lineByBoxes(TEXT, 295, wrapped)).toBeNull();
    expect(await lineByBoxes(TEXT, 257, async () => null)).toBeNull();
  });

  it('takes the line holding an offset the app names', () => {
    expect(lineHolding(TEXT, 0)).toBe('Alpha');
    expect(lineHolding(TEXT, 5)).toBe('Alpha');
    expect(lineHolding(TEXT, 6)).toBe('Second line from replay');
    expect(lineHolding(TEXT, TEXT.length)).toBe('Third');
  });
});
