/** `Search for X. Expected outcome: Y.` -> instruction and expected outcome. */
export function splitExpected(text: string): { instruction: string; expected: string | null } {
  const match = /^(.*?)\s*Expected outcome:\s*(.*)$/is.exec(text);
  return match
    ? { instruction: match[1] ?? '', expected: match[2] ?? '' }
    : { instruction: text, expected: null };
}
