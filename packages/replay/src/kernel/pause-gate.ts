import type { Desktop, HookSubscription } from '@mime-desktop/os-io';
import { formatKeyChord, type KeyChord, normalizeKeyChord } from '@mime-desktop/schema';

/** The default pause/resume hotkey of a replay. */
export const DEFAULT_PAUSE_HOTKEY = 'ctrl+alt+shift+p';

/**
 * Pauses and resumes a run from code (a button of a UI), as the pause hotkey does: pass it as
 * `ReplayOptions.pause`. Commands given while no run listens are not kept.
 */
export class PauseControl {
  readonly #listeners = new Set<(paused: boolean) => void>();

  /** Pauses the run before its next action (the run emits `paused`). */
  pause(): void {
    for (const listener of this.#listeners) listener(true);
  }

  /** Resumes a paused run (the run emits `resumed`). */
  resume(): void {
    for (const listener of this.#listeners) listener(false);
  }

  /** Calls `listener` with each command; returns how to stop. */
  listen(listener: (paused: boolean) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}

/**
 * Pauses a replay between actions: the hotkey or a {@link PauseControl} pauses it, and executors wait at `wait()` before
 * each action while it is paused. The fail-safe still aborts a paused run.
 */
export class PauseGate {
  #paused = false;
  #resume: (() => void) | undefined;
  #resumed: Promise<void> = Promise.resolve();
  readonly #onChange: (paused: boolean) => void;

  constructor(onChange: (paused: boolean) => void) {
    this.#onChange = onChange;
  }

  get paused(): boolean {
    return this.#paused;
  }

  toggle(): void {
    this.#paused = !this.#paused;
    if (this.#paused) {
      this.#resumed = new Promise((resolve) => {
        this.#resume = resolve;
      });
    } else {
      this.#resume?.();
    }
    this.#onChange(this.#paused);
  }

  /** Pauses or resumes; nothing changes (and nothing is said) when it already is so. */
  set(paused: boolean): void {
    if (paused !== this.#paused) this.toggle();
  }

  /** Resolves at once when running, or when resumed; rejects when `signal` aborts meanwhile. */
  wait(signal: AbortSignal): Promise<void> {
    if (!this.#paused) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const onAbort = () => reject(signal.reason);
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      void this.#resumed.then(() => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      });
    });
  }

  /** Listens for the hotkey on the desktop's global hooks; `null` turns the hotkey off. */
  async listen(desktop: Desktop, hotkey: string | null): Promise<HookSubscription | null> {
    if (!hotkey) return null;
    const chord = normalizeKeyChord(hotkey);
    return desktop.startHooks((event) => {
      if (event.type !== 'keydown' || event.key === null) return;
      if (formatKeyChord({ modifiers: event.modifiers, key: event.key } as KeyChord) === chord) this.toggle();
    });
  }
}
