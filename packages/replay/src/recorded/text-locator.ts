/**
 * Auto, the last rung of the ladder: the target by its words. A field's label, a button's caption or
 * a field's placeholder stands where the app draws it whatever the theme, and OCR reads it at any
 * scale: found once on the live screen, it carries the target with it (the recorded offset from the
 * words to the target, scaled as the words are). The words are the element's name or label where the
 * recording has the element, else those OCR reads in the recorded frame: inside the target (a
 * caption, a placeholder), then, for a target without words of its own (an empty field), left of
 * it on its line (a label), then just above it.
 */
import type { WorkflowStep } from '@mime-desktop/schema';
import {
  type Box,
  clampBox,
  crop,
  edgeImage,
  FEATURELESS_EDGES,
  findTemplate,
  normalizeText,
  type OcrEngine,
  type OcrWord,
  type RgbaImage,
  unionBox,
  wordsLeftOf,
} from '@mime-desktop/vision';
import { readCrop } from '../actions/screen-text.ts';
import { failed, type Located, type Look, located, matchThreshold } from './checks.ts';
import { type Layout, mapBox, mapPoint } from './layout-map.ts';
import type { LocateInput, Locator } from './locator.ts';

type Point = { x: number; y: number };

/** The target's words in its recorded frame: what they say and where they stood. */
interface Anchor {
  phrase: string;
  box: Box;
}

/** Words too short or too common to tell one place from another are no anchor. */
const telling = (phrase: string) => phrase.replace(/[^\p{L}\p{N}]/gu, '').length >= 3;

/** How far from the target its words may stand in the recorded frame, in target sizes (a label may stand far left of a wide field). */
const REACH = { x: 6, y: 2 };

const centre = (box: Box): Point => ({ x: box.x + box.width / 2, y: box.y + box.height / 2 });
const distance = (a: Point, b: Point) => Math.hypot(a.x - b.x, a.y - b.y);

/** The words read inside a box, as read (case and punctuation kept). */
const textIn = (words: readonly OcrWord[], box: Box) =>
  words
    .filter((w) => {
      const c = centre(w.box);
      return c.x >= box.x && c.x <= box.x + box.width && c.y >= box.y && c.y <= box.y + box.height;
    })
    .map((w) => w.text)
    .join(' ');

/** The words of the recorded frame that name the target (see the file's comment), nearest first. */
function anchorOf(
  words: readonly OcrWord[],
  step: WorkflowStep,
  target: { point: Point; box: Box; content: boolean },
): Anchor | null {
  const { point, box, content } = target;
  const element = step.target.element;
  const named = [element?.name, element?.label].filter((t): t is string => !!t && telling(t));
  for (const phrase of named) {
    // As read (punctuation too: "Name:" the label, not "Name" a header) first, then the nearest.
    const rank = (p: Box) => (textIn(words, p) === phrase ? 0 : 1e6) + distance(centre(p), point);
    const places = closePhrase(words, phrase).sort((a, b) => rank(a) - rank(b));
    const nearest = places[0];
    if (nearest && distance(centre(nearest), point) <= REACH.x * box.width) {
      return { phrase, box: nearest };
    }
  }
  const inside = words.filter((w) => {
    const c = centre(w.box);
    return c.x >= box.x && c.x <= box.x + box.width && c.y >= box.y && c.y <= box.y + box.height;
  });
  const line = (ws: readonly OcrWord[]) =>
    ws.length > 0 ? { phrase: ws.map((w) => w.text).join(' '), box: unionBox(ws.map((w) => w.box)) } : null;
  const left = wordsLeftOf(words, { x: box.x, y: point.y - 4, width: 1, height: 8 }).slice(-3);
  const above = words
    .filter(
      (w) => w.box.y + w.box.height <= box.y && w.box.x < box.x + box.width && w.box.x + w.box.width > box.x,
    )
    .sort((a, b) => b.box.y - a.box.y);
  const firstAbove = above[0];
  const aboveLine = firstAbove
    ? above.filter((w) => Math.abs(w.box.y - firstAbove.box.y) < w.box.height / 2)
    : [];
  // A target with content of its own (a button's caption) is known by its own words only: words
  // beside it (a list row's title) name something else. One without (an empty field) by its label.
  const own = line(inside);
  if (content) return own && telling(own.phrase) ? own : null;
  for (const candidate of [own, line(left), line(aboveLine.sort((a, b) => a.box.x - b.box.x))]) {
    if (candidate && telling(candidate.phrase)) return candidate;
  }
  return null;
}

/** Height of the bands a live screen is read in, and their overlap, px (a line is whole in one of them). */
const BAND = { height: 200, overlap: 40 };

