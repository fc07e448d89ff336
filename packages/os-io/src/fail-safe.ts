/**
 * The fail-safe: while mime drives the desktop, a person can take it back by slamming the pointer
 * into a screen corner or pressing a hotkey. Either aborts `signal` with an {@link AbortedError}
 * (`MIME_ABORTED`): the input operation in progress rejects at its next step (a character, a drag
 * step, a pause) and every later one rejects at once. Aborting is final for this fail-safe.
 *
 * Two watchers: the global hook stream (sees the corner and the hotkey within a few ms, even between
 * operations) and a pointer check before each input step (works where hooks do not).
 */
import { formatKeyChord, type KeyChord, parseKeyChord } from '@mime-desktop/schema';
import { AbortedError, type AbortReason, UnsupportedPlatformError } from './errors.ts';
import { type HookEvent, type HookSubscription, startHooks } from './hooks.ts';
import type { LogicalPoint, LogicalSize } from './units.ts';

export interface FailSafeOptions {
  /** Abort when the pointer enters a screen corner that mime did not move it to. Default true. */
  corners?: boolean;
  /** Side of each corner square, logical pixels. Default 5. */
  cornerSize?: number;
  /** Chord that aborts (mime's chord syntax), or null for none. Default `ctrl+alt+shift+escape`. */
  hotkey?: string | null;
  /** A signal of the caller's; when it aborts, input aborts the same way (reason `signal`). Default none. */
  signal?: AbortSignal;
}

/** The hotkey that aborts mime's input unless configured otherwise. */
export const DEFAULT_ABORT_HOTKEY = 'ctrl+alt+shift+escape';

/** How long a position mime moved the pointer to excuses a hook event there, ms. */
const OWN_MOVE_MEMORY_MS = 2000;

export class FailSafe {
  readonly #controller = new AbortController();
  readonly #corners: boolean;
  readonly #cornerSize: number;
  readonly #hotkey: KeyChord | null;
  readonly #screen: LogicalSize;
  /** Positions mime itself moved the pointer to, newest last, with when. */
  #ownMoves: Array<{ point: LogicalPoint; at: number }> = [];
  #arming: Promise<void> | undefined;
  #subscription: HookSubscription | undefined;
  #disposed = false;

  constructor(screen: LogicalSize, options: FailSafeOptions = {}) {
    const { corners = true, cornerSize = 5, hotkey = DEFAULT_ABORT_HOTKEY, signal } = options;
    this.#screen = screen;
    this.#corners = corners;
    this.#cornerSize = cornerSize;
    this.#hotkey = hotkey === null ? null : parseKeyChord(hotkey);
    if (signal) {
      const onAbort = () => this.abort('signal', `the caller aborted (${String(signal.reason)})`);
      if (signal.aborted) onAbort();
      else signal.addEventListener('abort', onAbort, { once: true });
    }
  }

  /** Aborted with an {@link AbortedError} as `reason` when the fail-safe fires. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** The hotkey as a canonical chord, or null. */
  get hotkey(): string | null {
    return this.#hotkey && formatKeyChord(this.#hotkey);
  }

  /**
   * Starts watching the hook stream (once; later calls wait for the first). Without hooks (Wayland)
   * the corner is still checked before each input, but a hotkey cannot work: then this throws
   * {@link UnsupportedPlatformError} unless the hotkey is null.
   */
  arm(): Promise<void> {
    this.#arming ??= this.#startWatching();
    return this.#arming;
  }

  async #startWatching(): Promise<void> {
    if (!this.#corners && !this.#hotkey) return;
    try {
      const subscription = await startHooks((event) => this.#onHookEvent(event));
      if (this.#disposed) await subscription.stop();
      else this.#subscription = subscription;
    } catch (error) {
      const noHooks = error instanceof UnsupportedPlatformError;
      if (noHooks && !this.#hotkey) return; // corners are still checked before each input step
      this.#arming = undefined;
      if (!noHooks) throw error;
      throw new UnsupportedPlatformError(
        `The fail-safe hotkey ${this.hotkey} needs global input hooks. ${error.message} ` +
          'Set failSafe.hotkey to null to rely on the corner check alone.',
        { cause: error },
      );
    }
  }

  /** Remembers a position mime is about to move the pointer to, so arriving there is not an abort. */
  noteOwnMove(point: LogicalPoint, at: number): void {
    this.#ownMoves.push({ point, at });
    if (this.#ownMoves.length > 64) this.#ownMoves.shift();
  }

  /** Throws the abort error if the fail-safe has fired. */
  throwIfAborted(): void {
    if (this.#controller.signal.aborted) throw this.#controller.signal.reason;
  }

  /** Checks the pointer before an input step: in a corner mime did not put it in -> abort and throw. */
  checkPointer(pointer: LogicalPoint): void {
    this.throwIfAborted();
    this.#checkCorner(pointer);
    this.throwIfAborted();
  }

  /** Aborts input for good (idempotent: the first reason wins). */
  abort(reason: AbortReason, detail: string): void {
    if (this.#controller.signal.aborted) return;
    const error = new AbortedError(
      reason,
      `mime's input was aborted: ${detail}. Nothing more will be typed or clicked by this desktop; ` +
        'start a new run to continue.',
    );
    this.#controller.abort(error);
  }

  /** Stops watching hooks. */
  async dispose(): Promise<void> {
    this.#disposed = true;
    const subscription = this.#subscription;
    this.#subscription = undefined;
    await subscription?.stop();
  }

  #onHookEvent(event: HookEvent): void {
    if (this.#controller.signal.aborted) return;
    if (event.type === 'mousemove' || event.type === 'mousedown') {
      this.#checkCorner(event, event.time);
    } else if (event.type === 'keydown' && this.#hotkey && event.key === this.#hotkey.key) {
      const held = new Set(event.modifiers);
      if (this.#hotkey.modifiers.every((modifier) => held.has(modifier))) {
        this.abort('hotkey', `the fail-safe hotkey ${this.hotkey} was pressed`);
      }
    }
  }

  /** `hookTime` is set for hook events, which trail the moves that caused them. */
  #checkCorner(point: LogicalPoint, hookTime?: number): void {
    if (!this.#corners) return;
    const corner = this.#cornerOf(point);
    if (!corner) return;
    const last = this.#ownMoves.at(-1);
    if (last && samePoint(last.point, point)) return;
    if (hookTime !== undefined) {
      const since = hookTime - OWN_MOVE_MEMORY_MS;
      if (this.#ownMoves.some((move) => move.at >= since && samePoint(move.point, point))) return;
    }
    this.abort(
      'corner',
      `the pointer is in the ${corner} corner of the screen (${point.x}, ${point.y}), the fail-safe signal; ` +
        'move it out of the corners before running again',
    );
  }

  #cornerOf(point: LogicalPoint): string | undefined {
    const size = this.#cornerSize;
    const left = point.x < size;
    const right = point.x >= this.#screen.width - size;
    const top = point.y < size;
    const bottom = point.y >= this.#screen.height - size;
    if (top && left) return 'top-left';
    if (top && right) return 'top-right';
    if (bottom && left) return 'bottom-left';
    if (bottom && right) return 'bottom-right';
    return undefined;
  }
}

function samePoint(a: LogicalPoint, b: LogicalPoint): boolean {
  return Math.abs(a.x - b.x) <= 1 && Math.abs(a.y - b.y) <= 1;
}
