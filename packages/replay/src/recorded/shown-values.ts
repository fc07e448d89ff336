/**
 * A check by content: where the recording shows a param's example value (or an extract's recorded
 * value) as text in a region an action changed, the live app must show this run's value there. It reads the app first: the
 * elements its accessibility tree names at the example's mapped place (their text, name or label);
 * OCR only where no element there holds the value, tolerant of OCR's confusions (1/l/I, 0/O, rn/m)
 * and reading the lines around the mapped place (a line and a half either way, in the live line's
 * height where the app draws its text up to 1.5x bigger). A
 * form that drops a value on Send shows the rest of the line ("Sent to Bob Jones in "), which a
 * layout check takes for the change; this one does not.
 */
import type { Accessibility } from '@mime-desktop/os-io';
import type { AccessibleElement, ElementBox } from '@mime-desktop/schema';
import {
  type Box,
  findPhrase,
  lineShows,
  normalizeText,
  type OcrEngine,
  type OcrWord,
  ocrLines,
  type RgbaImage,
  withoutCarets,
} from '@mime-desktop/vision';
import { type CropReader, readCrop } from '../actions/screen-text.ts';
import { type Layout, mapBox } from './layout-map.ts';

/** How much bigger than recorded the live text may be drawn where the app scales its own UI. */
const BIGGER_FONT = 1.5;
/**
 * How much taller than the words on its line a caret-like stroke is: a caret spans the font's whole
 * line (about 1.2 times its size), a word from ascender to descender about 0.95, a glyph's stem 0.8.
 */
const CARET_HEIGHT = 1.15;
/**
 * The least confidence of a word read once a caret was painted over: the glyph it was glued to keeps
 * a scar, which OCR still reads as the word but less sure ("Rome," at 40). The word must still say
 * this run's value: a field that holds another says that one.
 */
const CARET_READ = 25;

/** A param's or an extract's recorded example and this run's value. */
export interface ShownValue {
  name: string;
  example: string;
  /** This run's value (an extract's: the one read in this run; empty until it is read). */
  value: string;
  /** An extract's (its value is read during the run), not a param's. Default false. */
  extracted?: boolean;
}

/** How a content check read the app: its accessibility tree, or OCR of the screen. */
export type ReadBy = 'app' | 'ocr';

export type ShownVerdict =
  | { kind: 'shown'; checked: number; read: ReadBy }
  /** The value is not where the recording shows its example (`box`, in recorded pixels). */
  | { kind: 'missing'; value: ShownValue; box: Box; read: string; by: ReadBy }
  /** The recording shows no example in the region: content cannot tell. */
  | { kind: 'unknown' };

/** Where each example stands in a recorded region, read once per frame and region. */
export type ExampleSpots = ReadonlyArray<{ value: ShownValue; box: Box }>;

/**
 * The places in `region` of the recorded frame `after` where an example value is shown and was not
 * before (`before`: a value already on the screen before the action is not its outcome), its
 * caret's stroke painted over where OCR did not read it otherwise. `read` reads the recorded
 * frames' words (replay's reads are cached: recorded-ocr.ts).
 */
export async function findExamples(
  read: CropReader,
  before: RgbaImage,
  after: RgbaImage,
  region: Box,
  values: readonly ShownValue[],
): Promise<ExampleSpots> {
  const candidates = values.filter((v) => v.example.trim() !== '');
  if (candidates.length === 0) return [];
  const afterWords = await read(after, region);
  const found = candidates.flatMap((value) =>
    findPhrase(afterWords, value.example).map((box) => ({ value, box })),
  );
  // An example glued to the caret of the field that holds it ("First line|": OCR reads "First"
  // alone) is looked for again in the region without caret-like strokes.
  const unseen = candidates.filter((v) => !found.some((f) => f.value === v));
  const height = wordHeight(afterWords);
  const uncareted =
    unseen.length > 0 && height !== null ? withoutCarets(after, region, CARET_HEIGHT * height) : null;
  if (uncareted) {
    const words = await read(uncareted, region, CARET_READ);
    for (const value of unseen)
      for (const box of findPhrase(words, value.example)) found.push({ value, box });
  }
  if (found.length === 0) return [];
  // The frame before is read only across the lines where an example was found (a run's first outcome
  // waits on these reads): a value that stood there already is no outcome of the subtask.
  const beforeWords = await read(
    before,
    linesOf(
      found.map((f) => f.box),
      region,
    ),
  );
  return found.filter(({ value, box }) => {
    const near = (b: Box) => Math.abs(b.y - box.y) < box.height && Math.abs(b.x - box.x) < box.height;
    return !findPhrase(beforeWords, value.example).some(near);
  });
}

