import { readFile } from 'node:fs/promises';
import type { Accessibility } from '@mime-desktop/os-io';
import type { AccessibleElement } from '@mime-desktop/schema';
import { type Box, changedRegion, decodeImage, OcrEngine, type RgbaImage } from '@mime-desktop/vision';
import sharp from 'sharp';
import { afterAll, describe, expect, it } from 'vitest';
import { readCrop } from '../src/actions/screen-text.ts';
import { checkChange } from '../src/recorded/checks.ts';
import { RECORDED } from '../src/recorded/layout-map.ts';
import { checkShownValues, type ExampleSpots, findExamples, spotsIn } from '../src/recorded/shown-values.ts';

const frame = async (name: string) =>
  decodeImage(await readFile(new URL(`../../../fixtures/frames/tk-form-scaled/${name}`, import.meta.url)));

/** Reads recorded frames as replay does, without its cache. */
const reader = (ocr: OcrEngine) => (image: RgbaImage, box: Box, minConfidence?: number) =>
  readCrop(ocr, image, box, minConfidence);

/** A white screen: OCR reads nothing on it, so only the app's answer can tell. */
const white: RgbaImage = { width: 640, height: 400, data: new Uint8Array(640 * 400 * 4).fill(255) };

/** The editor's whole text area, many lines tall, as Qt names it at any point inside it. */
const textArea = (text: string): AccessibleElement => ({
  role: 'text',
  name: '',
  label: null,
  app: 'featherpad',
  window: { role: 'frame', name: 'note.txt - FeatherPad' },
  path: [{ role: 'text', name: '', index: 0 }],
  states: ['showing', 'editable', 'multi-line'],
  extents: { x: 0, y: 40, width: 640, height: 340 },
  text,
});

/** The app: `element` under every point, `lines` by the point's y (each 20 px from y 40). */
function app(element: AccessibleElement, lines: readonly string[]): Accessibility & { asked: number } {
  const a11y = {
    asked: 0,
    elementAt: async () => element,
    lineAt: async (p: { x: number; y: number }) => {
      a11y.asked += 1;
      return lines[Math.floor((p.y - 40) / 20)] ?? null;
    },
    focused: async () => null,
    wake: async () => undefined,
    find: async () => [],
    apps: async () => ['featherpad'],
    close: async () => undefined,
  };
  return a11y;
}

const screen = { x: 0, y: 40, width: 640, height: 340 };
/** The recording showed its example "First line" on the editor's second line (y 60-80). */
const spots: ExampleSpots = [
  {
    value: { name: 'text_1', example: 'First line', value: 'Second line from replay' },
    box: { x: 4, y: 62, width: 70, height: 16 },
  },
];

describe('a value in a text of many lines (an editor’s text area)', { timeout: 30_000 }, () => {
  const ocr = new OcrEngine();
  afterAll(() => ocr.close());

  it('is read from the app: the line it places at the mapped spot', async () => {
    const editor = app(textArea('Dear Ann\nSecond line from replay\n'), [
      'Dear Ann',
      'Second line from replay',
    ]);
    const verdict = await checkShownValues(ocr, editor, white, screen, RECORDED, spots);
    expect(verdict).toEqual({ kind: 'shown', checked: 1, read: 'app' });
    expect(editor.asked).toBe(1);
  });

  it('is missing when the value stands on another line than the mapped one', async () => {
    const editor = app(textArea('Second line from replay\nDear Ann\n'), [
      'Second line from replay',
      'Dear Ann',
    ]);
    const verdict = await checkShownValues(ocr, editor, white, screen, RECORDED, spots);
    expect(verdict).toMatchObject({ kind: 'missing', read: 'Dear Ann', by: 'app' });
  });

  it('is missing when the value stands on another line of a paragraph the editor wraps', async () => {
    // One paragraph, no line end: the editor draws it on two lines, the value on the first.
    const editor = app(textArea('Second line from replay Dear Ann'), [
      'Second line from replay ',
      'Dear Ann',
    ]);
    const verdict = await checkShownValues(ocr, editor, white, screen, RECORDED, spots);
    expect(verdict).toMatchObject({ kind: 'missing', read: 'Dear Ann', by: 'app' });
  });

  it('never takes a container whose words live in child objects', async () => {
    const page = { ...textArea('\ufffc\ufffc'), role: 'document web' };
    const browser = app(page, ['Dear Ann', 'Second line from replay']);
    const verdict = await checkShownValues(ocr, browser, white, screen, RECORDED, spots);
    expect(verdict).toMatchObject({ kind: 'missing', by: 'ocr' });
    expect(browser.asked).toBe(0);
  });
});

