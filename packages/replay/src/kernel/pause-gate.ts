import type { Desktop, HookSubscription } from '@mime-desktop/os-io';
import { formatKeyChord, type KeyChord, normalizeKeyChord } from '@mime-desktop/schema';

/** The default pause/resume hotkey of a replay. */
export const DEFAULT_PAUSE_HOTKEY = 'ctrl+alt+shift+p';

/**
 * Pauses a replay between actions: the hotkey toggles it, and executors wait at `wait()` before
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
