/**
 * Input execution: pointer, buttons, wheel, key chords and text, as sequences of raw presses
 * (raw-input.ts) paced by the policy of input-pacing.ts. Every operation runs one at a time, checks
 * the fail-safe before each step (a character, a drag step, a wheel notch) and, when it fails or is
 * aborted, releases whatever keys and buttons it still held.
 *
 * Text on X11: every character is typed by keycode through mime's own X connection
 * ({@link XKeyboard}): the key and shift level that give it in the active layout, or a spare key bound
 * to it while typing (é on a US layout, 日本, emoji), so the clipboard is never touched. Elsewhere:
 * printable ASCII, `\n` and `\t` key by key on a US layout, pressing Shift itself for capitals and
 * shifted symbols (nut-js `keyboard.type` mistypes those), and the rest pasted through the clipboard
 * with ctrl+v (cmd+v on macOS), which overwrites it.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import {
  formatKeyChord,
  isMimeError,
  type KeyChord,
  type Modifier,
  parseKeyChord,
} from '@mime-desktop/schema';
import { writeClipboard } from './clipboard.ts';
import { DesktopFailureError, InvalidInputError } from './errors.ts';
import type { FailSafe } from './fail-safe.ts';
import { DEFAULT_INPUT_TIMING, type InputTiming, TypingPacing } from './input-pacing.ts';
import { type Keystroke, keystrokeForChar, keystrokeForKey, MODIFIER_NUT_KEYS } from './keymap.ts';
import type { NutModule } from './native.ts';
import { RawKeyboard, RawMouse } from './raw-input.ts';
import { epochNow, pause } from './time.ts';
import {
  type LogicalPoint,
  type LogicalSize,
  type MouseButton,
  type ScrollDirection,
  screenPoint,
} from './units.ts';
import type { FocusedWindow, XKeyboard } from './x-keyboard.ts';

/**
 * Longest wait for an app to answer a ping, after which typing goes on as if it had: an app that
 * handles no input for this long has hung, and waiting longer would not bring its keys back.
 */
const PING_TIMEOUT_MS = 5000;

/** Pauses within one typed text, ms: after each key, and between two presses of the same key. */
interface TypingPace {
  keyDelay: number;
  repeatDelay: number;
}

export interface ClickOptions {
  /** Default `left`. */
  button?: MouseButton;
  /** 1 for a click, 2 for a double click, 3 for a triple click. Default 1. */
  clicks?: number;
}

export interface MoveOptions {
  /**
   * Wait until the pointer has rested there `settleMs`, so the app shows the hover. Default true;
   * false returns at once (to look at the screen meanwhile): a click there still waits out the rest.
   */
  rest?: boolean;
}

export interface DragOptions {
  /** Button held during the drag. Default `left`. */
  button?: MouseButton;
}

export interface ScrollOptions {
  /** Move the pointer here first (the wheel scrolls what is under the pointer). Default: where it is. */
  at?: LogicalPoint;
}

type TextPart = { kind: 'keys'; strokes: Keystroke[] } | { kind: 'paste'; text: string };

/** The characters to type, `\r\n` and `\r` as `\n` (Enter); throws on other control characters. */
function textChars(text: string): string[] {
  const chars = [...text.replace(/\r\n?/g, '\n')];
  const index = chars.findIndex((char) => {
    const code = char.codePointAt(0) ?? 0;
    return (code < 0x20 && char !== '\n' && char !== '\t') || (code >= 0x7f && code < 0xa0);
  });
  if (index >= 0) {
    const code = chars[index]?.codePointAt(0) ?? 0;
    throw new InvalidInputError(
      `cannot type control character U+${code.toString(16).toUpperCase().padStart(4, '0')} at index ${index}; ` +
        'use pressKey for keys such as escape or backspace',
    );
  }
  return chars;
}

/** Without an X keyboard: runs typed key by key on a US layout, and runs pasted. */
function planText(chars: readonly string[]): TextPart[] {
  const parts: TextPart[] = [];
  for (const char of chars) {
    const stroke = keystrokeForChar(char);
    const last = parts.at(-1);
    if (stroke) {
      if (last?.kind === 'keys') last.strokes.push(stroke);
      else parts.push({ kind: 'keys', strokes: [stroke] });
    } else if (last?.kind === 'paste') {
      last.text += char;
    } else {
      parts.push({ kind: 'paste', text: char });
    }
  }
  return parts;
}

