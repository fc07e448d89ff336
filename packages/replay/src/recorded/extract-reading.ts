/**
 * An extract read without the model: where the recording shows the example value, the words left of
 * it are its label, and on the live screen the value is what follows that label on its line. The app
 * is asked first (the element its tree names where the value stood, and its text), OCR after.
 */
import type { Accessibility } from '@mime-desktop/os-io';
import {
  type Box,
  findPhrase,
  type OcrEngine,
  type OcrWord,
  type RgbaImage,
  wordsLeftOf,
  wordsRightOf,
} from '@mime-desktop/vision';
import { type CropReader, readCrop } from '../actions/screen-text.ts';
import { type Layout, mapBox } from './layout-map.ts';
import { aboutALine, plainText } from './shown-values.ts';

/** An example value in a recorded frame: its box, and the words left of it on its line. */
export interface RecordedExample {
  label: string;
  box: Box;
}

/** The label left of an example value (the longest, up to 3 words), and the value's box. */
function locateExample(words: readonly OcrWord[], values: readonly string[]): RecordedExample | null {
  let best: RecordedExample | null = null;
  for (const value of values) {
    for (const box of findPhrase(words, value)) {
      const label = wordsLeftOf(words, box)
        .slice(-3)
        .map((w) => w.text)
        .join(' ');
      if (!best || label.length > best.label.length) best = { label, box };
    }
  }
  return best?.label ? best : null;
}

/** The words right of `label` on its line, or null when the label is not there or nothing follows it. */
function valueAfter(words: readonly OcrWord[], label: string): string | null {
  const anchor = findPhrase(words, label)[0];
  if (!anchor) return null;
  const value = wordsRightOf(words, anchor)
    .map((w) => w.text)
    .join(' ')
    .trim();
  return value || null;
}

const whole = (image: RgbaImage): Box => ({ x: 0, y: 0, width: image.width, height: image.height });

/**
 * Where one of an extract's example `values` stands in its recorded frame, with a label; null when
 * none does. Read first across the lines where the frame changed since the one before it (`changed`:
 * a value read right after an action is mostly one it showed; a tenth of the frame's OCR time), then
 * in the whole frame. `read` reads the recorded frame's words (replay's reads are cached:
 * recorded-ocr.ts).
 */
export async function readExample(
  read: CropReader,
  frame: RgbaImage,
  values: readonly string[],
  changed: Box | null,
): Promise<RecordedExample | null> {
  if (values.length === 0) return null;
  const near = changed && locateExample(await read(frame, { ...changed, x: 0, width: frame.width }), values);
  return near ?? locateExample(await read(frame, whole(frame)), values);
}

/**
 * The value on the live screen where the example stood: after its label, on its line where the layout
 * now is (read across the screen), or anywhere on the screen when the label is not on that line; null
 * when the label is nowhere.
 */
export async function readExtract(
  ocr: OcrEngine,
  example: RecordedExample,
  live: RgbaImage,
  layout: Layout,
): Promise<string | null> {
  const line = mapBox(layout, example.box);
  const band = { x: 0, y: line.y - line.height, width: live.width, height: 3 * line.height };
  return (
    valueAfter(await readCrop(ocr, live, band), example.label) ??
    valueAfter(await readCrop(ocr, live, whole(live)), example.label)
  );
}

const squeeze = (text: string) => text.replace(/\s+/gu, ' ').trim();

/**
 * The value as the app says it: the text (or name) of the element its tree names where the example
 * stood, after the label when the element holds the label too ("Now playing: Faint"); null when no
 * element there has text.
 */
export async function readExtractFromApp(
  a11y: Accessibility,
  example: RecordedExample,
  layout: Layout,
): Promise<string | null> {
  const box = mapBox(layout, example.box);
  const element = await a11y
    .elementAt({ x: box.x + box.width / 2, y: box.y + box.height / 2 }, { text: true })
    .catch(() => null);
  // A container (a page, a panel) holds every line's text: only an element about a line tall tells.
  if (!element || !aboutALine(element, box)) return null;
  const said = [element.text, element.name].map(plainText).find((t) => t !== null);
  if (said === undefined || said === null) return null;
  const text = squeeze(said);
  const label = squeeze(example.label);
  const at = text.toLowerCase().indexOf(label.toLowerCase());
  const value = at < 0 ? text : text.slice(at + label.length).trim();
  return value || null;
}
