/**
 * Key names in both directions, in mime's vocabulary (lower-case names from `@mime-desktop/schema` keys:
 * `enter`, `pageup`, `f5`, or one printable ASCII character; modifiers `ctrl`, `alt`, `shift`, `meta`).
 *
 * - To type: a character or key name -> the nut-js key to press, and whether Shift must be held.
 *   Printable keys follow the US layout, the one keysyms of X servers such as Xvfb default to.
 * - To read hooks: a uiohook keycode -> the key's name. uiohook reports keycodes, not characters, so a
 *   printable key is named by its unshifted character (`1` for both `1` and `!`) and the hook event
 *   carries the modifier state.
 */

import type { KeyName, Modifier } from '@mime-desktop/schema';
import type { Key } from '@nut-tree-fork/nut-js';

/** Name of a nut-js `Key` member, e.g. `Return`, `LeftBracket`. */
export type NutKeyName = keyof typeof Key;

/** A physical key to press, with Shift held or not. */
export interface Keystroke {
  key: NutKeyName;
  shift: boolean;
}

/** A key's name as hook events report it: a mime key name or a modifier. */
export type HookKeyName = KeyName | Modifier;

/** mime's named keys -> nut-js keys. `enter` is `Return`: nut-js `Key.Enter` is the keypad's Enter. */
const NAMED_NUT_KEYS: Record<string, NutKeyName> = {
  enter: 'Return',
  tab: 'Tab',
  escape: 'Escape',
  backspace: 'Backspace',
  delete: 'Delete',
  space: 'Space',
  up: 'Up',
  down: 'Down',
  left: 'Left',
  right: 'Right',
  home: 'Home',
  end: 'End',
  pageup: 'PageUp',
  pagedown: 'PageDown',
  insert: 'Insert',
  capslock: 'CapsLock',
  printscreen: 'Print',
  menu: 'Menu',
};

/** Modifier names -> the left-hand nut-js key (`meta` is Super on Linux, Cmd on macOS, Win on Windows). */
export const MODIFIER_NUT_KEYS: Record<Modifier, NutKeyName> = {
  ctrl: 'LeftControl',
  alt: 'LeftAlt',
  shift: 'LeftShift',
  meta: 'LeftSuper',
};

/** Unshifted punctuation keys of the US layout. */
const PUNCTUATION_NUT_KEYS: Record<string, NutKeyName> = {
  ' ': 'Space',
  '`': 'Grave',
  '-': 'Minus',
  '=': 'Equal',
  '[': 'LeftBracket',
  ']': 'RightBracket',
  '\\': 'Backslash',
  ';': 'Semicolon',
  "'": 'Quote',
  ',': 'Comma',
  '.': 'Period',
  '/': 'Slash',
};

/** Shifted symbol -> the unshifted character on the same US-layout key. */
const SHIFTED_SYMBOLS: Record<string, string> = {
  '~': '`',
  '!': '1',
  '@': '2',
  '#': '3',
  $: '4',
  '%': '5',
  '^': '6',
  '&': '7',
  '*': '8',
  '(': '9',
  ')': '0',
  _: '-',
  '+': '=',
  '{': '[',
  '}': ']',
  '|': '\\',
  ':': ';',
  '"': "'",
  '<': ',',
  '>': '.',
  '?': '/',
};

function unshiftedKey(char: string): NutKeyName | undefined {
  if (char >= 'a' && char <= 'z') return char.toUpperCase() as NutKeyName;
  if (char >= '0' && char <= '9') return `Num${char}` as NutKeyName;
  return PUNCTUATION_NUT_KEYS[char];
}

/**
 * The keystroke that types `char` (one printable ASCII character, `\n` or `\t`) on a US layout, or
 * undefined for anything else (type those through the clipboard).
 */
export function keystrokeForChar(char: string): Keystroke | undefined {
  if (char === '\n') return { key: 'Return', shift: false };
  if (char === '\t') return { key: 'Tab', shift: false };
  if (char >= 'A' && char <= 'Z') return { key: char as NutKeyName, shift: true };
  const shiftedBase = SHIFTED_SYMBOLS[char];
  if (shiftedBase !== undefined) {
    const key = unshiftedKey(shiftedBase);
    return key && { key, shift: true };
  }
  const key = unshiftedKey(char);
  return key && { key, shift: false };
}