/**
 * How tall the words of `words` with three letters or more are (their median), px; null where there
 * is none (no caret can be told from a glyph then).
 */
function wordHeight(words: readonly OcrWord[]): number | null {
  const heights = words
    .filter((w) => /\p{L}{3}/u.test(w.text))
    .map((w) => w.box.height)
    .sort((a, b) => a - b);
  return heights[Math.floor(heights.length / 2)] ?? null;
}

/** The band of `region` across `boxes`, a line above and below them. */
function linesOf(boxes: readonly Box[], region: Box): Box {
  const top = Math.max(region.y, Math.min(...boxes.map((b) => b.y - b.height)));
  const bottom = Math.min(region.y + region.height, Math.max(...boxes.map((b) => b.y + 2 * b.height)));
  return { x: region.x, y: top, width: region.width, height: Math.max(0, bottom - top) };
}

/** Whether an example stands in `region` (of the frame the spots were read on). */
export function spotsIn(spots: ExampleSpots, region: Box): boolean {
  return spots.some(
    ({ box }) =>
      box.x < region.x + region.width &&
      region.x < box.x + box.width &&
      box.y < region.y + region.height &&
      region.y < box.y + box.height,
  );
}

/**
 * An element's words as the app says them, or null where they do not tell: empty, or holding object
 * replacement characters (U+FFFC: a browser's paragraph whose words live in child objects).
 */
export function plainText(text: string | null | undefined): string | null {
  return typeof text === 'string' && text.trim() !== '' && !text.includes('\ufffc') ? text : null;
}

/** Whether an element is about as tall as a line of text (not a container of many lines). */
export function aboutALine(element: AccessibleElement, line: Box): boolean {
  return element.extents === null || element.extents.height <= 3 * line.height;
}

const inside = (p: { x: number; y: number }, b: ElementBox) =>
  p.x >= b.x && p.x < b.x + b.width && p.y >= b.y && p.y < b.y + b.height;

/**
 * What an element at a point says: its text, name and label when it is about a line tall; in a
 * taller element (a container holds every line's text) only the line the app places at the point,
 * where its text is plain (an editor's text area; never a page whose words live in child objects).
 * A one-line field's text without a line end is its one line wherever the point is: GTK 4 reports an
 * entry three times as tall as its line and says no character's place in it. Not a multi-line one's:
 * an editor wraps a paragraph without line ends over many lines, and says which one is at the point.
 */
async function textsAt(
  a11y: Accessibility,
  element: AccessibleElement,
  line: Box,
  point: { x: number; y: number },
): Promise<string[]> {
  if (aboutALine(element, line)) {
    return [element.text, element.name, element.label].flatMap((t) => plainText(t) ?? []);
  }
  const text = plainText(element.text);
  if (text === null) return [];
  if (!text.includes('\n') && !element.states.includes('multi-line')) return [text];
  const said = plainText(await a11y.lineAt(point).catch(() => null));
  return said === null ? [] : [said];
}

/** What the app says at a spot: an element there holds the value, or the words its elements hold. */
type AppReading = { shown: true } | { shown: false; said: string | null };

/** The elements the tree names across the mapped spot (its middle line, three points), and whether one holds the value. */
async function readApp(a11y: Accessibility, line: Box, value: string): Promise<AppReading> {
  const y = line.y + line.height / 2;
  const points = [0.5, 0.2, 0.8].map((f) => ({ x: line.x + line.width * f, y }));
  const said: string[] = [];
  const wanted = normalizeText(value);
  const covered: ElementBox[] = [];
  for (const point of points) {
    // A point inside an element already read names that element again: not asked twice.
    if (covered.some((b) => inside(point, b))) continue;
    const element: AccessibleElement | null = await a11y.elementAt(point, { text: true }).catch(() => null);
    if (element?.extents) covered.push(element.extents);
    if (!element) continue;
    const texts = await textsAt(a11y, element, line, point);
    if (texts.some((t) => normalizeText(t).includes(wanted))) return { shown: true };
    for (const t of texts) if (!said.includes(t)) said.push(t);
  }
  return { shown: false, said: said.length > 0 ? said.join(' | ') : null };
}

