/**
 * A check by content: where the recording shows a param's example value as text in a region an
 * action changed, the live screen must show this run's value on the same line of that region. A
 * form that drops a value on Send shows the rest of the line ("Sent to Bob Jones in "), which a
 * layout check takes for the change; this one does not.
 */
import { type Box, findPhrase, type OcrEngine, type RgbaImage } from '@mime-desktop/vision';
import { readCrop } from '../actions/screen-text.ts';
import { type Layout, mapBox } from './layout-map.ts';

/** A param's recorded example and this run's value. */
export interface ShownValue {
  name: string;
  example: string;
  value: string;
}

export type ShownVerdict =
  | { kind: 'shown'; checked: number }
  /** The value is not where the recording shows its example (`box`, in recorded pixels). */
  | { kind: 'missing'; value: ShownValue; box: Box; read: string }
  /** The recording shows no example in the region: content cannot tell. */
  | { kind: 'unknown' };

/** Where each example stands in a recorded region, read once per frame and region. */
export type ExampleSpots = ReadonlyArray<{ value: ShownValue; box: Box }>;

/**
 * The places in `region` of the recorded frame `after` where an example value is shown and was not
 * before (`before`: a value already on the screen before the action is not its outcome).
 */
export async function findExamples(
  ocr: OcrEngine,
  before: RgbaImage,
  after: RgbaImage,
  region: Box,
  values: readonly ShownValue[],
): Promise<ExampleSpots> {
  const candidates = values.filter((v) => v.example.trim() !== '');
  if (candidates.length === 0) return [];
  const [afterWords, beforeWords] = await Promise.all([
    readCrop(ocr, after, region),
    readCrop(ocr, before, region),
  ]);
  const spots: { value: ShownValue; box: Box }[] = [];
  for (const value of candidates) {
    const already = findPhrase(beforeWords, value.example);
    for (const box of findPhrase(afterWords, value.example)) {
      const near = (b: Box) => Math.abs(b.y - box.y) < box.height && Math.abs(b.x - box.x) < box.height;
      if (!already.some(near)) spots.push({ value, box });
    }
  }
  return spots;
}

/** Whether the live screen shows each run's value on the line where its example stood (region mapped by `layout`). */
export async function checkShownValues(
  ocr: OcrEngine,
  live: RgbaImage,
  region: Box,
  layout: Layout,
  spots: ExampleSpots,
): Promise<ShownVerdict> {
  if (spots.length === 0) return { kind: 'unknown' };
  const area = mapBox(layout, region);
  for (const spot of spots) {
    const line = mapBox(layout, spot.box);
    const pad = Math.ceil(line.height * 0.6);
    // A longer value runs past where the recording changed: the band grows by the extra characters.
    const charWidth = (spot.box.width / Math.max(1, spot.value.example.length)) * layout.scale;
    const extra = Math.max(0, spot.value.value.length - spot.value.example.length) * charWidth * 1.5;
    const band = {
      x: area.x - charWidth,
      y: line.y - pad,
      width: area.width + 2 * charWidth + extra,
      height: line.height + 2 * pad,
    };
    const words = await readCrop(ocr, live, band);
    if (findPhrase(words, spot.value.value).length === 0) {
      return { kind: 'missing', value: spot.value, box: spot.box, read: words.map((w) => w.text).join(' ') };
    }
  }
  return { kind: 'shown', checked: spots.length };
}