const SHIFTED_BY_BASE: Record<string, string> = Object.fromEntries(
  Object.entries(SHIFTED_SYMBOLS).map(([shifted, base]) => [base, shifted]),
);

/**
 * The character a key types on a US layout, `shift` held or not (`1` -> `!`, `a` -> `A`, `space` ->
 * ` `), or undefined for keys that type no character (enter, tab, arrows, modifiers...).
 */
export function typedChar(key: HookKeyName, shift: boolean): string | undefined {
  if (key === 'space') return ' ';
  if (key.length !== 1 || key < ' ' || key > '~') return undefined;
  if (!shift) return key;
  if (key >= 'a' && key <= 'z') return key.toUpperCase();
  return SHIFTED_BY_BASE[key] ?? key;
}

/**
 * The keystroke for a chord's key (a mime key name, a modifier, or a printable character; a shifted
 * symbol such as `+` adds Shift), or undefined if mime has no key for it.
 */
export function keystrokeForKey(name: HookKeyName): Keystroke | undefined {
  const named = NAMED_NUT_KEYS[name];
  if (named) return { key: named, shift: false };
  if (/^f([1-9]|1\d|2[0-4])$/.test(name)) return { key: name.toUpperCase() as NutKeyName, shift: false };
  if (name in MODIFIER_NUT_KEYS) return { key: MODIFIER_NUT_KEYS[name as Modifier], shift: false };
  return name.length === 1 ? keystrokeForChar(name) : undefined;
}

/** uiohook `UiohookKey` member names that are not simply a letter, digit or F-key. */
const UIOHOOK_NAMES: Record<string, HookKeyName> = {
  Backspace: 'backspace',
  Tab: 'tab',
  Enter: 'enter',
  CapsLock: 'capslock',
  Escape: 'escape',
  Space: 'space',
  PageUp: 'pageup',
  PageDown: 'pagedown',
  End: 'end',
  Home: 'home',
  ArrowLeft: 'left',
  ArrowUp: 'up',
  ArrowRight: 'right',
  ArrowDown: 'down',
  Insert: 'insert',
  Delete: 'delete',
  PrintScreen: 'printscreen',
  Semicolon: ';',
  Equal: '=',
  Comma: ',',
  Minus: '-',
  Period: '.',
  Slash: '/',
  Backquote: '`',
  BracketLeft: '[',
  Backslash: '\\',
  BracketRight: ']',
  Quote: "'",
  Ctrl: 'ctrl',
  CtrlRight: 'ctrl',
  Alt: 'alt',
  AltRight: 'alt',
  Shift: 'shift',
  ShiftRight: 'shift',
  Meta: 'meta',
  MetaRight: 'meta',
  NumpadMultiply: '*',
  NumpadAdd: '+',
  NumpadSubtract: '-',
  NumpadDecimal: '.',
  NumpadDivide: '/',
  NumpadEnter: 'enter',
  NumpadEnd: 'end',
  NumpadArrowDown: 'down',
  NumpadPageDown: 'pagedown',
  NumpadArrowLeft: 'left',
  NumpadArrowRight: 'right',
  NumpadHome: 'home',
  NumpadArrowUp: 'up',
  NumpadPageUp: 'pageup',
  NumpadInsert: 'insert',
  NumpadDelete: 'delete',
};

function hookNameFor(member: string): HookKeyName | undefined {
  if (/^[A-Z]$/.test(member)) return member.toLowerCase();
  if (/^\d$/.test(member)) return member;
  if (/^F\d+$/.test(member)) return member.toLowerCase();
  const numpadDigit = /^Numpad(\d)$/.exec(member);
  if (numpadDigit) return numpadDigit[1];
  return UIOHOOK_NAMES[member];
}

/**
 * Builds the keycode -> name table from uiohook-napi's `UiohookKey` export (passed in, since the
 * module loads only after the display probe). Keys mime has no name for (NumLock, ScrollLock) are
 * left out; hook events report them with `key: null` and the raw keycode.
 */
export function buildKeycodeNames(
  uiohookKey: Readonly<Record<string, number>>,
): ReadonlyMap<number, HookKeyName> {
  const names = new Map<number, HookKeyName>();
  for (const [member, keycode] of Object.entries(uiohookKey)) {
    const name = hookNameFor(member);
    if (name !== undefined && !names.has(keycode)) names.set(keycode, name);
  }
  return names;
}
