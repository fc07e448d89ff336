import { describe, expect, it } from 'vitest';
import { formatKeyChord, KeyChordError, normalizeKeyChord, parseKeyChord } from '../src/keys.ts';

describe('key chords', () => {
  it('parses modifiers in any order into the canonical order', () => {
    expect(parseKeyChord('shift+ctrl+T')).toEqual({ modifiers: ['ctrl', 'shift'], key: 't' });
    expect(normalizeKeyChord('Shift+Ctrl+t')).toBe('ctrl+shift+t');
    expect(formatKeyChord({ modifiers: ['meta', 'alt'], key: 'f4' })).toBe('alt+meta+f4');
  });

  it('reads ai_mime and pynput spellings', () => {
    expect(normalizeKeyChord('Key.enter')).toBe('enter');
    expect(normalizeKeyChord('ENTER')).toBe('enter');
    expect(normalizeKeyChord('cmd+space')).toBe('meta+space');
    expect(normalizeKeyChord('Key.ctrl_l+a')).toBe('ctrl+a');
    expect(normalizeKeyChord('return')).toBe('enter');
    expect(normalizeKeyChord('ArrowDown')).toBe('down');
  });

  it('keeps a literal plus key and punctuation', () => {
    expect(parseKeyChord('ctrl++')).toEqual({ modifiers: ['ctrl'], key: '+' });
    expect(parseKeyChord('+')).toEqual({ modifiers: [], key: '+' });
    expect(normalizeKeyChord('ctrl+/')).toBe('ctrl+/');
    expect(normalizeKeyChord('F12')).toBe('f12');
  });

  it('accepts a lone modifier as the key', () => {
    expect(parseKeyChord('shift')).toEqual({ modifiers: [], key: 'shift' });
    expect(normalizeKeyChord('ctrl+shift')).toBe('ctrl+shift');
  });

  it('says what is wrong with a bad chord', () => {
    expect(() => parseKeyChord('ctrl+foo')).toThrow(/unknown key "foo" in "ctrl\+foo"/);
    expect(() => parseKeyChord('a+b')).toThrow(/"a" in "a\+b" is not a modifier/);
    expect(() => parseKeyChord('')).toThrow(KeyChordError);
    expect(() => parseKeyChord('f25')).toThrow(/unknown key "f25"/);
  });
});
