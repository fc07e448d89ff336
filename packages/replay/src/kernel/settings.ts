/**
 * The settings every replay mode runs with, defaults filled in and checked once before the run:
 * dry run, the settle wait after an action, the step timeout and the typing pace. The agent's own
 * settings (model image, history, scope...) are the agent's (`agent/agent-runtime.ts`).
 */
import { ReplayOptionError } from '../errors.ts';

/** Waiting for the screen to settle after an action (see `waitForSettle`). */
export interface SettleOptions {
  /** Pause before the first capture after an action, ms. Default 0: the stable window does the waiting. */
  initialDelayMs?: number;
  /** Pause between captures, ms (a capture itself takes 6-11 ms). Default 16, about a frame at 60 Hz. */
  intervalMs?: number;
  /** The screen must stay the same this long to count as settled, ms. Default 50. */
  stableMs?: number;
  /** Longest wait; then the latest frame is used even if the screen still changes, ms. Default 2000. */
  timeoutMs?: number;
  /** Largest fraction of sampled pixels that may differ for two captures to count as the same screen (a blinking caret stays under it). Default 0.001. */
  threshold?: number;
}

export const DEFAULT_SETTLE: Readonly<Required<SettleOptions>> = {
  initialDelayMs: 0,
  intervalMs: 16,
  stableMs: 50,
  timeoutMs: 2000,
  threshold: 0.001,
};

/** Default of `ReplayOptions.stepTimeoutMs`. */
export const DEFAULT_STEP_TIMEOUT_MS = 5000;

/** Settings of every mode, defaults filled in. */
export interface RunSettings {
  /** Decide but execute nothing; actions are only logged. */
  dryRun: boolean;
  settle: Required<SettleOptions>;
  /** Longest wait for a step's recorded screen to appear (trace, auto), ms. */
  stepTimeoutMs: number;
  /** Pause after each typed key, ms; null: the desktop's default. */
  typeDelayMs: number | null;
}

/** `value` (or `fallback` when unset), checked to be an integer >= `floor`; `name` is the option's. */
export function checkedInteger(value: number | undefined, fallback: number, name: string, floor = 1): number {
  const resolved = value ?? fallback;
  if (!Number.isInteger(resolved) || resolved < floor) {
    throw new ReplayOptionError(`${name} must be an integer >= ${floor}, got ${resolved}`);
  }
  return resolved;
}
