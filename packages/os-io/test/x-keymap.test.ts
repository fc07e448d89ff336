/**
 * The keymap and the key-to-text resolution on rows as Xvfb's `GetKeyboardMapping` returns them after
 * `setxkbmap de` (columns: group 1 levels 1-2, group 2 levels 1-2, group 1 levels 3-4, ...). The same
 * paths run for real under Xvfb in typing-apps.test.ts and tests/e2e/record.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { KeyTextResolver } from '../src/key-text.ts';
import { composeDead, deadKeyOf, Keymap, keysymToChar } from '../src/x-keymap.ts';

const MIN = 8;
const GERMAN_ROWS: Record<number, number[]> = {
  20: [0xdf, 0x3f, 0xdf, 0x3f, 0x5c, 0xbf, 0x1001e9e],
  21: [0xfe51, 0xfe50, 0xfe51, 0xfe50, 0xfe5b, 0xfe5c, 0xfe5b],
  24: [0x71, 0x51, 0x71, 0x51, 0x40, 0x7d9, 0x40],
  26: [0x65, 0x45, 0x65, 0x45, 0x20ac, 0x20ac, 0x20ac],
  29: [0x7a, 0x5a, 0x7a, 0x5a, 0x2190, 0xa5, 0x2190],
  34: [0xfc, 0xdc, 0xfc, 0xdc, 0xfe57, 0xfe58, 0xfe57],
  50: [0xffe1, 0, 0xffe1, 0, 0, 0, 0],
  64: [0xffe9, 0xffe7, 0xffe9, 0xffe7, 0, 0, 0],
  65: [0x20, 0, 0x20, 0, 0x20, 0, 0x20],
  108: [0xfe03, 0, 0xfe03, 0, 0, 0, 0],
};
const german = new Keymap(
  MIN,
  Array.from({ length: 256 - MIN }, (_, i) => GERMAN_ROWS[i + MIN] ?? [0, 0, 0, 0, 0, 0, 0]),
);

// uiohook codes: physical key positions (X keycode - 8 in the typing block).
const code = (keycode: number) => keycode - 8;
const ALT_RIGHT = 0x0e38;

describe('keysyms as characters', () => {
  it('reads Latin-1, Unicode and legacy keysyms, and none for function keys', () => {
    expect(keysymToChar(0xe4)).toBe('ä');
    expect(keysymToChar(0x1001e9e)).toBe('ẞ');
    expect(keysymToChar(0x20ac)).toBe('€');
    expect(keysymToChar(0x6c1)).toBe('а'); // Cyrillic_a
    expect(keysymToChar(0xff0d)).toBeUndefined(); // Return
    expect(keysymToChar(0xfe51)).toBeUndefined(); // dead_acute
  });

  it('composes dead keys like GTK: é, the accent alone after space, accent and letter otherwise', () => {
    const acute = deadKeyOf(0xfe51);
    if (!acute) throw new Error('dead_acute is a dead key');
    expect(composeDead(acute, 'e')).toBe('é');
    expect(composeDead(acute, 'E')).toBe('É');
    expect(composeDead(acute, ' ')).toBe('´');
    expect(composeDead(acute, 'q')).toBe('´q');
  });
});

describe('Keymap', () => {
  it('finds the key and level of a character, AltGr ones included', () => {
    expect(german.placeOf('@')).toEqual({ keycode: 24, level: 2 });
    expect(german.placeOf('Q')).toEqual({ keycode: 24, level: 1 });
    expect(german.placeOf('€')).toEqual({ keycode: 26, level: 2 });
    expect(german.placeOf('z')).toEqual({ keycode: 29, level: 0 });
    expect(german.placeOf('中')).toBeUndefined();
    expect(german.level3Keycode).toBe(108);
    expect(german.shiftKeycode).toBe(50);
  });

  it('lists keycodes without keysyms as spare, highest first', () => {
    const spare = german.spareKeycodes();
    expect(spare[0]).toBe(255);
    expect(spare).not.toContain(24);
    expect(spare).not.toContain(108);
  });
});

describe('KeyTextResolver on a German layout', () => {
  const press = (resolver: KeyTextResolver, keycode: number, modifiers: ('shift' | 'alt' | 'ctrl')[] = []) =>
    resolver.press(code(keycode), modifiers);

  it('types umlauts, Shift levels, and AltGr symbols without an alt modifier', () => {
    const resolver = new KeyTextResolver(() => german);
    expect(press(resolver, 34).text).toBe('ü');
    expect(press(resolver, 20, ['shift']).text).toBe('?');
    resolver.press(ALT_RIGHT, ['alt']);
    expect(press(resolver, 24, ['alt'])).toEqual({ text: '@', modifiers: [], key: 'q' });
    resolver.release(ALT_RIGHT);
    expect(press(resolver, 24).text).toBe('q');
  });

  it('composes a dead key with the next letter; the dead key itself types nothing yet', () => {
    const resolver = new KeyTextResolver(() => german);
    expect(press(resolver, 21).text).toBe('');
    expect(press(resolver, 26, ['shift']).text).toBe('É');
    expect(press(resolver, 21).text).toBe('');
    expect(press(resolver, 21).text).toBe('´');
  });

  it('names chord keys by the layout (ctrl+z is the key US keyboards call y) and types nothing', () => {
    const resolver = new KeyTextResolver(() => german);
    expect(press(resolver, 29, ['ctrl'])).toEqual({ modifiers: ['ctrl'], key: 'z' });
  });

  it('says a key without a code typed something it cannot tell, and says nothing without a keymap', () => {
    expect(new KeyTextResolver(() => german).press(0, [])).toEqual({ unresolved: true, modifiers: [] });
    expect(new KeyTextResolver(() => undefined).press(code(34), [])).toEqual({ modifiers: [] });
  });
});
