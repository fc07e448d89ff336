/**
 * OCR of the recorded frames, read once and kept in the workflow's `.cache/ocr/` (see the schema's
 * checks-cache.ts): a run's first outcome check needs where the recording shows the params' examples,
 * which took seconds of OCR at every replay (5-7 s on a busy machine). An entry is named by the
 * SHA-256 of the crop's pixels and the OCR engine's version, so a changed frame or another engine
 * finds none; an entry that cannot be read or does not match its name is read again and replaced.
 * The cache is only an aid: a workflow folder that cannot be written to still replays, reading each
 * time.
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { CHECKS_CACHE_FOLDER, OcrCacheEntry, readJsonFile, writeJsonAtomic } from '@mime-desktop/schema';
import {
  type Box,
  crop,
  encodeForOcr,
  type OcrEngine,
  type OcrWord,
  ocrEngineVersion,
  type RgbaImage,
} from '@mime-desktop/vision';
import { OCR_MIN_CONFIDENCE, ocrArea, placeWords } from '../actions/screen-text.ts';

/** The folder of `.cache` that holds OCR reads. */
const OCR_FOLDER = 'ocr';

export class RecordedOcr {
  readonly #workflowDir: string;
  readonly #ocr: OcrEngine;
  /** False once a write failed (a read-only folder, a full disk): later reads are not written. */
  #writable = true;

  /** `write: false`: entries are read, never written (the folder is to stay as it is). */
  constructor(workflowDir: string, ocr: OcrEngine, { write = true }: { write?: boolean } = {}) {
    this.#workflowDir = workflowDir;
    this.#ocr = ocr;
    this.#writable = write;
  }

  /** The words of a crop of a recorded frame (as `readCrop` reads them), from the cache when it holds them. */
  readonly readCrop = async (
    image: RgbaImage,
    box: Box,
    minConfidence = OCR_MIN_CONFIDENCE,
  ): Promise<OcrWord[]> => {
    const area = ocrArea(image, box);
    if (!area) return [];
    const pixels = crop(image, area);
    const engine = ocrEngineVersion();
    const key = keyOf(pixels, engine, minConfidence);
    const file = join(this.#workflowDir, CHECKS_CACHE_FOLDER, OCR_FOLDER, `${key}.json`);
    const cached = await this.#read(file, key, engine);
    if (cached) return placeWords(cached, area);
    const words = await this.#ocr.readWords(await encodeForOcr(pixels), { minConfidence });
    await this.#write(file, { key, engine, words });
    return placeWords(words, area);
  };

  /** The cached words of `key`, or null: no entry, or one damaged or of another key or engine. */
  async #read(file: string, key: string, engine: string): Promise<OcrWord[] | null> {
    const raw = await readJsonFile(file, { inside: this.#workflowDir }).catch(() => null);
    const entry = OcrCacheEntry.safeParse(raw);
    return entry.success && entry.data.key === key && entry.data.engine === engine ? entry.data.words : null;
  }

  async #write(file: string, entry: OcrCacheEntry): Promise<void> {
    if (!this.#writable) return;
    try {
      await writeJsonAtomic(file, entry, { inside: this.#workflowDir });
    } catch {
      // Not kept: the next run reads again. The check itself has its words.
      this.#writable = false;
    }
  }
}

/** The entry's name: the SHA-256 of the engine's version, the least confidence read, the crop's size and its pixels. */
function keyOf(pixels: RgbaImage, engine: string, minConfidence: number): string {
  return createHash('sha256')
    .update(`${engine}\n${minConfidence}\n${pixels.width}x${pixels.height}\n`)
    .update(pixels.data)
    .digest('hex');
}
