/** What `mime doctor` and the libraries' diagnose functions report: one check each. */
import { isMimeError } from './errors.ts';

export interface DoctorCheck {
  /** Short name, e.g. `node`, `display`, `model endpoint`. */
  name: string;
  /**
   * `ok`, `fail` (record/reflect/replay cannot work), `warn` (they work, with less: see detail), or
   * `skip` (not checked, see detail).
   */
  status: 'ok' | 'warn' | 'fail' | 'skip';
  /** What was found. */
  detail: string;
  /** How to fix it, when it failed. */
  fix?: string;
}

/** Turns an error from a probe into a failed check; mime's messages already say how to fix them. */
export function failedCheck(name: string, error: unknown): DoctorCheck {
  const message = error instanceof Error ? error.message : String(error);
  const code = isMimeError(error) ? ` [${error.code}]` : '';
  return { name, status: 'fail', detail: `${message}${code}` };
}
