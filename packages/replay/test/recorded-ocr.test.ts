import { execFile } from 'node:child_process';
import { chmod, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { CHECKS_CACHE_FOLDER, OcrCacheEntry } from '@mime-desktop/schema';
import { useTempDirs } from '@mime-desktop/test-support/e2e-rig';
import { decodeImage, OcrEngine, ocrEngineVersion, type RgbaImage } from '@mime-desktop/vision';
import sharp from 'sharp';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { readCrop } from '../src/actions/screen-text.ts';
import { RecordedOcr } from '../src/recorded/recorded-ocr.ts';

const tempDirs = useTempDirs();
const ocr = new OcrEngine();
afterAll(() => ocr.close());

/** A recorded frame: a white screen with a line of text at y 60. */
async function frame(text: string): Promise<RgbaImage> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="400" height="120"><rect width="400" height="120" fill="white"/><text x="20" y="60" font-family="DejaVu Sans, sans-serif" font-size="18">${text}</text></svg>`;
  return decodeImage(await sharp(Buffer.from(svg)).png().toBuffer());
}

const line = { x: 10, y: 40, width: 300, height: 30 };
const cacheDir = (workflow: string) => join(workflow, CHECKS_CACHE_FOLDER, 'ocr');

/** Counts the reads that reach the OCR engine (a cached crop is not read). */
function counted(): { reads: () => number; restore: () => void } {
  const spy = vi.spyOn(ocr, 'readWords');
  return { reads: () => spy.mock.calls.length, restore: () => spy.mockRestore() };
}

/** Makes folders read-only for this process (root ignores modes: they are made immutable then). */
async function readOnly(dirs: readonly string[]): Promise<() => Promise<void>> {
  const root = process.getuid?.() === 0;
  for (const dir of dirs) {
    if (root) await promisify(execFile)('chattr', ['+i', dir]);
    else await chmod(dir, 0o555);
  }
  return async () => {
    for (const dir of dirs) {
      if (root) await promisify(execFile)('chattr', ['-i', dir]);
      else await chmod(dir, 0o700);
    }
  };
}

describe('the recorded frames’ OCR kept in the workflow folder', { timeout: 60_000 }, () => {
  it('reads the cache but writes nothing where the folder is to stay as it is (runs kept elsewhere)', async () => {
    const workflow = await tempDirs('mime-ocr-cache-');
    const image = await frame('Sent to Ann Lee in Paris');
    const words = await new RecordedOcr(workflow, ocr, { write: false }).readCrop(image, line);
    expect(words.map((w) => w.text).join(' ')).toContain('Ann Lee');
    expect(await readdir(workflow)).toEqual([]);
    // What a writing run kept is read by one that writes nothing.
    await new RecordedOcr(workflow, ocr).readCrop(image, line);
    const ocrReads = counted();
    try {
      await new RecordedOcr(workflow, ocr, { write: false }).readCrop(image, line);
      expect(ocrReads.reads()).toBe(0);
    } finally {
      ocrReads.restore();
    }
  });

  it('reads a crop once: a later run takes its words from the cache, where they were read', async () => {
    const workflow = await tempDirs('mime-ocr-cache-');
    const image = await frame('Sent to Ann Lee in Paris');
    const ocrReads = counted();
    try {
      const first = await new RecordedOcr(workflow, ocr).readCrop(image, line);
      expect(first.map((w) => w.text).join(' ')).toContain('Ann Lee');
      expect(ocrReads.reads()).toBe(1);
      const [name] = await readdir(cacheDir(workflow));
      const entry = OcrCacheEntry.parse(
        JSON.parse(await readFile(join(cacheDir(workflow), name ?? ''), 'utf8')),
      );
      expect(entry).toMatchObject({ engine: ocrEngineVersion() });
      expect(name).toBe(`${entry.key}.json`);

      const again = await new RecordedOcr(workflow, ocr).readCrop(image, line);
      expect(ocrReads.reads()).toBe(1);
      expect(again).toEqual(first);
      // The same words as an uncached read, in the frame's pixels.
      expect(again).toEqual(await readCrop(ocr, image, line));
      // Another frame's crop is read, not taken from this one's entry.
      const other = await new RecordedOcr(workflow, ocr).readCrop(
        await frame('Sent to Bob Jones in Rome'),
        line,
      );
      expect(other.map((w) => w.text).join(' ')).toContain('Bob Jones');
      expect(await readdir(cacheDir(workflow))).toHaveLength(2);
      // The same crop read down to a lower confidence (a caret painted over) is an entry of its own:
      // words dropped at the default may be kept there.
      const reads = ocrReads.reads();
      await new RecordedOcr(workflow, ocr).readCrop(image, line, 25);
      expect(ocrReads.reads()).toBe(reads + 1);
      expect(await readdir(cacheDir(workflow))).toHaveLength(3);
      await new RecordedOcr(workflow, ocr).readCrop(image, line, 25);
      expect(ocrReads.reads()).toBe(reads + 1);
    } finally {
      ocrReads.restore();
    }
  });

  it('reads again and replaces an entry that is damaged or of another engine', async () => {
    const workflow = await tempDirs('mime-ocr-cache-');
    const image = await frame('City: Paris');
    const words = await new RecordedOcr(workflow, ocr).readCrop(image, line);
    const [name] = await readdir(cacheDir(workflow));
    const file = join(cacheDir(workflow), name ?? '');
    const good = await readFile(file, 'utf8');
    const ocrReads = counted();
    try {
      await writeFile(file, good.slice(0, good.length / 2));
      expect(await new RecordedOcr(workflow, ocr).readCrop(image, line)).toEqual(words);
      expect(ocrReads.reads()).toBe(1);
      expect(await readFile(file, 'utf8')).toBe(good);

      // Words an older engine read are not taken, though the file has the key's name.
      const stale = {
        ...JSON.parse(good),
        engine: 'tesseract.js 5.0.0; eng 1.0.0; mime reader 0',
        words: [],
      };
      await writeFile(file, JSON.stringify(stale));
      expect(await new RecordedOcr(workflow, ocr).readCrop(image, line)).toEqual(words);
      expect(ocrReads.reads()).toBe(2);
      expect(await readFile(file, 'utf8')).toBe(good);
    } finally {
      ocrReads.restore();
    }
  });

  it('still reads in a workflow folder that cannot be written to, and uses what it holds', async () => {
    const workflow = await tempDirs('mime-ocr-cache-');
    const kept = await frame('Recipient: Adams');
    const keptWords = await new RecordedOcr(workflow, ocr).readCrop(kept, line);
    const fresh = await frame('Street: 22 Pine Street');
    const never = await tempDirs('mime-ocr-cache-');
    const undo = await readOnly([workflow, join(workflow, CHECKS_CACHE_FOLDER), cacheDir(workflow), never]);
    const ocrReads = counted();
    try {
      // The folders are really read-only for this process.
      await expect(writeFile(join(cacheDir(workflow), 'probe'), '')).rejects.toThrow();
      await expect(writeFile(join(never, 'probe'), '')).rejects.toThrow();
      const cache = new RecordedOcr(workflow, ocr);
      expect(await cache.readCrop(kept, line)).toEqual(keptWords);
      expect(ocrReads.reads()).toBe(0);
      const read = await cache.readCrop(fresh, line);
      expect(read.map((w) => w.text).join(' ')).toContain('Pine');
      expect(ocrReads.reads()).toBe(1);
      expect(await readdir(cacheDir(workflow))).toHaveLength(1);
      // A workflow never replayed, read-only: read, and no cache folder made.
      expect(await new RecordedOcr(never, ocr).readCrop(fresh, line)).toEqual(read);
      expect(await readdir(never)).toEqual([]);
    } finally {
      ocrReads.restore();
      await undo();
    }
  });
});
