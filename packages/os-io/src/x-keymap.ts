/**
 * The X server's keyboard mapping as characters: which character a key gives at each shift level, and
 * which key (and level) types a character. Built from the core protocol's keysym table (what
 * `GetKeyboardMapping` returns, kept in step with XKB by the server), so it follows whatever layout
 * is active (`setxkbmap de`), not a fixed US layout.
 *
 * Columns of a keycode's row, as XKB fills them for the core protocol: group 1 level 1 and 2, group 2
 * level 1 and 2, then group 1 level 3 and 4 (AltGr and AltGr+Shift). mime reads group 1.
 */
import { createRequire } from 'node:module';

/** Shift levels of group 1: plain, Shift, AltGr (ISO_Level3_Shift or Mode_switch), AltGr+Shift. */
export type KeyLevel = 0 | 1 | 2 | 3;

/** Where a level's keysym sits in a keycode's row. */
const LEVEL_COLUMNS: Record<KeyLevel, number> = { 0: 0, 1: 1, 2: 4, 3: 5 };

const NO_SYMBOL = 0;
const KEYSYM_SHIFT_L = 0xffe1;
const KEYSYM_SHIFT_R = 0xffe2;
const KEYSYM_LEVEL3_SHIFT = 0xfe03;
const KEYSYM_MODE_SWITCH = 0xff7e;
const UNICODE_KEYSYM = 0x0100_0000;
/** Characters typed by a function key: Return and Tab. */
const CONTROL_KEYSYMS: Record<string, number> = { '\n': 0xff0d, '\t': 0xff09 };

/** Dead keysyms (keysymdef.h `dead_*`) -> the combining mark they add and their spacing form. */
const DEAD_KEYS: Record<number, { mark: string; spacing: string }> = {
  65104: { mark: '\u0300', spacing: '`' },
  65105: { mark: '\u0301', spacing: '\u00b4' },
  65106: { mark: '\u0302', spacing: '^' },
  65107: { mark: '\u0303', spacing: '~' },
  65108: { mark: '\u0304', spacing: '\u00af' },
  65109: { mark: '\u0306', spacing: '\u02d8' },
  65110: { mark: '\u0307', spacing: '\u02d9' },
  65111: { mark: '\u0308', spacing: '\u00a8' },
  65112: { mark: '\u030a', spacing: '\u00b0' },
  65113: { mark: '\u030b', spacing: '\u02dd' },
  65114: { mark: '\u030c', spacing: '\u02c7' },
  65115: { mark: '\u0327', spacing: '\u00b8' },
  65116: { mark: '\u0328', spacing: '\u02db' },
};

export type DeadKey = (typeof DEAD_KEYS)[number];

let legacyTable: ReadonlyMap<number, string> | undefined;

/**
 * Keysyms outside Latin-1 and the Unicode range (Latin-2, Cyrillic, Greek, `EuroSign`...) -> their
 * character, from the keysym table node-x11 generates from X.Org's keysymdef.h (`(\u00E4) ...`).
 */
function legacyKeysyms(): ReadonlyMap<number, string> {
  if (legacyTable) return legacyTable;
  const table = createRequire(import.meta.url)('x11/lib/keysyms.js') as Record<
    string,
    { code: number; description: string | null }
  >;
  const map = new Map<number, string>();
  for (const { code, description } of Object.values(table)) {
    const char = description && /^\((.)\)/u.exec(description)?.[1];
    if (char && !map.has(code)) map.set(code, char);
  }
  legacyTable = map;
  return map;
}

/** The character a keysym types, or undefined for keys that type none (modifiers, arrows, dead keys). */
export function keysymToChar(keysym: number): string | undefined {
  if ((keysym >= 0x20 && keysym <= 0x7e) || (keysym >= 0xa0 && keysym <= 0xff)) {
    return String.fromCodePoint(keysym);
  }
  if (keysym >= UNICODE_KEYSYM + 0x20 && keysym <= UNICODE_KEYSYM + 0x10_ffff) {
    return String.fromCodePoint(keysym - UNICODE_KEYSYM);
  }
  if (keysym >= 0x100 && keysym < 0xfe00) return legacyKeysyms().get(keysym);
  return undefined;
}

