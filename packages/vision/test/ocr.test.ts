import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { findPhrase, lineShows, OcrEngine, ocrLines } from '../src/index.ts';

const SCREEN = join(import.meta.dirname, '..', '..', 'replay', 'assets', 'probe-demo-app.png');
const engine = new OcrEngine();

afterAll(async () => {
  await engine.close();
});

describe('OcrEngine', () => {
  it('starts its worker on the first read and reuses it for the next ones', async () => {
    expect(engine.started).toBe(false);
    const png = await readFile(SCREEN);
    const first = await engine.readWords(png);
    expect(engine.started).toBe(true);
    expect(findPhrase(first, 'Now playing:')).toHaveLength(1);
    const [second, third] = await Promise.all([engine.readWords(png), engine.readWords(png)]);
    expect(second.map((w) => w.text)).toEqual(first.map((w) => w.text));
    expect(third.map((w) => w.text)).toEqual(first.map((w) => w.text));
    await engine.close();
    expect(engine.started).toBe(false);
    expect((await engine.readWords(png)).length).toBe(first.length);
  }, 60_000);

  it('starts its worker ahead of a read when asked, and the read uses it', async () => {
    const ahead = new OcrEngine();
    try {
      expect(ahead.started).toBe(false);
      await ahead.start();
      expect(ahead.started).toBe(true);
      const words = await ahead.readWords(await readFile(SCREEN));
      expect(findPhrase(words, 'Now playing:')).toHaveLength(1);
    } finally {
      await ahead.close();
    }
    expect(ahead.started).toBe(false);
  }, 60_000);
});

describe('closing an engine while it reads', () => {
  it('fails the reads it has not started and leaves no worker (the process goes on)', async () => {
    const png = await readFile(SCREEN);
    const closing = new OcrEngine();
    const reads = [closing.readWords(png), closing.readWords(png)].map((r) => r.then(() => 'read', String));
    await closing.close();
    expect(await Promise.all(reads)).toEqual([
      'Error: the OCR engine was closed before this read',
      'Error: the OCR engine was closed before this read',
    ]);
    expect(closing.started).toBe(false);
  }, 60_000);
});

describe('reading a line tolerant of OCR', () => {
  const word = (text: string, x: number, y: number) => ({
    text,
    confidence: 90,
    box: { x, y, width: 8 * text.length, height: 14 },
  });

  it('takes 1/l/I, 0/O and rn/m for one another, and words split or joined', () => {
    expect(lineShows('Email: yusufl5@mail.corn', 'yusuf15@mail.com')).toBe(true);
    expect(lineShows('Code: O7-IO', '07-10')).toBe(true);
    expect(lineShows('Sent to Bob Jo nes in Rome', 'Bob Jones')).toBe(true);
    // Another value is not shown, nor a value cut short.
    expect(lineShows('Sent to Bob Jones in ', 'Rome')).toBe(false);
    expect(lineShows('Email: yusuf@mail.com', 'yusuf15@mail.com')).toBe(false);
    expect(lineShows('anything', '')).toBe(false);
  });

  it('groups words into lines, top to bottom, each in reading order', () => {
    const lines = ocrLines([
      word('Rome', 120, 41),
      word('Street:', 10, 80),
      word('City:', 10, 40),
      word('22', 80, 79),
    ]);
    expect(lines.map((l) => l.text)).toEqual(['City: Rome', 'Street: 22']);
    expect(lines[0]?.box).toEqual({ x: 10, y: 40, width: 142, height: 15 });
  });
});
