import type { OcrWord } from '@mime-desktop/vision';
import { describe, expect, it } from 'vitest';
import { notNewlyShown, valuesNamed, wordsHold } from '../src/agent/model-claims.ts';
import { claimedExtract } from '../src/recorded/claimed.ts';

const word = (text: string, x: number, y: number): OcrWord => ({
  text,
  confidence: 90,
  box: { x, y, width: 10 * text.length, height: 12 },
});

describe("the checks of the model's word", () => {
  it('take the values the expected outcome names, never a sensitive one', () => {
    const params = [
      { name: 'song_name', display: 'Faint', sensitive: false },
      { name: 'password', display: '{password}', sensitive: true },
      { name: 'artist', display: 'Linkin Park', sensitive: false },
    ];
    expect(valuesNamed('Play Faint. Expected outcome: the app shows faint as now playing.', params)).toEqual([
      { name: 'song_name', value: 'Faint' },
    ]);
    // The instruction names it, the outcome does not: nothing to check.
    expect(valuesNamed('Search for Linkin Park. Expected outcome: results are listed.', params)).toEqual([]);
    expect(valuesNamed('Play Faint.', params)).toEqual([]);
  });

  it('want a value shown somewhere it was not when the subtask started', () => {
    const values = [{ name: 'song_name', value: 'Faint' }];
    const before = [word('Search:', 8, 10), word('Faint', 90, 10)];
    expect(notNewlyShown(values, before, before)).toEqual(values[0]);
    const now = [...before, word('Now', 8, 40), word('playing:', 50, 40), word('Faint', 140, 40)];
    expect(notNewlyShown(values, before, now)).toBeNull();
    expect(notNewlyShown(values, [], before)).toBeNull();
  });

  it('find an extracted value as a phrase, or each of its words', () => {
    const words = [word('Linkin', 8, 10), word('Park', 80, 10), word('Faint', 8, 40)];
    expect(wordsHold(words, 'Linkin Park')).toBe(true);
    expect(wordsHold(words, 'Park, Linkin')).toBe(true);
    expect(wordsHold(words, 'Numb')).toBe(false);
  });

  it('compare an extracted value with what the screen shows where the recording shows it', () => {
    expect(claimedExtract('Faint', 'Faint', 'Now playing:', 'ocr')).toMatchObject({ verdict: 'verified' });
    // A mark OCR adds or loses is not a different value; a prefix too short to tell is.
    expect(claimedExtract('Faint', 'Faint.', 'Now playing:', 'ocr')).toMatchObject({ verdict: 'verified' });
    expect(claimedExtract('Faint', 'F', 'Now playing:', 'ocr')).toMatchObject({ verdict: 'refused' });
    expect(claimedExtract('Faint', 'nothing', 'Now playing:', 'ocr')).toEqual({
      verdict: 'refused',
      read: 'ocr',
      detail:
        'the screen shows "nothing" after "Now playing:", where the recording shows this value, not "Faint"',
    });
    expect(claimedExtract('Faint', null, 'Now playing:', 'ocr')).toBeNull();
  });
});
