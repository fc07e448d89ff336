/** Numeric flags, checked as the user typed them: digits only, and within a range that makes sense. */
import { UsageError } from './exit-codes.ts';

/** The largest count a flag takes: more is a typo (`1e23`), not a budget. */
const MAX_COUNT = 1_000_000;

/** A whole number from `floor` to a million, or undefined when the flag is absent. */
export function wholeNumber(value: string | undefined, flag: string, floor = 1): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || n < floor || n > MAX_COUNT) {
    throw new UsageError(`${flag} must be a whole number from ${floor} to ${MAX_COUNT}, got "${value}"`);
  }
  return n;
}

/** A positive decimal number up to `ceiling` (e.g. seconds, frames a second), or undefined when absent. */
export function positiveNumber(
  value: string | undefined,
  flag: string,
  ceiling: number,
  example = '5',
): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!/^\d+(\.\d+)?$/.test(value.trim()) || n <= 0 || n > ceiling) {
    throw new UsageError(
      `${flag} takes a number above 0 and at most ${ceiling}, e.g. ${flag} ${example}, got "${value}"`,
    );
  }
  return n;
}
