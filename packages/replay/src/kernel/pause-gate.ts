import type { Desktop, HookSubscription } from '@mime-desktop/os-io';
import { formatKeyChord, type KeyChord, normalizeKeyChord } from '@mime-desktop/schema';

/** The default pause/resume hotkey of a replay. */
export const DEFAULT_PAUSE_HOTKEY = 'ctrl+alt+shift+p';

/**
 * The longest a resume by the hotkey waits for its keys to be let go, ms: typed while Ctrl and Alt are
 * still held, "Faint" reaches the app as Ctrl+Alt+F, Ctrl+Alt+A... (a key up the hook missed does not
 * hold the run longer).
 */
const HOTKEY_RELEASE_MS = 1000;

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
  /** A resume by the hotkey, waiting for its keys to be let go. */
  #release: { key: string; keyUp: boolean; done: () => void } | null = null;

  constructor(onChange: (paused: boolean) => void) {
    this.#onChange = onChange;
  }

  get paused(): boolean {
    return this.#paused;
  }

  /**
   * Pauses or resumes. `heldKey`: the hotkey's key, still down with its modifiers; a resume then lets
   * the run go on once they are all up (or after {@link HOTKEY_RELEASE_MS}).
   */
  toggle(heldKey?: string): void {
    this.#paused = !this.#paused;
    if (this.#paused) {
      this.#resumed = new Promise((resolve) => {
        this.#resume = resolve;
      });
    } else if (heldKey !== undefined) {
      const resume = this.#resume;
      const timer = setTimeout(() => done(), HOTKEY_RELEASE_MS);
      const done = () => {
        clearTimeout(timer);
        this.#release = null;
        resume?.();
      };
      this.#release = { key: heldKey, keyUp: false, done };
    } else {
      this.#resume?.();
    }
    this.#onChange(this.#paused);
  }

  /** Pauses or resumes; nothing changes (and nothing is said) when it already is so. */
  set(paused: boolean): void {
    if (paused !== this.#paused) this.toggle();
  }

  /**
   * Resolves at once when running, or when resumed (by the hotkey: once its keys are up); rejects when
   * `signal` aborts meanwhile.
   */
  wait(signal: AbortSignal): Promise<void> {
    if (!this.#paused && !this.#release) return Promise.resolve();
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

  /** A key let go: a resume by the hotkey goes on once its key and every modifier are up. */
  #keyUp(key: string | null, modifiers: readonly string[]): void {
    const release = this.#release;
    if (!release) return;
    if (key === release.key) release.keyUp = true;
    // A modifier's own key up may still count it as held.
    if (release.keyUp && modifiers.every((m) => m === key)) release.done();
  }

  /** Listens for the hotkey on the desktop's global hooks; `null` turns the hotkey off. */
  async listen(desktop: Desktop, hotkey: string | null): Promise<HookSubscription | null> {
    if (!hotkey) return null;
    const chord = normalizeKeyChord(hotkey);
    return desktop.startHooks((event) => {
      if (event.type === 'keyup') {
        this.#keyUp(event.key, event.modifiers);
        return;
      }
      if (event.type !== 'keydown' || event.key === null) return;
      const pressed = formatKeyChord({ modifiers: event.modifiers, key: event.key } as KeyChord);
      if (pressed === chord) this.toggle(event.key);
    });
  }
}
