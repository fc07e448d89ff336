import { createRequire } from 'node:module';
import type { Worker } from 'tesseract.js';
import type { Box } from './image.ts';
import { digestOf, Remembered } from './remembered.ts';
import { activeVisionProcess, type VisionProcess } from './vision-process.ts';

/** A word read off an image, with its box in the image's pixels. */
export interface OcrWord {
  text: string;
  confidence: number;
  box: Box;
}

/** How tesseract segments the page: scattered words, or one line. */
type PageMode = 'SPARSE_TEXT' | 'SINGLE_LINE';

/**
 * The revision of how mime reads with tesseract (what `encodeForOcr` hands it, the page modes, the
 * dpi): bump it with any change to them, so words cached from the older way are read again.
 */
const READER_REVISION = 1;

let engineVersion: string | undefined;

/**
 * The version of what reads words (tesseract.js, its English data and mime's way of reading): the
 * same image read by the same version gives the same words, so reads may be cached under it.
 */
export function ocrEngineVersion(): string {
  if (engineVersion === undefined) {
    const require = createRequire(import.meta.url);
    const versionOf = (name: string) => (require(`${name}/package.json`) as { version: string }).version;
    engineVersion = `tesseract.js ${versionOf('tesseract.js')}; eng ${versionOf('@tesseract.js-data/eng')}; mime reader ${READER_REVISION}`;
  }
  return engineVersion;
}

/** tesseract.js (about 25 ms to load) is loaded at the first read, not with mime. */
const tesseract = () => import('tesseract.js');

/**
 * An OCR engine: one tesseract.js worker (offline, English data from `@tesseract.js-data/eng`),
 * loaded and started on the first read (about 1 s) and reused for every read after it (0.5-1 s a 1280x800
 * page); reads are queued. Its owner closes it: the worker thread keeps a process alive.
 * When the process asked for a vision process (`useVisionProcess`), the reads go there instead, to
 * the one worker it holds for all engines.
 */
export class OcrEngine {
  #worker: Promise<Worker> | undefined;
  #queue: Promise<unknown> = Promise.resolve();
  /** The vision process this engine has read through, when it reads there. */
  #remote: VisionProcess | undefined;
  /** The reads last made, by the image's bytes (see Remembered). */
  readonly #wordReads = new Remembered<readonly OcrWord[]>(128);
  readonly #lineReads = new Remembered<string>(128);

  /**
   * The words of an image (PNG bytes); words under `minConfidence` (default 50) are dropped. The same
   * image read again is answered from memory.
   */
  readWords(png: Buffer, options: { minConfidence?: number } = {}): Promise<OcrWord[]> {
    const minConfidence = options.minConfidence ?? 50;
    const read = this.#wordReads.get(`${digestOf(png)};${minConfidence}`, async () => {
      const remote = this.#remoteFor();
      if (remote) return remote.call('readWords', png, options);
      const { words } = await this.#recognize(png, 'SPARSE_TEXT');
      return words.filter((w) => w.confidence >= minConfidence);
    });
    return read.then((words) => words.map((w) => ({ ...w, box: { ...w.box } })));
  }

  /** An image holding one line of text (a button's label), trimmed; the same image read again is answered from memory. */
  readLine(png: Buffer): Promise<string> {
    return this.#lineReads.get(digestOf(png), async () => {
      const remote = this.#remoteFor();
      if (remote) return remote.call('readLine', png);
      return (await this.#recognize(png, 'SINGLE_LINE')).text.trim();
    });
  }

  /**
   * Starts the worker ahead of the first read (about 1 s of CPU), so that read does not wait for it;
   * in a vision process, that process's worker.
   */
  async start(): Promise<void> {
    const remote = this.#remoteFor();
    if (remote) return remote.call('start');
    await this.#startWorker();
  }

  /** Whether the worker has been started (in a vision process: this engine has read, and it still runs). */
  get started(): boolean {
    return this.#worker !== undefined || this.#remote?.pid !== undefined;
  }

  /**
   * Ends the worker (a later read starts a new one); a vision process's worker ends when that
   * process idles. A read under way ends first (tesseract.js throws outside any promise when its
   * worker goes away mid-call); the reads queued behind it fail.
   */
  async close(): Promise<void> {
    this.#remote = undefined;
    const current = this.#worker;
    this.#worker = undefined;
    if (!current) return;
    await this.#queue;
    await (await current).terminate();
  }

  #remoteFor(): VisionProcess | undefined {
    const remote = activeVisionProcess();
    if (remote) this.#remote = remote;
    return remote;
  }

  #startWorker(): Promise<Worker> {
    this.#worker ??= tesseract().then(({ createWorker, OEM }) => {
      const eng = createRequire(import.meta.url)('@tesseract.js-data/eng') as {
        langPath: string;
        gzip: boolean;
      };
      return createWorker('eng', OEM.LSTM_ONLY, {
        langPath: eng.langPath,
        gzip: eng.gzip,
        cacheMethod: 'none',
      });
    });
    return this.#worker;
  }

  #recognize(png: Buffer, mode: PageMode): Promise<{ words: OcrWord[]; text: string }> {
    const worker = this.#startWorker();
    const job = this.#queue.then(async () => {
      const [w, { PSM }] = await Promise.all([worker, tesseract()]);
      if (this.#worker !== worker) throw new Error('the OCR engine was closed before this read');
      await w.setParameters({ tessedit_pageseg_mode: PSM[mode], user_defined_dpi: '96' });
      const { data } = await w.recognize(png, {}, { blocks: true, text: true });
      const words: OcrWord[] = [];
      for (const block of data.blocks ?? []) {
        for (const paragraph of block.paragraphs) {
          for (const line of paragraph.lines) {
            for (const word of line.words) {
              const { x0, y0, x1, y1 } = word.bbox;
              words.push({
                text: word.text,
                confidence: word.confidence,
                box: { x: x0, y: y0, width: x1 - x0, height: y1 - y0 },
              });
            }
          }
        }
      }
      return { words, text: data.text };
    });
    this.#queue = job.catch(() => undefined);
    return job;
  }
}