describe('a value in a field taller than its line (a GTK 4 entry)', { timeout: 30_000 }, () => {
  const ocr = new OcrEngine();
  afterAll(() => ocr.close());

  /** GTK 4.8 reports an entry 32 px tall around a line OCR reads 9 px tall, and says no character's place. */
  const entry = (text: string): AccessibleElement => ({
    role: 'text box',
    name: 'GtkEntry',
    label: null,
    app: 'form.py',
    window: { role: 'window', name: 'gtk4-form Address' },
    path: [{ role: 'text box', name: 'GtkEntry', index: 1 }],
    states: ['editable', 'focusable', 'visible'],
    extents: { x: 80, y: 50, width: 315, height: 32 },
    text,
  });
  const field: ExampleSpots = [
    {
      value: { name: 'name', example: 'Ann Lee', value: 'Bob Jones' },
      box: { x: 80, y: 61, width: 51, height: 9 },
    },
  ];

  it('is read from the app: its one line is its whole text', async () => {
    const form = app(entry('Bob Jones'), []);
    const verdict = await checkShownValues(ocr, form, white, screen, RECORDED, field);
    expect(verdict).toEqual({ kind: 'shown', checked: 1, read: 'app' });
    expect(form.asked).toBe(0);
  });

  it('is missing where the field holds another value, as the app says', async () => {
    const form = app(entry('Ann Lee'), []);
    const verdict = await checkShownValues(ocr, form, white, screen, RECORDED, field);
    expect(verdict).toMatchObject({ kind: 'missing', read: 'Ann Lee', by: 'app' });
  });
});

describe('a key whose change shows the values (a Tk form’s Enter, replayed at 1.25x and smaller)', {
  timeout: 60_000,
}, async () => {
  const ocr = new OcrEngine();
  afterAll(() => ocr.close());
  // Recorded: Enter shows "Sent to Ann Lee in Paris"; live at 1.25x, "Sent to Bob Jones in Rome",
  // bigger and a line lower, in a window of the recorded size.
  const before = await frame('recorded-before-enter.png');
  const after = await frame('recorded-after-enter.png');
  const live = await frame('live-after-enter-1.25x.png');
  const region = changedRegion(before, after);
  const values = [
    { name: 'text_1', example: 'Ann Lee', value: 'Bob Jones' },
    { name: 'text_2', example: 'Paris', value: 'Rome' },
  ];

  it('is not told by layout: other values in another size change other places', () => {
    if (!region) throw new Error('the recording shows no change');
    expect(checkChange(live, before, after, region, RECORDED).ok).toBe(false);
  });

  it('is told by content: the change shows the examples, and the live line this run’s values', async () => {
    if (!region) throw new Error('the recording shows no change');
    const spots = await findExamples(reader(ocr), before, after, region, values);
    expect(spotsIn(spots, region)).toBe(true);
    expect(spotsIn(spots, { x: 0, y: 0, width: 60, height: 60 })).toBe(false);
    expect(await checkShownValues(ocr, null, live, region, RECORDED, spots)).toMatchObject({ kind: 'shown' });
    // A window 3/4 the size: the line at its bottom edge, the blank screen beside it; the outcome's
    // region is the whole subtask's change (the fields and the line).
    const smaller = await frame('live-after-enter-smaller.png');
    const subtask = { x: 78, y: 96, width: 323, height: 146 };
    expect(await checkShownValues(ocr, null, smaller, subtask, RECORDED, spots)).toMatchObject({
      kind: 'shown',
    });
    // The app that drops the city on Send: "Sent to Bob Jones in " (Rome painted over).
    const data = new Uint8Array(live.data);
    const background = data.slice((240 * live.width + 400) * 4, (240 * live.width + 400) * 4 + 4);
    for (let y = 238; y < 270; y += 1)
      for (let x = 284; x < 360; x += 1) data.set(background, (y * live.width + x) * 4);
    const dropped = { ...live, data };
    expect(await checkShownValues(ocr, null, dropped, region, RECORDED, spots)).toMatchObject({
      kind: 'missing',
      value: { name: 'text_2' },
    });
  });
});