/** Runs input on nut-js under a fail-safe; one per desktop. */
export class InputExecutor {
  readonly #nut: NutModule;
  readonly #mouse: RawMouse;
  readonly #keys: RawKeyboard;
  readonly #failSafe: FailSafe;
  readonly #screen: LogicalSize;
  readonly #timing: Required<InputTiming>;
  readonly #typing: TypingPacing;
  readonly #keyboard: (() => Promise<XKeyboard | undefined>) | undefined;
  #queue: Promise<unknown> = Promise.resolve();
  /** Where mime last put the pointer, and since when (performance.now()). */
  #rested: (LogicalPoint & { since: number }) | undefined;
  /** No key or button is pressed before this time (performance.now()): a text was just typed. */
  #typedUntil = 0;

  /** `keyboard` gives the X keyboard to type through, or undefined where there is none (not X11). */
  constructor(
    nut: NutModule,
    failSafe: FailSafe,
    screen: LogicalSize,
    timing: InputTiming = {},
    keyboard?: () => Promise<XKeyboard | undefined>,
  ) {
    this.#nut = nut;
    this.#mouse = new RawMouse(nut);
    this.#keys = new RawKeyboard(nut);
    this.#keyboard = keyboard;
    this.#failSafe = failSafe;
    this.#screen = screen;
    this.#timing = { ...DEFAULT_INPUT_TIMING, ...timing };
    this.#typing = new TypingPacing(timing);
  }

