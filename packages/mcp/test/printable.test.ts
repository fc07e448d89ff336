import { describe, expect, it } from 'vitest';
import { printable } from '../src/printable.ts';

describe('printable', () => {
  it('shows ESC, BEL, NUL and a bidirectional override as escapes, keeping line breaks', () => {
    expect(printable('a\u001b[2Jb\u0007c\u0000d\u202ee\nf', 100)).toBe('a\\x1b[2Jb\\x07c\\x00d\\u202ee\nf');
  });

  it('bounds the text, saying it was cut', () => {
    const shown = printable('x'.repeat(200_000), 2000);
    expect(shown).toHaveLength(2000);
    expect(shown.endsWith('…')).toBe(true);
  });
});
