import pc from 'picocolors';

export { inert } from '@mime-desktop/schema';

/**
 * Output conventions: human lines go to stderr, data (tables, JSON) to stdout, so `mime list --json |
 * jq` and `mime list > file` stay clean. Colours follow picocolors (NO_COLOR, FORCE_COLOR, --no-color,
 * TTY detection).
 */
export const style = pc;

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
