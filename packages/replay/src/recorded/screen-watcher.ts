/**
 * The live screen as trace and auto look at it: after an action, wait for the screen to settle; then
 * poll (about a frame apart) until a look passes or the step timeout. It alone knows whether an
 * action ran since the last look.
 */
import type { Desktop, RawFrame } from '@mime-desktop/os-io';
import { changedRegion, type RgbaImage } from '@mime-desktop/vision';
import { sleep, waitForSettle } from '../actions/screen-settle.ts';
import { liveImage } from '../actions/screen-text.ts';
import type { SettleOptions } from '../kernel/settings.ts';
import type { Look } from './checks.ts';

/** Pause between captures while waiting for the recorded screen, ms: about a frame at 60 Hz. */
const POLL_MS = 16;
/**
 * The longest pause between captures, ms: each capture that shows the same pixels as the one before
 * doubles the pause up to this. A screen that stays still is looked at ten times a second instead of
 * as fast as a look runs (a failing look answered from memory would spin a core until the step
 * timeout); a change is seen at most this late, and the pause starts short again after it.
 */
const STILL_POLL_MS = 100;
/**
 * The stable window of trace and auto after an action, ms: two frames at 60 Hz. Shorter than the
 * agent's, because every look that follows polls until the screen shows what the recording shows.
 */
const RECORDED_STABLE_MS = 33;
/**
 * How recent a frame the last look passed at once may be to serve the next look, ms (two frames at
 * 60 Hz): nothing acted since, so the screen it shows is the screen now.
 */
const REUSE_MS = 33;

export interface Watched<T> {
  look: Look<T>;
  live: RgbaImage;
  frame: RawFrame;
  waitedMs: number;
}

export class ScreenWatcher {
  readonly #desktop: Desktop;
  readonly #settle: Required<SettleOptions>;
  readonly #timeoutMs: number;
  readonly #signal: AbortSignal;
  readonly #dryRun: boolean;
  /**
   * An action ran since the last look at the screen. Not at the start: a screen still loading fails
   * the first look, which then polls, and the look after it waits for the screen to settle.
   */
  #acted = false;
  /** The frame the last look passed at once, when no action ran since. */
  #last: { frame: RawFrame; live: RgbaImage; at: number } | null = null;

  constructor(
    desktop: Desktop,
    options: { settle: Required<SettleOptions>; stepTimeoutMs: number; signal: AbortSignal; dryRun: boolean },
  ) {
    this.#desktop = desktop;
    this.#settle = options.settle;
    this.#timeoutMs = options.stepTimeoutMs;
    this.#signal = options.signal;
    this.#dryRun = options.dryRun;
  }

  /** Tells the watcher an action ran: the next look waits for the screen to settle first. */
  acted(): void {
    this.#acted = true;
    this.#last = null;
  }

  /**
   * Waits for the screen to settle when an action ran since the last look, then polls until `look`
   * passes or the step timeout. A look cannot always tell the app has not reacted yet (an extract
   * reads whatever is there), so after an action the screen must first stay the same for two frames.
   * A screen already looked at since is not waited for again, and the frame a look passed at once
   * serves the next look when it comes within {@link REUSE_MS}. A failed look is never the verdict
   * alone: one that ran out the time by itself (OCR on a loaded machine) read a frame an app slow to
   * draw may have taken before it drew (a form's "Sent to ..." line), so a frame taken after it is
   * looked at once more, and its look decides (and names what is missing then).
   */
  async watch<T>(look: (live: RgbaImage) => Promise<Look<T>> | Look<T>): Promise<Watched<T>> {
    const started = performance.now();
    const capture = () => this.#desktop.captureFrame();
    const last = this.#last;
    this.#last = null;
    const reused = !this.#acted && last !== null && started - last.at <= REUSE_MS ? last : null;
    let frame = reused
      ? reused.frame
      : this.#acted
        ? (
            await waitForSettle(capture, {
              ...this.#settle,
              stableMs: Math.min(this.#settle.stableMs, RECORDED_STABLE_MS),
              signal: this.#signal,
            })
          ).frame
        : await capture();
    let live = reused ? reused.live : await liveImage(frame);
    // The screen counts as still for the next look only when this one passed at once: a look that
    // had to poll saw the screen changing.
    this.#acted = false;
    let pause = POLL_MS;
    for (let looks = 1; ; looks += 1) {
      const result = await look(live);
      const waitedMs = performance.now() - started;
      if (result.ok && !this.#acted) this.#last = { frame, live, at: performance.now() };
      if (result.ok || (waitedMs >= this.#timeoutMs && looks > 1)) {
        return { look: result, live, frame, waitedMs };
      }
      this.#acted = true;
      await sleep(pause, this.#signal);
      const before = frame;
      frame = await capture();
      const still = frame.stride === before.stride && frame.data.equals(before.data);
      pause = still ? Math.min(pause * 2, STILL_POLL_MS) : POLL_MS;
      // The same pixels keep their image, so what was found on it is known (findTemplate remembers).
      if (!still) live = await liveImage(frame);
    }
  }

  /**
   * Whether the screen now differs from a recorded frame (more than a caret or a focus line): before
   * the run's first action, the app was not reset, a value left by an earlier run shows. Another
   * screen size tells nothing about the app's state.
   */
  async differsFrom(recorded: Promise<RgbaImage> | null): Promise<boolean> {
    if (!recorded || this.#dryRun) return false;
    const [image, live] = await Promise.all([
      recorded.catch(() => null),
      this.#desktop.captureFrame().then(liveImage),
    ]);
    if (!image || image.width !== live.width || image.height !== live.height) return false;
    return changedRegion(image, live) !== null;
  }

  /**
   * Moves the pointer onto a point first, as the recording had it there: hover states then match.
   * It does not wait for the pointer to rest: the look polls until the screen matches, and the click
   * there waits out the rest (its own settle) before it presses.
   */
  async hover(point: { x: number; y: number } | null): Promise<void> {
    if (!point || this.#dryRun) return;
    const { width, height } = this.#desktop.screen.logical;
    if (point.x < 0 || point.y < 0 || point.x >= width || point.y >= height) return;
    await this.#desktop.movePointer(point, { rest: false });
  }
}
