/**
 * Input on Wayland compositors, paced by the same policy as X11 (input-pacing.ts), through a pointer
 * and a keyboard the compositor lends: on wlroots a long-lived virtual pointer (wlr-virtual-pointer.ts)
 * and wtype (wtype-keyboard.ts), on GNOME mutter's remote desktop (mutter-remote-desktop.ts,
 * mutter-keyboard.ts). Operations run one at a time, check the fail-safe before each step and release
 * a held button when they fail.
 *
 * Wayland tells no client where the pointer is: {@link WaylandInput.pointerPosition} is where mime last
 * put it, so the fail-safe's corner check sees only mime's own moves (the hotkey, where the compositor binds one, is
 * what a person uses to take over).
 */
import { isMimeError, type KeyChord, parseKeyChord } from '@mime-desktop/schema';
import { DesktopFailureError, InvalidInputError, UnsupportedPlatformError } from './errors.ts';
import type { FailSafe } from './fail-safe.ts';
import type { ClickOptions, DragOptions, MoveOptions, ScrollOptions } from './input.ts';
import { DEFAULT_INPUT_TIMING, type InputTiming, type TypedWindow, TypingPacing } from './input-pacing.ts';
import { epochNow, pause } from './time.ts';
import {
  type LogicalPoint,
  type LogicalSize,
  type MouseButton,
  type ScrollDirection,
  screenPoint,
} from './units.ts';
import { chordArgs, wtype } from './wtype-keyboard.ts';

/** A pointer the compositor moves to absolute logical positions; each call resolves once it has the event. */
export interface PointerDevice {
  moveTo(point: LogicalPoint): Promise<void>;
  button(button: MouseButton, down: boolean): Promise<void>;
  /** One wheel notch. */
  wheel(direction: ScrollDirection): Promise<void>;
}

/** A keyboard the compositor takes chords and text from. */
export interface KeyboardDevice {
  pressChord(chord: KeyChord, signal?: AbortSignal): Promise<void>;
  /** Types `text` (newlines and tabs as their keys), `keyDelayMs` between keys. */
  typeText(text: string, keyDelayMs: number, signal?: AbortSignal): Promise<void>;
}

/** Splits text where a key repeats (`ll`), so the pause between presses of one key can be kept. */
function repeatRuns(text: string): string[] {
  const runs: string[] = [];
  let run = '';
  for (const char of text) {
    if (run.endsWith(char)) {
      runs.push(run);
      run = '';
    }
    run += char;
  }
  if (run) runs.push(run);
  return runs;
}

/** wtype arguments that type `text`: newlines and tabs as keys, text starting with `-` kept as text. */
export function textArgs(text: string, keyDelayMs: number): string[] {
  // wtype refuses `-d 0`: no pause is no option.
  const delay = Math.round(keyDelayMs);
  const args = delay > 0 ? ['-d', String(delay)] : [];
  for (const part of text.split(/([\n\t])/u)) {
    if (part === '\n') args.push('-k', 'Return');
    else if (part === '\t') args.push('-k', 'Tab');
    else if (part) {
      const dashes = /^-+/u.exec(part)?.[0] ?? '';
      for (let i = 0; i < dashes.length; i += 1) args.push('-k', 'minus');
      if (part.length > dashes.length) args.push(part.slice(dashes.length));
    }
  }
  return args;
}

/**
 * What each wtype call to an XWayland window starts with: a tap of Shift. wtype numbers the keys of
 * its keymap as its call uses them, and under XWayland a capital letter on the first key was lost
 * every time (Chromium on XWayland under sway: "Faint" typed "aint", "AbC" typed "bC", whatever the
 * pause before it; "Faint" after a Shift tap typed whole, 4 of 4 texts).
 */
export const XWAYLAND_LEAD: readonly string[] = ['-k', 'Shift_L'];

/**
 * wtype as the {@link KeyboardDevice} of the wlroots compositor of `env`; `toXWayland` tells
 * whether keys go to an XWayland window now (see {@link XWAYLAND_LEAD}).
 */
