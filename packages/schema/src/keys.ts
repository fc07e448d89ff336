import { MimeError } from './errors.ts';
/**
 * Key chords as mime writes them: lower-case names joined by `+`, modifiers first in a fixed order,
 * e.g. `ctrl+shift+t`, `enter`, `alt+f4`, `ctrl++`. Older ai_mime names (`Key.enter`, `ENTER`,
 * `cmd+space`, `ctrl_l`) are read and normalized.
 */

export const MODIFIERS = ['ctrl', 'alt', 'shift', 'meta'] as const;
export type Modifier = (typeof MODIFIERS)[number];

export const NAMED_KEYS = [
  'enter',
  'tab',
  'escape',
  'backspace',
  'delete',
  'space',
  'up',
  'down',
  'left',
  'right',
  'home',
  'end',
  'pageup',
  'pagedown',
  'insert',
  'capslock',
  'printscreen',
  'menu',
  ...Array.from({ length: 24 }, (_, i) => `f${i + 1}`),
] as const;
export type NamedKey = (typeof NAMED_KEYS)[number];

/** A key: a named key, or one printable ASCII character (`a`, `7`, `/`, `+`). */
export type KeyName = NamedKey | (string & {});

export interface KeyChord {
  modifiers: Modifier[];
  key: KeyName;
}

const MODIFIER_ALIASES: Record<string, Modifier> = {
  ctrl: 'ctrl',
  control: 'ctrl',
  alt: 'alt',
  option: 'alt',
  opt: 'alt',
  altgr: 'alt',
  shift: 'shift',
  meta: 'meta',
  cmd: 'meta',
  command: 'meta',
  super: 'meta',
  win: 'meta',
  windows: 'meta',
};

const KEY_ALIASES: Record<string, KeyName> = {
  return: 'enter',
  esc: 'escape',
  del: 'delete',
  spacebar: 'space',
  arrowup: 'up',
  arrowdown: 'down',
  arrowleft: 'left',
  arrowright: 'right',
  page_up: 'pageup',
  page_down: 'pagedown',
  pgup: 'pageup',
  pgdn: 'pagedown',
  caps_lock: 'capslock',
  print_screen: 'printscreen',
  plus: '+',
  minus: '-',
  equal: '=',
  comma: ',',
  period: '.',
  slash: '/',
  backslash: '\\',
  semicolon: ';',
  quote: "'",
  backquote: '`',
  bracketleft: '[',
  bracketright: ']',
};

const NAMED = new Set<string>(NAMED_KEYS);

/** Thrown by {@link parseKeyChord}; `message` names the bad part and lists what is accepted. */
export class KeyChordError extends MimeError {
  constructor(message: string) {
    super('MIME_BAD_KEY', message, { exit: 'usage' });
  }
}

function normalizeToken(token: string): string {
  let t = token.trim();
  if (t.length > 1) {
    t = t.toLowerCase().replace(/^key\./, '');
    t = t.replace(/_(l|r)$/, '');
  }
  return t;
}

/** Splits on `+`, keeping a literal `+` key (`ctrl++`, `+`). */
function splitChord(text: string): string[] {
  if (text === '+') return ['+'];
  const parts = text.split('+');
  if (text.endsWith('++')) return [...parts.slice(0, -2), '+'];
  return parts;
}

/** Parses `ctrl+shift+t`, `Key.enter`, `CMD+SPACE` into a chord; throws {@link KeyChordError}. */
export function parseKeyChord(text: string): KeyChord {
  if (typeof text !== 'string' || text.trim() === '') {
    throw new KeyChordError('empty key chord; write a key such as "enter" or a chord such as "ctrl+a"');
  }
  const tokens = splitChord(text.trim()).map(normalizeToken);
  const modifiers = new Set<Modifier>();
  let key: KeyName | undefined;
  for (const [index, token] of tokens.entries()) {
    const last = index === tokens.length - 1;
    const modifier = MODIFIER_ALIASES[token];
    if (token === '') throw new KeyChordError(`"${text}" has an empty part; join keys with a single "+"`);
    if (!last) {
      if (!modifier) {
        throw new KeyChordError(
          `"${token}" in "${text}" is not a modifier; only ${MODIFIERS.join(', ')} may come before the key`,
        );
      }
      modifiers.add(modifier);
      continue;
    }
    if (modifier) {
      key = modifier;
    } else {
      const resolved = KEY_ALIASES[token] ?? token;
      const printable = resolved.length === 1 && resolved >= ' ' && resolved <= '~';
      if (!NAMED.has(resolved) && !printable) {
        throw new KeyChordError(
          `unknown key "${token}" in "${text}"; use a single printable character or one of: ${NAMED_KEYS.slice(0, 18).join(', ')}, f1-f24`,
        );
      }
      key = resolved.length === 1 ? resolved.toLowerCase() : resolved;
    }
  }
  return { modifiers: MODIFIERS.filter((m) => modifiers.has(m)), key: key as KeyName };
}

/** Canonical text of a chord: modifiers in the order ctrl, alt, shift, meta, then the key. */
export function formatKeyChord(chord: KeyChord): string {
  const mods = MODIFIERS.filter((m) => chord.modifiers.includes(m));
  return [...mods, chord.key].join('+');
}

/** Normalizes any accepted spelling to canonical text (`Key.ENTER` -> `enter`). */
export function normalizeKeyChord(text: string): string {
  return formatKeyChord(parseKeyChord(text));
}
