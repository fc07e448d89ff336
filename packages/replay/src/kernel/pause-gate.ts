/** The default pause/resume hotkey of a replay. */
export const DEFAULT_PAUSE_HOTKEY = 'ctrl+alt+shift+p';

/**
 * The longest an action waits for keys the user holds (a modifier, the pause hotkey's key just after
 * it resumed the run), ms: typed while Ctrl and Alt are held, "Faint" reaches the app as Ctrl+Alt+F,
 * Ctrl+Alt+A...; a click becomes a Ctrl+click. A key up the hook missed holds the run no longer.
 */
const KEYS_UP_MS = 1000;

/**
 * Pauses and resumes a run from code (a button of a UI), as the pause hotkey does: pass it as
 * `ReplayOptions.pause`. It keeps its state: paused before the run listens (a Pause pressed right
 * after Run), the run pauses before its first action.
 */
export class PauseControl {
  readonly #listeners = new Set<(paused: boolean) => void>();
  #paused = false;

  /** Pauses the run before its next action (the run emits `paused`). */
  pause(): void {
    this.#paused = true;
    for (const listener of this.#listeners) listener(true);
  }

  /** Resumes a paused run (the run emits `resumed`). */
  resume(): void {
    this.#paused = false;
    for (const listener of this.#listeners) listener(false);
  }

  /** Calls `listener` with each command (at once when paused already); returns how to stop. */
  listen(listener: (paused: boolean) => void): () => void {
    this.#listeners.add(listener);
    if (this.#paused) listener(true);
    return () => this.#listeners.delete(listener);
  }
}

/**
 * Pauses a replay between actions: the hotkey or a {@link PauseControl} pauses it, and executors wait
 * at `wait()` before each action while it is paused, and while the user holds a modifier key or the
 * hotkey (as the hook sees them), so that no action of mime's overlaps keys of the user's. The
 * fail-safe still aborts a paused run.
 */
export class PauseGate {
  #paused = false;
  #resume: (() => void) | undefined;
  #resumed: Promise<void> = Promise.resolve();
  readonly #onChange: (paused: boolean) => void;
  /** The modifiers held now, as the hook last told. */
  #modifiers: readonly string[] = [];
  /** The hotkey's key while it is down. */
  #hotkeyDown: string | null = null;
  /** Told of each key that goes up. */
  readonly #onKeyUp = new Set<() => void>();

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

  /**
   * Resolves once running and no key the user holds is in the way (see {@link KEYS_UP_MS}); rejects
   * when `signal` aborts meanwhile.
   */
  async wait(signal: AbortSignal): Promise<void> {
    if (this.#paused) await abortable(this.#resumed, signal);
    if (!this.#keysHeld()) return;
    let stop: () => void = () => undefined;
    const up = new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        // A key up the hook missed: taken as up from now on.
        this.#modifiers = [];
        this.#hotkeyDown = null;
        resolve();
      }, KEYS_UP_MS);
      const check = () => {
        if (!this.#keysHeld()) resolve();
      };
      this.#onKeyUp.add(check);
      stop = () => {
        clearTimeout(timer);
        this.#onKeyUp.delete(check);
      };
    });
    try {
      await abortable(up, signal);
    } finally {
      stop();
    }
  }

  #keysHeld(): boolean {
    return this.#modifiers.length > 0 || this.#hotkeyDown !== null;
  }

  /**
   * A key went down (as the desktop's hooks saw it): `modifiers` are held now; `hotkey`, the key when
   * the chord was the pause hotkey's, toggles the run (see `listenForPauseHotkey` in run/).
   */
  keyDown(modifiers: readonly string[], hotkey: string | null): void {
    this.#modifiers = modifiers;
    if (hotkey === null) return;
    this.#hotkeyDown = hotkey;
    this.toggle();
  }

  /** A key went up: a modifier's own key up may still count it as held in `modifiers`. */
  keyUp(key: string | null, modifiers: readonly string[]): void {
    this.#modifiers = modifiers.filter((m) => m !== key);
    if (key === this.#hotkeyDown) this.#hotkeyDown = null;
    for (const told of this.#onKeyUp) told();
  }
}

/** `promise`, or the signal's reason as soon as it aborts. */
function abortable(promise: Promise<void>, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    void promise.then(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    });
  });
}
