/**
 * The ladder's last rung, the target by its words, with real OCR on a real GTK dialog (Mousepad's
 * Save As): the Name field found by its label "Name:" (from the recording's frame, or the recorded
 * element's label) on the dialog moved, in a dark theme and scaled 1.25x; a screen without the
 * dialog is a miss.
 */
import { join } from 'node:path';
import type { AccessibleElement, WorkflowStep } from '@mime-desktop/schema';
import { decodeImage, OcrEngine } from '@mime-desktop/vision';
import { afterAll, describe, expect, it } from 'vitest';
import { locate } from '../src/recorded/locators.ts';
import { autoLadder } from '../src/recorded/recorded-mode.ts';
import { textLocator } from '../src/recorded/text-locator.ts';
import { changedScreen, type ScreenChange } from './screen-variants.ts';

const SHOTS = join(
  import.meta.dirname,
  '..',
  '..',
  '..',
  'fixtures',
  'workflows',
  'mousepad-save',
  'screenshots',
);
const DIALOG = join(SHOTS, '3.png');

/** A click into the Name field, right of its label; with the element when given. */
const clickName = (element?: AccessibleElement): WorkflowStep => ({
  i: 0,
  expected_current_state: '',
  intent: 'click the Name field',
  target: { primary: 'the Name field', fallback: null, ...(element ? { element } : {}) },
  action_type: 'CLICK',
  action_value: null,
  post_action: [],
  variable_name: null,
  source: {
    event_index: 0,
    screenshot: 'screenshots/3.png',
    point: { x: 400, y: 46 },
    end_point: null,
    box: { x: 320, y: 14, width: 160, height: 64 },
  },
});

const labelled: AccessibleElement = {
  role: 'text',
  name: '',
  label: 'Name:',
  app: 'mousepad',
  window: { role: 'dialog', name: 'Save As' },
  path: [{ role: 'text', name: '', index: 1 }],
  states: ['showing'],
  extents: { x: 159, y: 31, width: 1019, height: 31 },
};

/** The dialog moved, dark, scaled 1.25x: its label stays on the screen. */
const CHANGES: Array<{ name: string; change: ScreenChange }> = [
  { name: 'moved by (60, 40)', change: { dx: 60, dy: 40 } },
  { name: 'in a dark theme', change: { dark: true } },
  { name: 'scaled 1.25x', change: { scale: 1.25, dx: -20, dy: 10 } },
  { name: 'dark and scaled 1.25x', change: { dark: true, scale: 1.25, dx: -20, dy: 10 } },
];

describe('the target by its words', () => {
  const ocr = new OcrEngine();
  afterAll(() => ocr.close());

  for (const { name, change } of CHANGES) {
    it(`finds the Name field by its label, ${name}`, async () => {
      const pre = await decodeImage(DIALOG);
      const live = await changedScreen(DIALOG, change);
      const found = await textLocator(ocr).locate({ step: clickName(), pre, live, layout: null });
      if (!found?.ok) throw new Error(found ? found.failure.reason : 'no words');
      expect(found.value.rung).toBe('text');
      expect(found.value.reason).toMatch(/"Name:"/);
      const at = found.value.map({ x: 400, y: 46 });
      const scale = change.scale ?? 1;
      expect(Math.abs(at.x - (400 * scale + (change.dx ?? 0)))).toBeLessThanOrEqual(6);
      expect(Math.abs(at.y - (46 * scale + (change.dy ?? 0)))).toBeLessThanOrEqual(4);
    }, 60_000);
  }

  it('takes the recorded element’s label as its words, and misses on a screen without them', async () => {
    const pre = await decodeImage(DIALOG);
    const step = clickName(labelled);
    const live = await changedScreen(DIALOG, { dark: true, dx: 30, dy: 20 });
    const found = await textLocator(ocr).locate({ step, pre, live, layout: null });
    expect(found?.ok && found.value.map({ x: 400, y: 46 })).toEqual({ x: 430, y: 66 });
    // The document window, no dialog: the ladder misses, and says the words were not read.
    const other = await decodeImage(join(SHOTS, '0.png'));
    const miss = await locate(autoLadder(null, ocr), { step, pre, live: other, layout: null });
    if (miss.ok) throw new Error(`found: ${miss.value.reason}`);
    expect(miss.failure.reason).toMatch(/the target's words "Name:" are not on the screen/);
    expect(miss.failure.similarity).toBeLessThan(miss.failure.threshold);
  }, 60_000);
});

describe('a target with words of its own', () => {
  const ocr = new OcrEngine();
  afterAll(() => ocr.close());
  const DEMO = join(
    import.meta.dirname,
    '..',
    '..',
    '..',
    'fixtures',
    'workflows',
    'play-song-recorded',
    'screenshots',
  );

  it('is known by its own words only, never by the words beside it (a list row’s title)', async () => {
    const pre = await decodeImage(join(DEMO, '3.png'));
    const play: WorkflowStep = {
      ...clickName(),
      source: {
        event_index: 3,
        screenshot: 'screenshots/3.png',
        point: { x: 562, y: 194 },
        end_point: null,
        box: { x: 482, y: 162, width: 160, height: 64 },
      },
    };
    // Light on dark inside a light page, the caption does not read; the row's title beside the
    // button ("Numb") is no word of the button's: the rung does not apply.
    expect(await textLocator(ocr).locate({ step: play, pre, live: pre, layout: null })).toBeNull();
    // The button's caption painted over: the button is there, its words are not.
    const live = { ...pre, data: pre.data.slice() };
    for (let y = 180; y < 208; y += 1) {
      for (let x = 530; x < 595; x += 1)
        live.data.fill(0, (y * pre.width + x) * 4, (y * pre.width + x) * 4 + 3);
    }
    const gone = await textLocator(ocr).locate({ step: play, pre, live, layout: null });
    expect(gone?.ok ?? false).toBe(false);
  }, 60_000);
});