/** Text as words compare: lower case, punctuation and spaces dropped. */
export const normalizeText = (text: string) => text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');
const normalize = normalizeText;
const sameLine = (a: Box, b: Box) =>
  Math.abs(a.y + a.height / 2 - (b.y + b.height / 2)) < Math.max(a.height, b.height) * 0.6;

/** Boxes of each place where consecutive words on one line spell `phrase` (case and punctuation ignored). */
export function findPhrase(words: readonly OcrWord[], phrase: string): Box[] {
  const wanted = phrase.split(/\s+/).map(normalize).filter(Boolean);
  const found: Box[] = [];
  if (wanted.length === 0) return found;
  for (let i = 0; i + wanted.length <= words.length; i += 1) {
    const run = words.slice(i, i + wanted.length);
    const first = run[0] as OcrWord;
    if (run.every((w, k) => normalize(w.text) === wanted[k] && sameLine(w.box, first.box))) {
      found.push(unionBox(run.map((w) => w.box)));
    }
  }
  return found;
}

/**
 * Text folded over OCR's known confusions: case and punctuation dropped, `rn` read as `m`, 1, l, I
 * and | as one letter, 0 and O as one.
 */
export function foldOcr(text: string): string {
  return normalize(text).replace(/rn/gu, 'm').replace(/[1i]/gu, 'l').replace(/0/gu, 'o');
}

/** The lines of `words` (top to bottom), each its words in reading order with their union box. */
export function ocrLines(words: readonly OcrWord[]): { words: OcrWord[]; box: Box; text: string }[] {
  const lines: OcrWord[][] = [];
  for (const word of [...words].sort((a, b) => a.box.y + a.box.height / 2 - (b.box.y + b.box.height / 2))) {
    const line = lines.find((l) => sameLine((l[0] as OcrWord).box, word.box));
    if (line) line.push(word);
    else lines.push([word]);
  }
  return lines.map((line) => {
    const sorted = line.sort((a, b) => a.box.x - b.box.x);
    return {
      words: sorted,
      box: unionBox(sorted.map((w) => w.box)),
      text: sorted.map((w) => w.text).join(' '),
    };
  });
}

/**
 * Whether a line read by OCR shows `phrase`, tolerant of OCR's confusions (see {@link foldOcr}) and
 * of words split or joined differently: the folded phrase must stand in the folded line.
 */
export function lineShows(line: string, phrase: string): boolean {
  const wanted = foldOcr(phrase);
  return wanted !== '' && foldOcr(line).includes(wanted);
}

/** The words on the same line as `anchor` and to its right, in reading order. */
export function wordsRightOf(words: readonly OcrWord[], anchor: Box): OcrWord[] {
  return words
    .filter((w) => sameLine(w.box, anchor) && w.box.x >= anchor.x + anchor.width - 2)
    .sort((a, b) => a.box.x - b.box.x);
}

/** The words on the same line as `anchor` and to its left, in reading order. */
export function wordsLeftOf(words: readonly OcrWord[], anchor: Box): OcrWord[] {
  return words
    .filter((w) => sameLine(w.box, anchor) && w.box.x + w.box.width <= anchor.x + 2)
    .sort((a, b) => a.box.x - b.box.x);
}

/** The smallest box holding all of `boxes`. */
export function unionBox(boxes: readonly Box[]): Box {
  const x = Math.min(...boxes.map((b) => b.x));
  const y = Math.min(...boxes.map((b) => b.y));
  const right = Math.max(...boxes.map((b) => b.x + b.width));
  const bottom = Math.max(...boxes.map((b) => b.y + b.height));
  return { x, y, width: right - x, height: bottom - y };
}
