import pc from 'picocolors';

/**
 * Output conventions: human lines go to stderr, data (tables, JSON) to stdout, so `mime list --json |
 * jq` and `mime list > file` stay clean. Colours follow picocolors (NO_COLOR, FORCE_COLOR, --no-color,
 * TTY detection).
 */
export const style = pc;

/** Characters a terminal acts on: C0 and C1 controls (ESC starts sequences), DEL, bidirectional overrides. */
const ACTIVE = /[\p{Cc}\u202a-\u202e\u2066-\u2069]/gu;

/**
 * Text from a file (a shared workflow's task name, a subtask, a model's reply) made inert for the
 * terminal: every control character shown as `\x1b`, `\u202e`... so no escape sequence sets the
 * window title, clears the screen or reorders the line. A newline stays only in multi-line text.
 */
export function inert(text: string, options: { multiline?: boolean } = {}): string {
  const shown = text.replace(ACTIVE, (c) => {
    if (c === '\n' || c === '\t') return c;
    const code = c.codePointAt(0) ?? 0;
    return code <= 0xff
      ? `\\x${code.toString(16).padStart(2, '0')}`
      : `\\u${code.toString(16).padStart(4, '0')}`;
  });
  return options.multiline ? shown : shown.replace(/\n/g, '\\n');
}

export function say(line = ''): void {
  process.stderr.write(`${line}\n`);
}

export function printData(text: string): void {
  process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
}

export function printJson(value: unknown): void {
  printData(JSON.stringify(value, null, 2));
}

export const mark = {
  ok: () => pc.green('✓'),
  fail: () => pc.red('✗'),
  warn: () => pc.yellow('!'),
};

/** Left-aligned columns, the header row dimmed. */
export function formatTable(header: string[], rows: string[][]): string {
  const widths = header.map((h, c) => Math.max(h.length, ...rows.map((r) => (r[c] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, c) => (c === cells.length - 1 ? cell : cell.padEnd(widths[c] ?? 0)))
      .join('  ')
      .trimEnd();
  return [pc.dim(line(header)), ...rows.map(line)].join('\n');
}
