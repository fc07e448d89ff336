/**
 * The input pacing policy: the pauses mime leaves between input steps so apps see input at a
 * human-like pace, and the typing pauses by the toolkit of the window typed into. The executor
 * (input.ts) applies them over the raw adapters (raw-input.ts), which press and release only.
 */
import { type Toolkit, toolkitOf, type WindowTraits } from './x-toolkit.ts';

/** Pauses mime leaves between input steps, so apps see input at a human-like pace. */
export interface InputTiming {
  /**
   * Least time the pointer rests where it was moved before a button is pressed there, so the app
   * sees the hover first (a pointer already resting there long enough is not held back). Default 25 ms.
   */
  settleMs?: number;
  /** After each click, key chord, scroll or drag, so the app reacts before the next input. Default 40 ms. */
  afterActionMs?: number;
  /** Between the clicks of a double (or triple) click. Default 60 ms. */
  clickIntervalMs?: number;
  /** After each typed character. Default by the toolkit typed into ({@link TOOLKIT_TYPING}). */
  keyDelayMs?: number;
  /**
   * Least time between two presses of the same key (`77`, `5.5`): some apps ignore a key pressed
   * again while its first press is still being handled (galculator animates its on-screen button
   * and drops a repeat within about 100 ms of handling the first). Into a window that answers
   * `_NET_WM_PING` it runs from when the app had handled the first press, however late that was.
   * Other keys are not held back. Default by the toolkit typed into ({@link TOOLKIT_TYPING}).
   */
  repeatKeyDelayMs?: number;
  /** After each wheel notch. Default 20 ms. */
  scrollStepMs?: number;
  /** Pointer moves between a drag's press and release. Default 12. */
  dragSteps?: number;
  /** After each drag move. Default 15 ms. */
  dragStepMs?: number;
  /** After a drag's press and before its release, for apps that need a pause to start or end a drag. Default 80 ms. */
  dragHoldMs?: number;
  /** After pasting non-ASCII text, so the app has inserted it before the next key. Default 150 ms. */
  pasteSettleMs?: number;
  /**
   * X11, into a window that does not answer `_NET_WM_PING` (Tk): after binding characters the layout
   * lacks to spare keys, before typing them (and again before unbinding), so the app has taken the
   * keymap. A window that answers pings (GTK, Qt, Chromium) is asked instead, and typing goes on
   * when the app has handled the change and the keys, however long that takes. Default 60 ms.
   */
  remapSettleMs?: number;
  /**
   * Least time from the end of a typed text to the next key or button press, so the app has handled
   * the text first: GTK's file chooser offers a completion of a typed path a moment later, and an
   * Enter pressed before that is lost (measured: lost at 120 ms, taken at 150). Input that comes
   * later anyway is not held back. Default by the toolkit typed into ({@link TOOLKIT_TYPING}).
   */
  afterTypeMs?: number;
}

/** The typing pauses, which depend on the toolkit typed into. */
export type TypingTiming = Pick<Required<InputTiming>, 'keyDelayMs' | 'repeatKeyDelayMs' | 'afterTypeMs'>;

/**
 * Typing pauses by the toolkit of the window typed into (X11), measured under Xvfb on 2 cores:
 * Chromium takes a 90-character text with doubled letters, non-ASCII and emoji exactly at 0 ms a key
 * (6/6) and an Enter right after typing (15/15); Qt (FeatherPad) exactly at 0 ms a key with no
 * repeat pause; GTK needs them (galculator drops a repeated digit within 100 ms, the file chooser an
 * Enter within 120 ms of typing). Qt's file dialog swallowed an Enter pressed right after a typed
 * path into its completion list (3 of 12), so the pause after typing stays. An unknown toolkit gets the slowest pauses.
 */
