import type { ActiveWindow, Desktop } from '@mime-desktop/os-io';
import type { RecordedAction } from './aggregate.ts';

type Focus = Promise<{ title: string } | null>;

/**
 * Input that went to the recorder's own terminal is dropped. Keys went to the window focused when
 * they were pressed (asked at each key press); a click went to the window focused after it (asked
 * when the click is committed, after its double-click window, once click-to-focus has acted).
 */
export class TerminalFilter {
  readonly #desktop: Desktop;
  readonly #terminal: ActiveWindow | null;
  readonly #keyFocus = new Map<number, Focus>();

  private constructor(desktop: Desktop, terminal: ActiveWindow | null) {
    this.#desktop = desktop;
    this.#terminal = terminal;
  }

  /**
   * With `ignore`, the terminal is the window focused now (call it before a launched app takes the
   * focus); without, nothing is dropped.
   */
  static async start(desktop: Desktop, ignore: boolean): Promise<TerminalFilter> {
    return new TerminalFilter(desktop, ignore ? await desktop.activeWindow() : null);
  }

  /** A key went down at `time`: asks which window has the focus. */
  noteKey(time: number): void {
    if (this.#terminal) this.#keyFocus.set(time, this.#desktop.activeWindow());
  }

  /** The window the action went to; null when nothing is dropped. */
  focusOf(action: RecordedAction): Focus | null {
    if (!this.#terminal) return null;
    const atKey =
      action.action_type === 'type' || action.action_type === 'key'
        ? this.#keyFocus.get(action.time)
        : undefined;
    for (const time of this.#keyFocus.keys()) if (time <= action.time) this.#keyFocus.delete(time);
    return atKey ?? this.#desktop.activeWindow();
  }

  /** Whether that focus is the recording terminal. */
  async isTerminal(focus: Focus | null): Promise<boolean> {
    return focus !== null && (await focus)?.title === this.#terminal?.title;
  }
}