export function wtypeKeyboard(
  env: NodeJS.ProcessEnv,
  toXWayland: () => Promise<boolean> = async () => false,
): KeyboardDevice {
  const lead = async () => ((await toXWayland()) ? XWAYLAND_LEAD : []);
  return {
    pressChord: async (chord, signal) => wtype([...(await lead()), ...chordArgs(chord)], env, signal),
    typeText: async (text, keyDelayMs, signal) =>
      wtype([...(await lead()), ...textArgs(text, keyDelayMs)], env, signal),
  };
}

export class WaylandInput {
  readonly #pointer: PointerDevice;
  readonly #keyboard: KeyboardDevice;
  readonly #failSafe: FailSafe;
  readonly #screen: LogicalSize;
  readonly #timing: Required<InputTiming>;
  readonly #typing: TypingPacing;
  readonly #typedWindow: () => Promise<TypedWindow | null>;
  #queue: Promise<unknown> = Promise.resolve();
  #rested: (LogicalPoint & { since: number }) | undefined;
  #held: MouseButton | null = null;
  #typedUntil = 0;

  /** `typedWindow` tells the window keys go to (for the toolkit's typing pauses), null when unknown. */
  constructor(
    pointer: PointerDevice,
    keyboard: KeyboardDevice,
    failSafe: FailSafe,
    screen: LogicalSize,
    timing: InputTiming = {},
    typedWindow: () => Promise<TypedWindow | null> = async () => null,
  ) {
    this.#pointer = pointer;
    this.#failSafe = failSafe;
    this.#screen = screen;
    this.#keyboard = keyboard;
    this.#timing = { ...DEFAULT_INPUT_TIMING, ...timing };
    this.#typing = new TypingPacing(timing);
    this.#typedWindow = typedWindow;
  }

  /** Where mime last put the pointer; throws before the first move (Wayland does not tell). */
  async pointerPosition(): Promise<LogicalPoint> {
    if (!this.#rested) {
      throw new UnsupportedPlatformError(
        'Wayland tells no program where the pointer is: mime knows it only once it has moved it',
      );
    }
    return { x: this.#rested.x, y: this.#rested.y };
  }

  movePointer(point: LogicalPoint, options: MoveOptions = {}): Promise<void> {
    return this.#run(
      'move the pointer',
      async () => {
        await this.#moveTo(point);
        if (options.rest !== false) await this.#settle();
      },
      { presses: false },
    );
  }