const GTK_TYPING: Readonly<TypingTiming> = { keyDelayMs: 10, repeatKeyDelayMs: 150, afterTypeMs: 200 };
export const TOOLKIT_TYPING: Readonly<Record<Toolkit, Readonly<TypingTiming>>> = {
  gtk: GTK_TYPING,
  unknown: GTK_TYPING,
  qt: { keyDelayMs: 0, repeatKeyDelayMs: 0, afterTypeMs: 200 },
  chromium: { keyDelayMs: 0, repeatKeyDelayMs: 0, afterTypeMs: 0 },
};

/** Every pause's default; the typing ones are an unknown toolkit's. */
export const DEFAULT_INPUT_TIMING: Readonly<Required<InputTiming>> = {
  ...TOOLKIT_TYPING.unknown,
  settleMs: 25,
  afterActionMs: 40,
  clickIntervalMs: 60,
  scrollStepMs: 20,
  dragSteps: 12,
  dragStepMs: 15,
  dragHoldMs: 80,
  pasteSettleMs: 150,
  remapSettleMs: 60,
};

/** Windows whose toolkit is remembered. */
const TOOLKIT_CACHE_SIZE = 64;

/** A window keys go to: its X id and what tells its toolkit. */
export interface TypedWindow {
  id: number;
  traits: WindowTraits;
}

/**
 * The typing pauses for each text: the toolkit's ({@link TOOLKIT_TYPING}) for the window typed into,
 * with the pauses the caller set winning whatever the toolkit.
 */
export class TypingPacing {
  /** The typing pauses the caller set: they apply whatever the toolkit. */
  readonly #set: Partial<TypingTiming>;
  /** Toolkits of the windows typed into, by X window id and process. */
  readonly #toolkits = new Map<string, Toolkit>();

  constructor(timing: InputTiming = {}) {
    const { keyDelayMs, repeatKeyDelayMs, afterTypeMs } = timing;
    this.#set = Object.fromEntries(
      Object.entries({ keyDelayMs, repeatKeyDelayMs, afterTypeMs }).filter(([, ms]) => ms !== undefined),
    );
  }

  /** The pauses for typing into `window` (null or unknown: the slowest). */
  async forWindow(window: TypedWindow | null): Promise<TypingTiming> {
    return {
      ...(window ? TOOLKIT_TYPING[await this.#toolkit(window)] : TOOLKIT_TYPING.unknown),
      ...this.#set,
    };
  }

  async #toolkit(window: TypedWindow): Promise<Toolkit> {
    const key = `${window.id} ${window.traits.pid}`;
    let toolkit = this.#toolkits.get(key);
    if (toolkit === undefined) {
      toolkit = await toolkitOf(window.traits);
      // Window ids are reused after a window closes: keep the cache small rather than exact forever.
      if (this.#toolkits.size >= TOOLKIT_CACHE_SIZE) this.#toolkits.clear();
      this.#toolkits.set(key, toolkit);
    }
    return toolkit;
  }
}

/** Names of the toolkits, as help texts say them. */
const TOOLKIT_NAMES: Record<Toolkit, string> = {
  gtk: 'GTK',
  qt: 'Qt',
  chromium: 'Chromium',
  unknown: 'unknown apps',
};

/** The default pause after each typed key by toolkit, for help texts: `10 ms for GTK and unknown apps, 0 for Qt and Chromium`. */
export function describeToolkitTyping(): string {
  const byDelay = new Map<number, string[]>();
  for (const [toolkit, timing] of Object.entries(TOOLKIT_TYPING) as [Toolkit, TypingTiming][]) {
    byDelay.set(timing.keyDelayMs, [...(byDelay.get(timing.keyDelayMs) ?? []), TOOLKIT_NAMES[toolkit]]);
  }
  const and = (names: string[]) => names.join(', ').replace(/, ([^,]*)$/, ' and $1');
  return [...byDelay]
    .sort(([a], [b]) => b - a)
    .map(([ms, names], k) => `${ms}${k === 0 ? ' ms' : ''} for ${and(names)}`)
    .join(', ');
}
