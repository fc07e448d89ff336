/**
 * What a key press typed, in the active keyboard layout. uiohook reports physical keys (its keycodes
 * follow the US-layout key positions), so `ü` on a German keyboard arrives as the key US users call
 * `[`. This turns a press into the character the X keymap gives it at the held shift level (Shift,
 * AltGr), composes dead keys (`´` then `e` -> `é`) and says when it cannot tell.
 */
import type { Modifier } from '@mime-desktop/schema';
import { composeDead, type DeadKey, deadKeyOf, type Keymap, keysymToChar } from './x-keymap.ts';

/** What a key press typed, as far as the layout tells. */
export interface KeyText {
  /** The characters typed (`''` for a dead key waiting for its letter); absent for keys that type none. */
  text?: string;
  /** The key typed something mime cannot tell (a key uiohook has no code for, a keysym with no character). */
  unresolved?: boolean;
  /** The key's level-1 character in the layout, for chords (`ctrl+z` on a German keyboard). */
  key?: string;
  /** The modifiers held, AltGr taken out of `alt`. */
  modifiers: Modifier[];
}

/** uiohook codes of the keys that type characters (digit row to `/`, and space): X keycode = code + 8. */
const TYPING_BLOCK = [
  [0x02, 0x0d],
  [0x10, 0x1b],
  [0x1e, 0x29],
  [0x2b, 0x35],
  [0x39, 0x39],
] as const;
/** uiohook's codes for left and right Alt, and the X keycodes (evdev) of those keys. */
const UIOHOOK_ALT = 0x0038;
const UIOHOOK_ALT_RIGHT = 0x0e38;
const ALT_KEYCODES: Record<number, number> = { [UIOHOOK_ALT]: 64, [UIOHOOK_ALT_RIGHT]: 108 };

/** The X keycode (evdev numbering, as Xorg and Xvfb use) of a uiohook code in the typing block. */
function typingKeycodeOf(code: number): number | undefined {
  return TYPING_BLOCK.some(([low, high]) => code >= low && code <= high) ? code + 8 : undefined;
}

const isAsciiKey = (char: string | undefined): char is string =>
  char !== undefined && char.length === 1 && char > ' ' && char <= '~';

/** Follows the keys held and a pending dead key across one stream of hook events. */
export class KeyTextResolver {
  readonly #keymap: () => Keymap | undefined;
  readonly #held = new Set<number>();
  #dead: DeadKey | undefined;

  /** `keymap` gives the active layout's keymap (undefined: no X keymap, report nothing). */
  constructor(keymap: () => Keymap | undefined) {
    this.#keymap = keymap;
  }

  /** A key went up: forget it. */
  release(code: number): void {
    this.#held.delete(code);
  }

  /** A key went down (uiohook `code`, modifiers as uiohook saw them). */
  press(code: number, modifiers: Modifier[]): KeyText {
    const keymap = this.#keymap();
    if (!keymap) return { modifiers };
    this.#held.add(code);
    const level3 = [...this.#held].some((held) => {
      const keycode = ALT_KEYCODES[held];
      return keycode !== undefined && keymap.isLevel3Key(keycode);
    });
    // uiohook counts AltGr as Alt; with AltGr held, Alt is only real when the left Alt is down too.
    const actual = level3 && !this.#held.has(UIOHOOK_ALT) ? modifiers.filter((m) => m !== 'alt') : modifiers;
    if (code === 0)
      return actual.some((m) => m !== 'shift')
        ? { modifiers: actual }
        : { unresolved: true, modifiers: actual };
    const keycode = typingKeycodeOf(code);
    if (keycode === undefined) return { modifiers: actual };
    const base = keysymToChar(keymap.keysym(keycode, 0));
    const key = isAsciiKey(base) ? base.toLowerCase() : undefined;
    if (actual.some((m) => m !== 'shift')) return { modifiers: actual, ...(key ? { key } : {}) };
    const keysym = keymap.keysym(
      keycode,
      ((actual.includes('shift') ? 1 : 0) + (level3 ? 2 : 0)) as 0 | 1 | 2 | 3,
    );
    return { ...this.#typed(keysym), modifiers: actual, ...(key ? { key } : {}) };
  }

  #typed(keysym: number): Pick<KeyText, 'text' | 'unresolved'> {
    const dead = deadKeyOf(keysym);
    const pending = this.#dead;
    if (dead) {
      this.#dead = pending === dead ? undefined : dead;
      return { text: pending === dead ? dead.spacing : (pending?.spacing ?? '') };
    }
    this.#dead = undefined;
    const char = keysymToChar(keysym);
    if (char === undefined) return { unresolved: true };
    return { text: pending ? composeDead(pending, char) : char };
  }
}
