/**
 * The raw input adapters: presses, releases, moves and wheel notches, with no pacing and no checks.
 * Each remembers what it holds, so a failed or aborted operation lets everything go. nut-js (XTest
 * through libnut) drives the pointer, the wheel and named keys; mime's own X connection
 * ({@link XKeyboard}) presses keys by keycode. The pacing policy is input-pacing.ts; the executor
 * (input.ts) puts the two together.
 */
import { MODIFIER_NUT_KEYS, type NutKeyName } from './keymap.ts';
import type { NutModule } from './native.ts';
import type { LogicalPoint, MouseButton, ScrollDirection } from './units.ts';
import type { XKeyboard } from './x-keyboard.ts';

/** libnut on X11 turns scrollRight into wheel button 6 (left) and scrollLeft into 7: swapped there. */
const X11_SWAPS_HORIZONTAL_WHEEL = process.platform === 'linux';

/** The pointer, its buttons and the wheel, through nut-js. */
export class RawMouse {
  readonly #nut: NutModule;
  readonly #held: MouseButton[] = [];

  constructor(nut: NutModule) {
    this.#nut = nut;
  }

  async position(): Promise<LogicalPoint> {
    const { x, y } = await this.#nut.mouse.getPosition();
    return { x, y };
  }

  async moveTo(point: LogicalPoint): Promise<void> {
    await this.#nut.mouse.setPosition(new this.#nut.Point(point.x, point.y));
  }

  async press(button: MouseButton): Promise<void> {
    this.#held.push(button);
    await this.#nut.mouse.pressButton(this.#button(button));
  }

  async release(button: MouseButton): Promise<void> {
    await this.#nut.mouse.releaseButton(this.#button(button));
    this.#held.splice(this.#held.lastIndexOf(button), 1);
  }

  /** One wheel notch; `down` brings what is below into view. */
  async wheel(direction: ScrollDirection): Promise<void> {
    const { mouse } = this.#nut;
    const right = X11_SWAPS_HORIZONTAL_WHEEL ? 'left' : 'right';
    if (direction === 'up') await mouse.scrollUp(1);
    else if (direction === 'down') await mouse.scrollDown(1);
    else if (direction === right) await mouse.scrollRight(1);
    else await mouse.scrollLeft(1);
  }

  /** Best effort: releases every button still held. */
  async releaseAll(): Promise<void> {
    for (const button of this.#held.splice(0)) {
      await this.#nut.mouse.releaseButton(this.#button(button)).catch(() => undefined);
    }
  }

  #button(button: MouseButton) {
    const { Button } = this.#nut;
    return button === 'left' ? Button.LEFT : button === 'right' ? Button.RIGHT : Button.MIDDLE;
  }
}

/** Keys: named keys through nut-js, keycodes through the X keyboard. */
export class RawKeyboard {
  readonly #nut: NutModule;
  readonly #heldKeys: NutKeyName[] = [];
  readonly #heldKeycodes: number[] = [];
  /** The X keyboard that pressed the keycodes held, to release them. */
  #keycodeKeyboard: XKeyboard | undefined;

  constructor(nut: NutModule) {
    this.#nut = nut;
  }

  /** Holds `modifiers`, taps `key`, releases in reverse order. */
  async chord(modifiers: readonly NutKeyName[], key: NutKeyName): Promise<void> {
    for (const name of [...modifiers, key]) {
      this.#heldKeys.push(name);
      await this.#nut.keyboard.pressKey(this.#nut.Key[name]);
    }
    for (const name of [key, ...modifiers.toReversed()]) {
      await this.#nut.keyboard.releaseKey(this.#nut.Key[name]);
      this.#heldKeys.splice(this.#heldKeys.lastIndexOf(name), 1);
    }
  }

  /** Pastes what the clipboard holds: ctrl+v (cmd+v on macOS). */
  paste(): Promise<void> {
    return this.chord([process.platform === 'darwin' ? MODIFIER_NUT_KEYS.meta : MODIFIER_NUT_KEYS.ctrl], 'V');
  }

  /** Holds `modifiers` (keycodes), taps `keycode`, releases in reverse order, through XTest. */
  async tapKeycode(keyboard: XKeyboard, modifiers: readonly number[], keycode: number): Promise<void> {
    this.#keycodeKeyboard = keyboard;
    for (const code of [...modifiers, keycode]) {
      this.#heldKeycodes.push(code);
      await keyboard.key(code, true);
    }
    for (const code of [keycode, ...modifiers.toReversed()]) {
      await keyboard.key(code, false);
      this.#heldKeycodes.splice(this.#heldKeycodes.lastIndexOf(code), 1);
    }
  }

  /** Best effort: releases every key still held. */
  async releaseAll(): Promise<void> {
    for (const keycode of this.#heldKeycodes.splice(0).toReversed()) {
      await this.#keycodeKeyboard?.key(keycode, false).catch(() => undefined);
    }
    for (const name of this.#heldKeys.splice(0).toReversed()) {
      await this.#nut.keyboard.releaseKey(this.#nut.Key[name]).catch(() => undefined);
    }
  }
}