/**
 * The words of a live screen, read band by band (a word in two bands once): tesseract reading a
 * whole screen of mixed grounds (a dark theme's dialog on a light desktop) drops lines it reads in a
 * band of it.
 */
async function readBands(ocr: OcrEngine, live: RgbaImage): Promise<OcrWord[]> {
  const words: OcrWord[] = [];
  for (let y = 0; y < live.height; y += BAND.height - BAND.overlap) {
    const height = Math.min(BAND.height, live.height - y);
    for (const word of await readCrop(ocr, live, { x: 0, y, width: live.width, height })) {
      // A word in the overlap of two bands is read twice: kept once.
      const twice = words.some(
        (w) =>
          w.text === word.text && Math.abs(w.box.x - word.box.x) <= 4 && Math.abs(w.box.y - word.box.y) <= 4,
      );
      if (!twice) words.push(word);
    }
    if (y + height >= live.height) break;
  }
  return words.sort((a, b) => a.box.y - b.box.y || a.box.x - b.box.x);
}

/** Whether OCR's reading of a word is the wanted word, one letter dropped, added or misread at most (for 4 letters or more). */
function closeWord(read: string, wanted: string): boolean {
  const a = normalizeText(read);
  const b = normalizeText(wanted);
  if (a === b) return b.length > 0;
  if (b.length < 4 || Math.abs(a.length - b.length) > 1) return false;
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i += 1;
  const rest = (x: string, y: string) => x === y;
  return (
    rest(a.slice(i + 1), b.slice(i + 1)) ||
    rest(a.slice(i), b.slice(i + 1)) ||
    rest(a.slice(i + 1), b.slice(i))
  );
}

/** Boxes of each place where consecutive words on one line read as `phrase` (see closeWord). */
function closePhrase(words: readonly OcrWord[], phrase: string): Box[] {
  const wanted = phrase.split(/\s+/).filter((w) => normalizeText(w));
  const found: Box[] = [];
  if (wanted.length === 0) return found;
  for (let i = 0; i + wanted.length <= words.length; i += 1) {
    const run = words.slice(i, i + wanted.length);
    const first = (run[0] as OcrWord).box;
    const oneLine = run.every(
      (w) => Math.abs(centre(w.box).y - centre(first).y) < Math.max(w.box.height, first.height) * 0.6,
    );
    if (oneLine && run.every((w, k) => closeWord(w.text, wanted[k] ?? '')))
      found.push(unionBox(run.map((w) => w.box)));
  }
  return found;
}

/**
 * Whether what lies between the words and the target in the recording (`span`: a label and its field)
 * is where a layout puts it, by pixels or by edges: words alike elsewhere (a column header "Name" for a
 * label "Name:") are not the target's.
 */
async function confirmed(pre: RgbaImage, live: RgbaImage, span: Box, layout: Layout): Promise<boolean> {
  const region = clampBox(
    { x: span.x - 4, y: span.y - 4, width: span.width + 8, height: span.height + 8 },
    pre,
  );
  const mapped = mapBox(layout, region);
  const within = clampBox(
    { x: mapped.x - 16, y: mapped.y - 16, width: mapped.width + 32, height: mapped.height + 32 },
    live,
  );
  for (const features of ['grey', 'edges'] as const) {
    const match = await findTemplate(live, crop(pre, region), { within, features, scales: [layout.scale] });
    if (match && match.score >= matchThreshold(features)) return true;
  }
  return false;
}

/** The sizes an app is drawn at, relative to its recording (see findTemplate's). */
const SCALES = [1, 0.9, 1.1, 0.8, 1.25, 0.67, 1.5] as const;

/**
 * The layout that puts the recorded words where they are read now. OCR's boxes are a few pixels
 * loose, too loose for a size: the recorded words (with a margin) are matched by pixels, then by
 * edges, around where they were read; without a confident match, their read width gives the size,
 * taken to the nearest usual one.
 */
async function layoutFrom(pre: RgbaImage, recorded: Box, live: RgbaImage, read: Box): Promise<Layout> {
  const words = clampBox(
    { x: recorded.x - 8, y: recorded.y - 8, width: recorded.width + 16, height: recorded.height + 16 },
    pre,
  );
  const reach = Math.max(read.width, read.height) + 16;
  const within = clampBox(
    { x: read.x - reach, y: read.y - reach, width: read.width + 2 * reach, height: read.height + 2 * reach },
    live,
  );
  for (const features of ['grey', 'edges'] as const) {
    const match = await findTemplate(live, crop(pre, words), { within, features, scales: SCALES });
    if (match && match.score >= matchThreshold(features)) {
      const { scale } = match;
      return {
        scale,
        dx: Math.round(match.box.x - words.x * scale),
        dy: Math.round(match.box.y - words.y * scale),
      };
    }
  }
  const ratio = read.width / Math.max(1, recorded.width);
  const scale = SCALES.reduce((a, b) => (Math.abs(b - ratio) < Math.abs(a - ratio) ? b : a));
  return { scale, dx: Math.round(read.x - recorded.x * scale), dy: Math.round(read.y - recorded.y * scale) };
}

