/**
 * Text from a shared workflow as an agent's client shows it: printable and bounded. Control characters
 * (ESC, BEL, NUL...) and bidirectional overrides are written as `\x1b`, `\u202e`, never passed on, and
 * a description longer than the bound is cut, saying so.
 */

/** Characters a terminal or a renderer acts on: C0 and C1 controls, DEL, bidirectional overrides. */
const ACTIVE = /[\p{Cc}\u202a-\u202e\u2066-\u2069]/gu;

/** `text` with its active characters shown as escapes (line breaks kept), at most `max` characters. */
export function printable(text: string, max: number): string {
  const shown = text.replace(ACTIVE, (c) => {
    if (c === '\n') return c;
    const code = c.codePointAt(0) ?? 0;
    return code <= 0xff
      ? `\\x${code.toString(16).padStart(2, '0')}`
      : `\\u${code.toString(16).padStart(4, '0')}`;
  });
  return shown.length <= max ? shown : `${shown.slice(0, max - 1)}…`;
}