  click(point: LogicalPoint, options: ClickOptions = {}): Promise<void> {
    const { button = 'left', clicks = 1 } = options;
    if (!(Number.isInteger(clicks) && clicks >= 1 && clicks <= 3)) {
      return Promise.reject(new InvalidInputError(`clicks must be 1, 2 or 3, got ${clicks}`));
    }
    return this.#run(`${button} click`, async () => {
      await this.#moveTo(point);
      await this.#settle();
      for (let i = 0; i < clicks; i += 1) {
        if (i > 0) await this.#pause(this.#timing.clickIntervalMs);
        this.#step();
        await this.#press(button);
        await this.#release();
      }
      await this.#pause(this.#timing.afterActionMs);
    });
  }

  drag(from: LogicalPoint, to: LogicalPoint, options: DragOptions = {}): Promise<void> {
    const { button = 'left' } = options;
    return this.#run('drag', async () => {
      const target = screenPoint(this.#screen, to);
      const start = await this.#moveTo(from);
      await this.#settle();
      this.#step();
      await this.#press(button);
      await this.#pause(this.#timing.dragHoldMs);
      const steps = Math.max(1, this.#timing.dragSteps);
      for (let i = 1; i <= steps; i += 1) {
        const t = i / steps;
        this.#step();
        await this.#moveTo({ x: start.x + (target.x - start.x) * t, y: start.y + (target.y - start.y) * t });
        await this.#pause(this.#timing.dragStepMs);
      }
      await this.#pause(this.#timing.dragHoldMs);
      this.#step();
      await this.#release();
      await this.#pause(this.#timing.afterActionMs);
    });
  }

  scroll(direction: ScrollDirection, amount: number, options: ScrollOptions = {}): Promise<void> {
    if (!(Number.isInteger(amount) && amount >= 1)) {
      return Promise.reject(
        new InvalidInputError(
          `scroll amount is a number of wheel notches (a positive integer), got ${amount}`,
        ),
      );
    }
    return this.#run(`scroll ${direction}`, async () => {
      if (options.at) {
        await this.#moveTo(options.at);
        await this.#settle();
      }
      for (let i = 0; i < amount; i += 1) {
        this.#step();
        await this.#pointer.wheel(direction);
        await this.#pause(this.#timing.scrollStepMs);
      }
      await this.#pause(this.#timing.afterActionMs);
    });
  }

  pressKey(chord: string | KeyChord): Promise<void> {
    const parsed = typeof chord === 'string' ? parseKeyChord(chord) : chord;
    return this.#run('press a key', async () => {
      this.#step();
      await this.#keyboard.pressChord(parsed, this.#failSafe.signal);
      await this.#pause(this.#timing.afterActionMs);
    });
  }

  typeText(text: string, options: { keyDelayMs?: number } = {}): Promise<void> {
    const normalized = text.replace(/\r\n?/g, '\n');
    const control = [...normalized].find((c) => {
      const code = c.codePointAt(0) ?? 0;
      return (code < 0x20 && c !== '\n' && c !== '\t') || (code >= 0x7f && code < 0xa0);
    });
    if (control !== undefined) {
      const code = (control.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0');
      return Promise.reject(
        new InvalidInputError(
          `cannot type control character U+${code}; use pressKey for keys such as escape`,
        ),
      );
    }
    return this.#run('type text', async () => {
      const timing = await this.#typing.forWindow(await this.#typedWindow());
      const keyDelay = options.keyDelayMs ?? timing.keyDelayMs;
      const runs = timing.repeatKeyDelayMs > keyDelay ? repeatRuns(normalized) : [normalized];
      for (const [i, run] of runs.entries()) {
        if (i > 0) await this.#pause(timing.repeatKeyDelayMs);
        this.#step();
        await this.#keyboard.typeText(run, keyDelay, this.#failSafe.signal);
      }
      this.#typedUntil = performance.now() + timing.afterTypeMs;
    });
  }

  /** Serializes operations; on failure releases a held button and reports a typed error. */
  #run(what: string, operation: () => Promise<void>, { presses = true } = {}): Promise<void> {
    const result = this.#queue.then(async () => {
      this.#failSafe.throwIfAborted();
      await this.#failSafe.arm();
      try {
        if (presses) await this.#pause(this.#typedUntil - performance.now());
        await operation();
      } catch (error) {
        await this.#release().catch(() => undefined);
        if (this.#failSafe.signal.aborted) throw this.#failSafe.signal.reason;
        if (isMimeError(error)) throw error;
        throw new DesktopFailureError(`${what} failed: ${String(error)}`, { cause: error });
      }
    });
    this.#queue = result.catch(() => undefined);
    return result;
  }

  #step(): void {
    this.#failSafe.throwIfAborted();
    if (this.#rested) this.#failSafe.checkPointer(this.#rested);
  }

  async #press(button: MouseButton): Promise<void> {
    this.#held = button;
    await this.#pointer.button(button, true);
  }

  async #release(): Promise<void> {
    const held = this.#held;
    this.#held = null;
    if (held) await this.#pointer.button(held, false);
  }

  #settle(): Promise<void> {
    return this.#pause((this.#rested?.since ?? 0) + this.#timing.settleMs - performance.now());
  }

  #pause(ms: number): Promise<void> {
    return pause(ms, this.#failSafe.signal);
  }

  async #moveTo(point: LogicalPoint): Promise<LogicalPoint> {
    const target = screenPoint(this.#screen, point);
    this.#step();
    const rested = this.#rested;
    if (rested?.x !== target.x || rested.y !== target.y) {
      this.#failSafe.noteOwnMove(target, epochNow());
      await this.#pointer.moveTo(target);
      this.#rested = { ...target, since: performance.now() };
    }
    return target;
  }
}