/**
 * Where the target's words are read on the live screen (near `expected`, where the layout puts them,
 * when known), and the layouts of those confirmed beside the target (see confirmed).
 */
async function placesOf(
  ocr: OcrEngine,
  look: { pre: RgbaImage; live: RgbaImage; anchor: Anchor; target: Box; expected: Point | null },
): Promise<{ places: Box[]; found: Layout[] }> {
  const { pre, live, anchor, target, expected } = look;
  const words = await readBands(ocr, live);
  const places = closePhrase(words, anchor.phrase).filter(
    (p) => !expected || distance(centre(p), expected) <= Math.max(32, anchor.box.width),
  );
  const found: Layout[] = [];
  for (const place of places) {
    const at = await layoutFrom(pre, anchor.box, live, place);
    if (await confirmed(pre, live, unionBox([anchor.box, target]), at)) found.push(at);
  }
  return { places, found };
}

/**
 * Whether a target holds content of its own (a caption, an icon, typed text) beside the straight
 * lines of a frame: its edges outside rows and columns that an edge crosses for half their length
 * (a field's outline) cover at least FEATURELESS_EDGES of it. An empty field has none.
 */
function hasContent(pre: RgbaImage, box: Box): boolean {
  const area = clampBox(box, pre);
  const edges = edgeImage(pre);
  const on = (x: number, y: number) => (edges.data[(y * pre.width + x) * 4] ?? 0) > 0;
  const rows = new Set<number>();
  const cols = new Set<number>();
  for (let y = area.y; y < area.y + area.height; y += 1) {
    let n = 0;
    for (let x = area.x; x < area.x + area.width; x += 1) if (on(x, y)) n += 1;
    if (n >= area.width / 2) rows.add(y);
  }
  for (let x = area.x; x < area.x + area.width; x += 1) {
    let n = 0;
    for (let y = area.y; y < area.y + area.height; y += 1) if (on(x, y)) n += 1;
    if (n >= area.height / 2) cols.add(x);
  }
  let content = 0;
  for (let y = area.y; y < area.y + area.height; y += 1) {
    if (rows.has(y)) continue;
    for (let x = area.x; x < area.x + area.width; x += 1) if (!cols.has(x) && on(x, y)) content += 1;
  }
  return content >= FEATURELESS_EDGES * area.width * area.height;
}

/** The rung; `ocr` reads the recorded frame once a step and the live screen when the rungs before it missed. */
export function textLocator(ocr: OcrEngine): Locator {
  const anchors = new WeakMap<WorkflowStep, Promise<Anchor | null>>();
  const anchorFor = (step: WorkflowStep, pre: RgbaImage, point: Point, box: Box) => {
    let anchor = anchors.get(step);
    if (!anchor) {
      const around = clampBox(
        {
          x: box.x - box.width * REACH.x,
          y: box.y - box.height * REACH.y,
          width: box.width * (2 * REACH.x + 1),
          height: box.height * (2 * REACH.y + 1),
        },
        pre,
      );
      const content = hasContent(pre, box);
      anchor = readCrop(ocr, pre, around).then((words) => anchorOf(words, step, { point, box, content }));
      anchors.set(step, anchor);
    }
    return anchor;
  };
  return {
    async locate({ step, pre, live, layout }: LocateInput): Promise<Look<Located> | null> {
      const point = step.source?.point ?? null;
      const box = step.source?.box ?? null;
      if (!point || !box) return null;
      const anchor = await anchorFor(step, pre, point, box);
      if (!anchor) return null;
      const expected = layout ? mapPoint(layout, centre(anchor.box)) : null;
      const { places, found } = await placesOf(ocr, { pre, live, anchor, target: box, expected });
      const quoted = JSON.stringify(anchor.phrase);
      const miss = (why: string) => failed(step.i, 'before_step', why, 0, 1, box, pre);
      if (found.length > 1)
        return miss(`the target's words ${quoted} are on the screen ${found.length} times`);
      const [only] = found;
      if (!only) {
        const where = expected ? ' near where the layout is' : '';
        const read = places.length > 0 ? `, or not beside the target (read ${places.length} times)` : '';
        return miss(`the target's words ${quoted} are not on the screen${where} (read by OCR)${read}`);
      }
      return located(
        (p) => mapPoint(only, p),
        only,
        1,
        `target found by its words ${quoted} (read by OCR), moved by (${only.dx}, ${only.dy})${only.scale === 1 ? '' : ` at ${only.scale}x size`}`,
        'text',
      );
    },
  };
}