  pointerPosition(): Promise<LogicalPoint> {
    return this.#mouse.position();
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

  async click(point: LogicalPoint, options: ClickOptions = {}): Promise<void> {
    const { button = 'left', clicks = 1 } = options;
    if (!(Number.isInteger(clicks) && clicks >= 1 && clicks <= 3)) {
      throw new InvalidInputError(`clicks must be 1, 2 or 3, got ${clicks}`);
    }
    return this.#run(`${button} click`, async () => {
      await this.#moveTo(point);
      await this.#settle();
      for (let i = 0; i < clicks; i += 1) {
        if (i > 0) await this.#pause(this.#timing.clickIntervalMs);
        await this.#step();
        await this.#mouse.press(button);
        await this.#mouse.release(button);
      }
      await this.#pause(this.#timing.afterActionMs);
    });
  }

  async drag(from: LogicalPoint, to: LogicalPoint, options: DragOptions = {}): Promise<void> {
    const { button = 'left' } = options;
    const target = screenPoint(this.#screen, to);
    return this.#run('drag', async () => {
      const start = await this.#moveTo(from);
      await this.#settle();
      await this.#step();
      await this.#mouse.press(button);
      await this.#pause(this.#timing.dragHoldMs);
      const steps = Math.max(1, this.#timing.dragSteps);
      for (let i = 1; i <= steps; i += 1) {
        const t = i / steps;
        await this.#step();
        await this.#moveTo({ x: start.x + (target.x - start.x) * t, y: start.y + (target.y - start.y) * t });
        await this.#pause(this.#timing.dragStepMs);
      }
      await this.#pause(this.#timing.dragHoldMs);
      await this.#step();
      await this.#mouse.release(button);
      await this.#pause(this.#timing.afterActionMs);
    });
  }

  async scroll(direction: ScrollDirection, amount: number, options: ScrollOptions = {}): Promise<void> {
    if (!(Number.isInteger(amount) && amount >= 1)) {
      throw new InvalidInputError(
        `scroll amount is a number of wheel notches (a positive integer), got ${amount}`,
      );
    }
    return this.#run(`scroll ${direction}`, async () => {
      if (options.at) {
        await this.#moveTo(options.at);
        await this.#settle();
      }
      for (let i = 0; i < amount; i += 1) {
        await this.#step();
        await this.#mouse.wheel(direction);
        await this.#pause(this.#timing.scrollStepMs);
      }
      await this.#pause(this.#timing.afterActionMs);
    });
  }

  /** Presses a chord such as `ctrl+shift+t`, `enter`, `alt+f4`, `ctrl++` (text or parsed). */
  async pressKey(chord: string | KeyChord): Promise<void> {
    const parsed = typeof chord === 'string' ? parseKeyChord(chord) : chord;
    const stroke = keystrokeForKey(parsed.key);
    if (!stroke) throw new InvalidInputError(`no key to press for "${parsed.key}"`);
    const modifiers = new Set<Modifier>(parsed.modifiers);
    if (stroke.shift) modifiers.add('shift');
    const hotkey = this.#failSafe.hotkey;
    if (hotkey !== null && formatKeyChord(parsed) === hotkey) {
      throw new InvalidInputError(
        `${hotkey} is the fail-safe hotkey: pressing it would abort mime's own input`,
      );
    }
    return this.#run(`press ${formatKeyChord(parsed)}`, async () => {
      await this.#step();
      await this.#keys.chord(
        [...modifiers].map((m) => MODIFIER_NUT_KEYS[m]),
        stroke.key,
      );
      await this.#pause(this.#timing.afterActionMs);
    });
  }

  /**
   * Types `text` exactly (see the module comment for how); `\r\n` and `\r` become Enter.
   * `keyDelayMs` overrides the pause after each key for this text.
   */
  async typeText(text: string, options: { keyDelayMs?: number } = {}): Promise<void> {
    const chars = textChars(text);
    return this.#run('type text', async () => {
      const keyboard = await this.#keyboard?.();
      const window = keyboard ? await keyboard.focusedWindow() : null;
      const timing = await this.#typing.forWindow(window);
      const pace = {
        keyDelay: options.keyDelayMs ?? timing.keyDelayMs,
        repeatDelay: timing.repeatKeyDelayMs,
      };
      if (keyboard) await this.#typeByKeycode(keyboard, window, chars, pace);
      else await this.#typeByNut(planText(chars), pace);
      this.#typedUntil = performance.now() + timing.afterTypeMs;
    });
  }

  /**
   * X11: every character by the key that gives it in the active layout, or a spare key bound to it.
   * Where the window answers pings, the pauses that wait for the app are measured from when it has
   * handled the keys (see {@link XKeyboard.ping}), not from when they were sent: an app starved of
   * CPU handles them late, and loses a key that comes before it is ready.
   */
  async #typeByKeycode(
    keyboard: XKeyboard,
    window: FocusedWindow | null,
    chars: readonly string[],
    pace: TypingPace,
  ): Promise<void> {
    const { strokes, bindings } = keyboard.plan(chars);
    const { shiftKeycode, level3Keycode } = keyboard.keymap;
    /** Resolves once the app has handled the input so far, or `fallbackMs` later where that cannot be told. */
    const handled = async (fallbackMs: number, signal?: AbortSignal) => {
      if (window?.answersPing && (await keyboard.ping(window.id, PING_TIMEOUT_MS))) return;
      await (signal ? pause(fallbackMs, signal) : sleep(fallbackMs));
    };
    if (bindings.size > 0) {
      await keyboard.bind(bindings);
      await handled(this.#timing.remapSettleMs, this.#failSafe.signal);
    }
    try {
      /** Index of each key's last stroke: a key pressed again later is paced. */
      const lastStroke = new Map(strokes.map((stroke, index) => [stroke.keycode, index]));
      /**
       * Per key pressed again later: when the app had handled its last press. Where the app answers
       * pings, that is when it answered a ping sent right after the press (galculator ignores the
       * same key for 100 ms from handling it, by its own clock); elsewhere when it was pressed.
       */
      const handledAt = new Map<number, Promise<number>>();
      for (const [index, stroke] of strokes.entries()) {
        const previous = handledAt.get(stroke.keycode);
        if (previous !== undefined) {
          await this.#pause((await previous) + pace.repeatDelay - performance.now());
          // Asked again after the pause, so the app has run what came due meanwhile before the repeat.
          if (window?.answersPing) await handled(0);
        }
        await this.#step();
        const modifiers = [
          stroke.level % 2 === 1 ? shiftKeycode : undefined,
          stroke.level >= 2 ? level3Keycode : undefined,
        ].filter((keycode) => keycode !== undefined);
        await this.#keys.tapKeycode(keyboard, modifiers, stroke.keycode);
        if (pace.repeatDelay > 0 && (lastStroke.get(stroke.keycode) ?? index) > index) {
          const pressed = performance.now();
          handledAt.set(
            stroke.keycode,
            window?.answersPing
              ? handled(0).then(
                  () => performance.now(),
                  () => pressed,
                )
              : Promise.resolve(pressed),
          );
        }
        await this.#pause(pace.keyDelay);
      }
      await keyboard.sync();
    } finally {
      if (bindings.size > 0) {
        // Unbind only once the app has handled the presses with the binding in place; not cut short
        // by an abort, which must not leave the spare keys bound.
        await handled(this.#timing.remapSettleMs);
        await keyboard.bind(new Map([...bindings.keys()].map((keycode) => [keycode, 0])));
      }
    }
  }

  /** Elsewhere: ASCII key by key on a US layout, everything else pasted through the clipboard. */
  async #typeByNut(parts: TextPart[], pace: TypingPace): Promise<void> {
    const pressedAt = new Map<unknown, number>();
    for (const part of parts) {
      if (part.kind === 'keys') {
        for (const stroke of part.strokes) {
          const last = pressedAt.get(stroke.key);
          if (last !== undefined) await this.#pause(last + pace.repeatDelay - performance.now());
          pressedAt.set(stroke.key, performance.now());
          await this.#step();
          await this.#keys.chord(stroke.shift ? [MODIFIER_NUT_KEYS.shift] : [], stroke.key);
          await this.#pause(pace.keyDelay);
        }
      } else {
        await writeClipboard(this.#nut, part.text, this.#failSafe.signal);
        await this.#step();
        await this.#keys.paste();
        await this.#pause(this.#timing.pasteSettleMs);
      }
    }
  }

  /**
   * Serializes operations; on failure releases held keys and buttons and reports a typed error. An
   * operation that `presses` keys or buttons waits out the pause after a typed text first.
   */
  #run(what: string, operation: () => Promise<void>, { presses = true } = {}): Promise<void> {
    const result = this.#queue.then(async () => {
      this.#failSafe.throwIfAborted();
      await this.#failSafe.arm();
      try {
        if (presses) await this.#pause(this.#typedUntil - performance.now());
        await operation();
      } catch (error) {
        await this.#releaseHeld();
        if (this.#failSafe.signal.aborted) throw this.#failSafe.signal.reason;
        if (isMimeError(error)) throw error;
        throw new DesktopFailureError(`${what} failed: ${String(error)}`, { cause: error });
      }
    });
    this.#queue = result.catch(() => undefined);
    return result;
  }

  /**
   * Before each input step: stop if aborted, or if the pointer sits in a corner mime did not put it
   * in. Gives the pointer's position.
   */
  async #step(): Promise<LogicalPoint> {
    this.#failSafe.throwIfAborted();
    const at = await this.pointerPosition();
    this.#failSafe.checkPointer(at);
    return at;
  }

  /** Waits until the pointer has rested `settleMs` where mime put it. */
  #settle(): Promise<void> {
    return this.#pause((this.#rested?.since ?? 0) + this.#timing.settleMs - performance.now());
  }

  #pause(ms: number): Promise<void> {
    return pause(ms, this.#failSafe.signal);
  }

  /** Moves the pointer to `point`, unless it already rests there where mime put it. */
  async #moveTo(point: LogicalPoint): Promise<LogicalPoint> {
    const target = screenPoint(this.#screen, point);
    const at = await this.#step();
    const rested = this.#rested;
    const resting = at.x === target.x && at.y === target.y && rested?.x === at.x && rested.y === at.y;
    if (!resting) {
      this.#failSafe.noteOwnMove(target, epochNow());
      await this.#mouse.moveTo(target);
      this.#rested = { ...target, since: performance.now() };
    }
    return target;
  }

  /** Best effort: a failed or aborted operation must not leave a key or button down. */
  async #releaseHeld(): Promise<void> {
    await this.#keys.releaseAll();
    await this.#mouse.releaseAll();
  }
}