/** A white screen with lines of text, as an app draws them (each at its y). */
async function drawn(lines: ReadonlyArray<{ y: number; text: string }>): Promise<RgbaImage> {
  const texts = lines.map(
    ({ y, text }) =>
      `<text x="20" y="${y}" font-family="DejaVu Sans, sans-serif" font-size="18">${text}</text>`,
  );
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="640" height="200"><rect width="640" height="200" fill="white"/>${texts.join('')}</svg>`;
  return decodeImage(await sharp(Buffer.from(svg)).png().toBuffer());
}

describe('the examples a subtask shows', () => {
  const ocr = new OcrEngine();
  afterAll(() => ocr.close());

  it('are where the recording shows them after the subtask, not where they stood already before it', async () => {
    const field = { y: 40, text: 'City: Paris' };
    const before = await drawn([field]);
    const after = await drawn([field, { y: 120, text: 'Sent to Ann Lee in Paris' }]);
    const values = [
      { name: 'name', example: 'Ann Lee', value: 'Bob Jones' },
      { name: 'city', example: 'Paris', value: 'Rome' },
    ];
    const spots = await findExamples(
      reader(ocr),
      before,
      after,
      { x: 0, y: 0, width: 640, height: 200 },
      values,
    );
    expect(spots.map((s) => s.value.name).sort()).toEqual(['city', 'name']);
    // Both on the sent line (its text's middle at about y 114), none on the field's line.
    for (const { box } of spots) expect(Math.abs(box.y + box.height / 2 - 114)).toBeLessThan(12);
    // Nothing new after the subtask: no spot.
    expect(
      await findExamples(reader(ocr), before, before, { x: 0, y: 0, width: 640, height: 200 }, values),
    ).toEqual([]);
  });
});

describe('a focused field’s value next to its caret (the GTK 4 form’s City field, "Paris|")', {
  timeout: 60_000,
}, async () => {
  const ocr = new OcrEngine();
  afterAll(() => ocr.close());
  const gtk4 = async (name: string) =>
    decodeImage(await readFile(new URL(`../../../fixtures/frames/gtk4-form-caret/${name}`, import.meta.url)));
  // The subtask's change (Name, City, the sent line), and the place of the City field's text.
  const region = { x: 445, y: 301, width: 391, height: 154 };
  // The example's box as OCR found it in the recording, 26 px tall with the caret and the field's edge.
  const city = (value: string): ExampleSpots => [
    { value: { name: 'text_2', example: 'Paris', value }, box: { x: 511, y: 353, width: 29, height: 26 } },
  ];
  // The GTK 4 form as recorded: the City field holds "Paris", its caret at full strength a pixel
  // after the "s" (OCR reads "Paris]"); as replayed: "Rome", its caret fading a pixel after the "e";
  // and that frame with the caret as GTK 4 draws it at full strength over the "e"'s last column
  // (OCR reads "Rome" at 5-18% confidence: nothing, where words under 50% are dropped).
  const caret = await gtk4('recorded-paris-caret.png');
  const faint = await gtk4('live-rome-faint-caret.png');
  const glued = await gtk4('live-rome-caret.png');
  // A replay's end the matrix judged a divergence ("that line reads \"city |\""): "Rome", caret dark.
  const run = await gtk4('live-rome-run.png');

  it('is read without the caret glued to its last glyph', async () => {
    for (const [live, value] of [
      [run, 'Rome'],
      [glued, 'Rome'],
      [caret, 'Paris'],
      [faint, 'Rome'],
    ] as const) {
      expect(await checkShownValues(ocr, null, live, region, RECORDED, city(value))).toMatchObject({
        kind: 'shown',
        read: 'ocr',
      });
    }
  });

  it('is missing where the field holds another value, caret or not', async () => {
    for (const [live, value] of [
      [caret, 'Rome'],
      [run, 'Paris'],
      [glued, 'Paris'],
      [faint, 'Paris'],
    ] as const) {
      expect(await checkShownValues(ocr, null, live, region, RECORDED, city(value))).toMatchObject({
        kind: 'missing',
        value: { name: 'text_2', value },
        by: 'ocr',
      });
    }
  });
});

describe('an example glued to its caret in the recording (Mousepad’s "First line|", replayed at 1.25x)', {
  timeout: 60_000,
}, async () => {
  const ocr = new OcrEngine();
  afterAll(() => ocr.close());
  const mousepad = async (name: string) =>
    decodeImage(await readFile(new URL(`../../../fixtures/frames/mousepad-caret/${name}`, import.meta.url)));
  // Recorded: the editor empty, then "First line" saved with its caret a pixel after the "e" (OCR
  // reads "First" alone); live under GDK_DPI_SCALE=1.25: "Second line from replay", its text 1.25x
  // as big, the text area 6 px lower, the window (and the text area's width) as recorded.
  const before = await mousepad('recorded-before.png');
  const after = await mousepad('recorded-after.png');
  const live = await mousepad('live-1.25x.png');
  const region = changedRegion(before, after);
  const example = (value: string) => [{ name: 'text_1', example: 'First line', value }];
  // Where the text area's element puts the layout: moved down 6 px, its size telling no scale.
  const layout = { scale: 1, dx: 0, dy: 6 };

  it('is found in the recording without the caret, so content decides the outcome', async () => {
    if (!region) throw new Error('the recording shows no change');
    // Layout alone cannot tell at 1.25x: the bigger text changes other places than recorded.
    expect(checkChange(live, before, after, region, layout).ok).toBe(false);
    const spots = await findExamples(reader(ocr), before, after, region, example('Second line from replay'));
    expect(spots).toHaveLength(1);
    expect(spots[0]?.box.x).toBeLessThan(330);
    expect(await checkShownValues(ocr, null, live, region, layout, spots)).toMatchObject({
      kind: 'shown',
      read: 'ocr',
    });
    // The editor as the app reads it at that line (GTK's lineAt): read from the app.
    const editor = {
      ...textArea('Second line from replay'),
      app: 'mousepad',
      extents: { x: 321, y: 225, width: 638, height: 419 },
    };
    const lineAt = async () => 'Second line from replay';
    expect(
      await checkShownValues(ocr, { ...app(editor, []), lineAt }, live, region, layout, spots),
    ).toMatchObject({ kind: 'shown', read: 'app' });
  });

  it('fails a wrong outcome: another line saved, or nothing typed', async () => {
    if (!region) throw new Error('the recording shows no change');
    const spots = await findExamples(reader(ocr), before, after, region, example('Third line from replay'));
    expect(spots).toHaveLength(1);
    expect(await checkShownValues(ocr, null, live, region, layout, spots)).toMatchObject({
      kind: 'missing',
      by: 'ocr',
    });
    expect(await checkShownValues(ocr, null, before, region, layout, spots)).toMatchObject({
      kind: 'missing',
    });
  });
});