/**
 * Whether the live app shows each run's value where its example stood (region mapped by `layout`);
 * `a11y` null reads by OCR alone. The app is asked about every spot at once (each question waits on
 * the app and on the X server, not on this process: a form's four spots take one answer's time),
 * then OCR reads, in order, the spots it did not answer.
 */
export async function checkShownValues(
  ocr: OcrEngine,
  a11y: Accessibility | null,
  live: RgbaImage,
  region: Box,
  layout: Layout,
  spots: ExampleSpots,
): Promise<ShownVerdict> {
  if (spots.length === 0) return { kind: 'unknown' };
  const area = mapBox(layout, region);
  const places = spots.map((spot) => {
    const line = mapBox(layout, spot.box);
    // A longer value runs past where the recording changed: the band grows by the extra characters.
    const charWidth = (spot.box.width / Math.max(1, spot.value.example.length)) * layout.scale;
    const extra = Math.max(0, spot.value.value.length - spot.value.example.length) * charWidth * 1.5;
    return { spot, line, charWidth, extra };
  });
  const answers = await Promise.all(
    places.map(({ spot, line, extra }) =>
      a11y ? readApp(a11y, { ...line, width: line.width + extra }, spot.value.value) : null,
    ),
  );
  let read: ReadBy = 'app';
  for (const [i, { spot, line, charWidth, extra }] of places.entries()) {
    const app = answers[i] ?? null;
    if (app?.shown) continue;
    read = 'ocr';
    const nearest = await readBand(ocr, live, area, line, charWidth, extra, spot.value.value);
    if (nearest !== true) {
      const said = app && !app.shown ? app.said : null;
      return {
        kind: 'missing',
        value: spot.value,
        box: spot.box,
        read: said ?? nearest ?? '',
        by: said === null ? 'ocr' : 'app',
      };
    }
  }
  return { kind: 'shown', checked: spots.length, read };
}

/**
 * Reads by OCR the lines around the mapped one (a smaller window or another font moves the text a
 * line or so): true when one shows `value`, else the nearest line's text. The band is as wide as
 * the recorded change first, then (a bigger font, an app's own 1.25x, makes the line longer) as
 * wide as that font would draw it: read wider at once, the blank screen beside a window can make
 * OCR read nothing on the line. Last, where a focused field's caret is glued to its value's last
 * glyph ("Rome|" read "Rome]" and dropped as unsure), the band is read again without the caret.
 */
async function readBand(
  ocr: OcrEngine,
  live: RgbaImage,
  area: Box,
  line: Box,
  charWidth: number,
  extra: number,
  value: string,
): Promise<true | string | null> {
  let nearest: string | null = null;
  const bandOf = (widen: number) => ({
    x: area.x - charWidth,
    y: line.y - 2 * line.height,
    width: area.width * widen + 2 * charWidth + extra,
    height: 5 * line.height,
  });
  // Last, where a caret stands in the band, the wider band without it (see CARET_READ): a stroke
  // taller than the words read near the line (the recorded example's box may hold its own caret).
  const nearWords: OcrWord[] = [];
  const uncareted = () =>
    withoutCarets(live, bandOf(BIGGER_FONT), CARET_HEIGHT * (wordHeight(nearWords) ?? line.height));
  for (const [widen, image] of [
    [1, live],
    [BIGGER_FONT, live],
    [BIGGER_FONT, null],
  ] as const) {
    const read = image ?? uncareted();
    if (read === null) break;
    const words = await readCrop(ocr, read, bandOf(widen), image ? undefined : CARET_READ);
    const lines = ocrLines(words);
    const middle = line.y + line.height / 2;
    // A line and a half either way, in lines as tall as the live one where its font is bigger.
    const near = lines
      .filter(
        (l) =>
          Math.abs(l.box.y + l.box.height / 2 - middle) <=
          1.5 * Math.min(Math.max(line.height, l.box.height), BIGGER_FONT * line.height),
      )
      .sort((a, b) => Math.abs(a.box.y - line.y) - Math.abs(b.box.y - line.y));
    if (near.some((l) => lineShows(l.text, value))) return true;
    nearest ??= near[0]?.text ?? null;
    for (const l of near) nearWords.push(...l.words);
  }
  return nearest;
}