/** The keysym to bind to a spare key to type `char` (Latin-1 as is, everything else by code point). */
export function charToKeysym(char: string): number {
  const code = char.codePointAt(0) ?? 0;
  return (code >= 0x20 && code <= 0x7e) || (code >= 0xa0 && code <= 0xff) ? code : UNICODE_KEYSYM + code;
}

/** The dead key a keysym is (`dead_acute`...), if it is one. */
export function deadKeyOf(keysym: number): DeadKey | undefined {
  return DEAD_KEYS[keysym];
}

/**
 * Applies a pending dead key to the next character: `´` + `e` -> `é`. A space gives the accent itself;
 * a character that takes no such accent gives the accent then the character (as GTK does).
 */
export function composeDead(dead: DeadKey, char: string): string {
  if (char === ' ') return dead.spacing;
  const composed = `${char}${dead.mark}`.normalize('NFC');
  return [...composed].length === 1 ? composed : `${dead.spacing}${char}`;
}

/** A key to press for a character: its keycode and the shift level to hold. */
export interface KeyPlace {
  keycode: number;
  level: KeyLevel;
}

/** The keysym table of an X keyboard, from `GetKeyboardMapping(minKeycode, ...)`. */
export class Keymap {
  readonly #minKeycode: number;
  readonly #rows: readonly (readonly number[])[];

  constructor(minKeycode: number, rows: readonly (readonly number[])[]) {
    this.#minKeycode = minKeycode;
    this.#rows = rows;
  }

  /** The keysym at `level` of `keycode` (Shift on a key with one keysym gives its upper case, as X does). */
  keysym(keycode: number, level: KeyLevel): number {
    const row = this.#rows[keycode - this.#minKeycode];
    if (!row) return NO_SYMBOL;
    const keysym = row[LEVEL_COLUMNS[level]] ?? NO_SYMBOL;
    if (keysym !== NO_SYMBOL || level % 2 === 0) return keysym;
    return row[LEVEL_COLUMNS[(level - 1) as KeyLevel]] ?? NO_SYMBOL;
  }

  /** Whether `keycode` is an AltGr key (ISO_Level3_Shift or Mode_switch) in this layout. */
  isLevel3Key(keycode: number): boolean {
    const keysym = this.keysym(keycode, 0);
    return keysym === KEYSYM_LEVEL3_SHIFT || keysym === KEYSYM_MODE_SWITCH;
  }

  /** The first keycode carrying `keysym` at level 1, if any (a modifier key to hold). */
  keycodeOf(keysym: number): number | undefined {
    const index = this.#rows.findIndex((row) => row[0] === keysym);
    return index < 0 ? undefined : index + this.#minKeycode;
  }

  /** The Shift key to hold for level 2 and 4. */
  get shiftKeycode(): number | undefined {
    return this.keycodeOf(KEYSYM_SHIFT_L) ?? this.keycodeOf(KEYSYM_SHIFT_R);
  }

  /** The AltGr key to hold for level 3 and 4, if the layout has one. */
  get level3Keycode(): number | undefined {
    return this.keycodeOf(KEYSYM_LEVEL3_SHIFT) ?? this.keycodeOf(KEYSYM_MODE_SWITCH);
  }

  /**
   * The key and level that type `char` directly in this layout (levels 3 and 4 only when the layout
   * has an AltGr key), or undefined when no key does (type it through a spare key).
   */
  placeOf(char: string): KeyPlace | undefined {
    const control = CONTROL_KEYSYMS[char];
    if (control !== undefined) {
      const keycode = this.keycodeOf(control);
      return keycode === undefined ? undefined : { keycode, level: 0 };
    }
    const levels: KeyLevel[] = this.level3Keycode === undefined ? [0, 1] : [0, 1, 2, 3];
    for (const level of levels) {
      for (let index = 0; index < this.#rows.length; index += 1) {
        const keycode = index + this.#minKeycode;
        const keysym = this.keysym(keycode, level);
        if (keysym !== NO_SYMBOL && keysymToChar(keysym) === char) return { keycode, level };
      }
    }
    return undefined;
  }

  /** Keycodes with no keysym at all, free to bind a character to while typing. Highest first. */
  spareKeycodes(): number[] {
    const spare: number[] = [];
    for (let index = this.#rows.length - 1; index >= 0; index -= 1) {
      if (this.#rows[index]?.every((keysym) => keysym === NO_SYMBOL)) spare.push(index + this.#minKeycode);
    }
    return spare;
  }
}
