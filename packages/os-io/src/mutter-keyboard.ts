/**
 * The keyboard on GNOME: X keysyms pressed through mutter's remote desktop
 * (`NotifyKeyboardKeysym`), which finds each keysym a key on the session's layout and adds Shift
 * (or AltGr) itself where that key's level needs it. A character with no key on the layout is not
 * typed by mutter (it logs "No keycode found"), so text is checked against nothing here: what the
 * layout has types exactly.
 */
import { createRequire } from 'node:module';
import type { KeyChord, Modifier } from '@mime-desktop/schema';
import { InvalidInputError } from './errors.ts';
import type { KeyboardDevice } from './wayland-input.ts';
import { keysymName } from './wtype-keyboard.ts';

const UNICODE_KEYSYM = 0x0100_0000;
const RETURN = 0xff0d;
const TAB = 0xff09;

/** mime's modifiers -> the keysyms of their left keys. */
const MODIFIER_KEYSYMS: Record<Modifier, number> = {
  ctrl: 0xffe3,
  alt: 0xffe9,
  shift: 0xffe1,
  meta: 0xffeb,
};

let namedTable: Readonly<Record<string, { code: number }>> | undefined;

/** The keysym of an XKB keysym name (`Return`, `F5`, `minus`), from X.Org's keysymdef.h table. */
function keysymByName(name: string): number | null {
  namedTable ??= createRequire(import.meta.url)('x11/lib/keysyms.js') as Record<string, { code: number }>;
  return namedTable[`XK_${name}`]?.code ?? null;
}

/** The keysym that types `char`: Latin-1 by its code, anything else as a Unicode keysym. */
export function charKeysym(char: string): number {
  if (char === '\n') return RETURN;
  if (char === '\t') return TAB;
  const code = char.codePointAt(0) ?? 0;
  return (code >= 0x20 && code <= 0x7e) || (code >= 0xa0 && code <= 0xff) ? code : UNICODE_KEYSYM + code;
}

/** The keysyms pressed in order for `chord` (modifiers, then the key), released in reverse. */
export function chordKeysyms(chord: KeyChord): number[] {
  const name = keysymName(chord.key);
  const key = name !== null ? keysymByName(name) : [...chord.key].length === 1 ? charKeysym(chord.key) : null;
  if (key === null) throw new InvalidInputError(`no key to press for "${chord.key}"`);
  return [...chord.modifiers.map((m) => MODIFIER_KEYSYMS[m]), key];
}

/**
 * What the keyboard needs of mutter's session: a keysym pressed or released. The keyboard sends a key's
 * (a chord's) presses and releases at once, in order, without waiting for mutter's answer to each: on
 * Wayland the app repeats a key held past its repeat delay, and a release sent only once the press was
 * answered came that late on a busy machine ("Di Nu" typed "Dii Nu": CI 12c). One D-Bus connection
 * delivers them in the order sent.
 */
export interface KeysymSink {
  keysym(keysym: number, down: boolean): Promise<void>;
}

/** Waits `ms` unless `signal` aborts first. */
type Pause = (ms: number, signal?: AbortSignal) => Promise<void>;

/** A {@link KeyboardDevice} that presses keysyms through `sink`, `pause`d between keys. */
export function mutterKeyboard(sink: KeysymSink, pause: Pause): KeyboardDevice {
  return {
    async pressChord(chord, signal) {
      const keysyms = chordKeysyms(chord);
      await Promise.all([
        ...keysyms.map((keysym) => sink.keysym(keysym, true)),
        ...keysyms.toReversed().map((keysym) => sink.keysym(keysym, false)),
      ]);
      signal?.throwIfAborted();
    },
    async typeText(text, keyDelayMs, signal) {
      for (const [i, char] of [...text].entries()) {
        if (i > 0) await pause(keyDelayMs, signal);
        signal?.throwIfAborted();
        const keysym = charKeysym(char);
        await Promise.all([sink.keysym(keysym, true), sink.keysym(keysym, false)]);
      }
    },
  };
}
