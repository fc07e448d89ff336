/** How numbers, durations and times read in the report. */

const COUNT = new Intl.NumberFormat('en-US');

/** `23,416`. */
export function formatCount(value: number): string {
  return COUNT.format(Math.round(value));
}

/** `76 ms`, `3.4 s`, `2 min 05 s`. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const seconds = Math.round(ms / 1000);
  return `${Math.floor(seconds / 60)} min ${String(seconds % 60).padStart(2, '0')} s`;
}

/** Time since the run started: `+3.35 s`. */
export function formatOffset(ms: number): string {
  return `+${(Math.max(0, ms) / 1000).toFixed(2)} s`;
}

/** `2026-11-22 15:33:54 UTC`. */
export function formatClock(iso: string): string {
  const time = new Date(iso);
  if (Number.isNaN(time.getTime())) return iso;
  return `${time.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

/** `1 iteration`, `5 iterations`. */
export function plural(count: number, noun: string): string {
  return `${formatCount(count)} ${noun}${count === 1 ? '' : 's'}`;
}
