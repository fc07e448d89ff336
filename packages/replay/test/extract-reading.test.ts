import { readFile } from 'node:fs/promises';
import { type Box, changedRegion, decodeImage, OcrEngine, type RgbaImage } from '@mime-desktop/vision';
import { afterAll, describe, expect, it } from 'vitest';
import { readCrop } from '../src/actions/screen-text.ts';
import { readExample, readExtract } from '../src/recorded/extract-reading.ts';
import { RECORDED } from '../src/recorded/layout-map.ts';

const image = async (path: string) =>
  decodeImage(await readFile(new URL(`../../../fixtures/${path}`, import.meta.url)));

describe('reading an extract without the model', { timeout: 30_000 }, async () => {
  const ocr = new OcrEngine();
  afterAll(() => ocr.close());
  const read = (frame: RgbaImage, box: Box) => readCrop(ocr, frame, box);
  // The recording: the Play click shows "Now playing: Numb", the extract's example value.
  const before = await image('workflows/play-song-recorded/screenshots/3.png');
  const pre = await image('workflows/play-song-recorded/screenshots/4.png');
  // Live, the app moved by (40, 24) at 1.1x: before and after playing Faint.
  const notYet = await image('frames/play-song-moved/before-play.png');
  const played = await image('frames/play-song-moved/after-play.png');
  const moved = { scale: 1.1, dx: 40, dy: 24 };

  it('finds the example and its label where the frame changed, or in the whole frame', async () => {
    const changed = changedRegion(before, pre);
    const near = await readExample(read, pre, ['Numb'], changed);
    expect(near?.label).toMatch(/playing:?$/i);
    // Not where the frame changed (the header): the whole frame is read.
    const header = { x: 0, y: 0, width: 1280, height: 60 };
    expect(await readExample(read, pre, ['Numb'], header)).toEqual(near);
    expect(await readExample(read, pre, ['Numb'], null)).toEqual(near);
    expect(await readExample(read, pre, ['Nowhere'], changed)).toBeNull();
  });

  it('reads the value after the label where the layout now is, or anywhere when that line misses', async () => {
    const example = await readExample(read, pre, ['Numb'], changedRegion(before, pre));
    if (!example) throw new Error('the example was not found');
    expect(await readExtract(ocr, example, played, moved)).toBe('Faint');
    expect(await readExtract(ocr, example, notYet, moved)).toBe('nothing');
    // The layout not known (as recorded): its line holds no label, the whole screen does.
    expect(await readExtract(ocr, example, played, RECORDED)).toBe('Faint');
  });
});
