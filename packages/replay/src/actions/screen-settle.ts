/**
 * Waiting until the screen stops changing after an action, by comparing consecutive captures: apps
 * animate, load and repaint for a while, and a screenshot taken mid-change misleads the model.
 */
import type { RawFrame } from '@mime-desktop/os-io';
import { pixelWords } from '@mime-desktop/vision';
import { DEFAULT_SETTLE, type SettleOptions } from '../kernel/settings.ts';
import { withDefaults } from '../kernel/with-defaults.ts';

export interface FrameDifferenceOptions {
  /** Compare every `step`-th pixel of every `step`-th row. Default 4. */
  step?: number;
  /** Largest per-channel difference (0-255) that still counts as the same pixel. Default 16. */
  tolerance?: number;
}

/** Whether two pixels (4 bytes each, at byte offsets) differ by more than `tolerance` in a colour channel. */
function pixelsDiffer(a: Buffer, ia: number, b: Buffer, ib: number, tolerance: number): boolean {
  return (
    Math.abs((a[ia] ?? 0) - (b[ib] ?? 0)) > tolerance ||
    Math.abs((a[ia + 1] ?? 0) - (b[ib + 1] ?? 0)) > tolerance ||
    Math.abs((a[ia + 2] ?? 0) - (b[ib + 2] ?? 0)) > tolerance
  );
}

/**
 * The fraction (0..1) of sampled pixels that differ between two frames; 1 when their sizes differ.
 * Identical pixels are skipped with one 32-bit comparison: about 1 ms at 1080p with the default sampling.
 */
export function measureFrameDifference(
  a: RawFrame,
  b: RawFrame,
  options: FrameDifferenceOptions = {},
): number {
  const { step = 4, tolerance = 16 } = options;
  const { width, height } = a.physical;
  if (width !== b.physical.width || height !== b.physical.height || a.channelOrder !== b.channelOrder)
    return 1;
  const da = a.data;
  const db = b.data;
  // Word indexes follow byte offsets only when rows are whole words.
  const wa = a.stride % 4 === 0 ? pixelWords(da) : null;
  const wb = b.stride % 4 === 0 ? pixelWords(db) : null;
  let sampled = 0;
  let changed = 0;
  for (let y = 0; y < height; y += step) {
    const rowA = y * a.stride;
    const rowB = y * b.stride;
    for (let x = 0; x < width; x += step) {
      sampled += 1;
      const ia = rowA + 4 * x;
      const ib = rowB + 4 * x;
      if (wa && wb && wa[ia >> 2] === wb[ib >> 2]) continue;
      if (pixelsDiffer(da, ia, db, ib, tolerance)) changed += 1;
    }
  }
  return sampled === 0 ? 0 : changed / sampled;
}

/** The frame a settle wait ended on. */
export interface SettledFrame {
  frame: RawFrame;
  /** False when the wait hit `timeoutMs` with the screen still changing. */
  settled: boolean;
  /** Time spent waiting, captures included, ms. */
  waitedMs: number;
  captures: number;
}

/** Resolves after `ms`, or rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Options of one settle wait. */
export interface SettleWait extends SettleOptions {
  /** An action ran just before: pause `initialDelayMs` first. Default true. */
  afterAction?: boolean;
  /** Stops the wait with the signal's reason. Default none. */
  signal?: AbortSignal;
  /**
   * Called with each frame that may become the result, as the pause before the next capture starts:
   * work on it (encoding it for the model) overlaps the pause. Default none.
   */
  onCandidate?: (frame: RawFrame) => void;
}

/**
 * Captures every `intervalMs` until the screen has stayed the same (see `threshold`) for `stableMs`
 * (two captures that far apart, and every one between them, alike), or `timeoutMs` passes, and
 * returns the first frame of that stable stretch (on screen since then; the one `onCandidate` saw),
 * or the latest frame on a timeout. No fixed sleep: a screen that is already still costs `stableMs`
 * and a few captures.
 */
export async function waitForSettle(
  capture: () => Promise<RawFrame>,
  options: SettleWait = {},
): Promise<SettledFrame> {
  const { signal, afterAction = true, onCandidate } = options;
  const { initialDelayMs, intervalMs, stableMs, timeoutMs, threshold } = withDefaults(
    DEFAULT_SETTLE,
    options,
  );
  const started = performance.now();
  if (afterAction && initialDelayMs > 0) await sleep(initialDelayMs, signal);
  // A frame's time is when its capture started (the server grabs the pixels as it is asked).
  let stableSince = performance.now();
  let stable = await capture();
  let captures = 1;
  let announce = true;
  for (;;) {
    if (performance.now() - started >= timeoutMs) {
      return { frame: stable, settled: false, waitedMs: performance.now() - started, captures };
    }
    // Every `intervalMs` while the screen changes; the last capture of a stable stretch falls when the
    // stretch is `stableMs` long, not an interval after.
    const due = Math.min(intervalMs, stableSince + stableMs - performance.now());
    // The pause runs while `onCandidate` starts its work (encoding the model image), not after it.
    const pause = sleep(Math.max(0, due), signal);
    if (announce) onCandidate?.(stable);
    announce = false;
    await pause;
    const at = performance.now();
    const current = await capture();
    captures += 1;
    if (measureFrameDifference(stable, current) > threshold) {
      stable = current;
      stableSince = at;
      announce = true;
      continue;
    }
    if (at - stableSince >= stableMs) {
      return { frame: stable, settled: true, waitedMs: performance.now() - started, captures };
    }
  }
}
