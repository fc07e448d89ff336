/**
 * What each rung of the ladder costs on a real screen: the Name field of the form page in Chromium
 * (Xvfb 1280x800, its accessibility tree on the display's own bus), found by its element, at its
 * recorded place, near where the layout is expected and anywhere on the screen (the frame moved by
 * (60, 40)); and the content checks: the focused field's text after typing, and the OCR of a value
 * shown at the end of a subtask, and what that check first needs from the recorded frames (where they
 * show the examples: OCR of two crops, read anew or from the workflow's cache). Medians of 30 (OCR:
 * 10) in this process, after one warm-up each.
 * Run from the repository root: `pnpm bench replay`.
 */

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FORM_APP_PATH, startDesktopHarness } from '@mime-desktop/test-support/desktop-harness';
import sharp from 'sharp';

const RUNS = 30;
const harness = await startDesktopHarness({ app: FORM_APP_PATH });
process.env.DISPLAY = harness.display;
process.env.DBUS_SESSION_BUS_ADDRESS = harness.env.DBUS_SESSION_BUS_ADDRESS;
const { createDesktop } = await import('@mime-desktop/os-io');
const { identityOf } = await import('@mime-desktop/schema');
const { decodeImage, OcrEngine } = await import('@mime-desktop/vision');
const { accessibilityLocator, autoPlaceLocator, templateLocator } = await import(
  '../src/recorded/locators.ts'
);
const { liveImage } = await import('../src/actions/screen-text.ts');
const { checkShownValues, findExamples } = await import('../src/recorded/shown-values.ts');
const { RecordedOcr } = await import('../src/recorded/recorded-ocr.ts');
const { CHECKS_CACHE_FOLDER } = await import('@mime-desktop/schema');

const desktop = await createDesktop({ failSafe: false });
const a11y = await desktop.accessibility();
if (!a11y) throw new Error('no accessibility bus on the harness display');
const identity = {
  role: 'entry',
  name: 'Name',
  label: null,
  app: 'Chromium',
  window: { role: 'frame', name: '' },
  path: [],
  states: [],
  extents: null,
};
let found = await a11y.find(identity);
for (let i = 0; i < 50 && found.length !== 1; i += 1) {
  await new Promise((resolve) => setTimeout(resolve, 100));
  found = await a11y.find(identity);
}
const [name] = found;
if (!name?.extents) throw new Error('the Name field was not found');
const box = name.extents;
const point = { x: Math.round(box.x + box.width / 2), y: Math.round(box.y + box.height / 2) };
const step = {
  i: 0,
  expected_current_state: '',
  intent: 'click the Name field',
  target: { primary: 'Name field', fallback: null, element: identityOf(name) },
  action_type: 'CLICK' as const,
  action_value: null,
  post_action: [],
  variable_name: null,
  source: {
    event_index: 0,
    screenshot: 'screenshots/0.png',
    point,
    end_point: null,
    box: { x: point.x - 80, y: point.y - 32, width: 160, height: 64 },
  },
};
const pre = await liveImage(await desktop.captureFrame());
const raw = { raw: { width: pre.width, height: pre.height, channels: 4 as const } };
const extended = await sharp(pre.data, raw)
  .extend({ left: 60, top: 40, background: '#f6f7f9' })
  .png()
  .toBuffer();
const moved = await decodeImage(
  await sharp(extended).extract({ left: 0, top: 0, width: pre.width, height: pre.height }).png().toBuffer(),
);

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;
async function time(runs: number, work: () => Promise<unknown>): Promise<number> {
  await work();
  const times: number[] = [];
  for (let i = 0; i < runs; i += 1) {
    const started = performance.now();
    await work();
    times.push(performance.now() - started);
  }
  return median(times);
}
async function expectRung(
  result: Promise<{ ok: boolean | 'unanswered'; value?: { rung?: string } } | null>,
  rung: string,
) {
  const look = await result;
  if (look?.ok !== true || look.value?.rung !== rung)
    throw new Error(`the ${rung} rung did not find the target`);
}

const accessibility = accessibilityLocator(a11y);
const rows: Array<[string, number]> = [
  ['accessibility: the element found again by its identity', await time(RUNS, () => expectRung(accessibility.locate({ step, pre, live: pre, layout: null }), 'accessibility'))],
  ['recorded place: the crop where it was recorded', await time(RUNS, () => expectRung(autoPlaceLocator.locate({ step, pre, live: pre, layout: null }), 'recorded-place'))],
  ['template near: the crop near the expected layout (moved)', await time(RUNS, () => expectRung(templateLocator.locate({ step, pre, live: moved, layout: { scale: 1, dx: 50, dy: 30 } }), 'template-near'))],
  ['template anywhere: the crop anywhere, any scale (moved)', await time(RUNS, () => expectRung(templateLocator.locate({ step, pre, live: moved, layout: null }), 'template-anywhere'))],
  ['typing checked: the focused field and its text', await time(RUNS, () => a11y.focused())],
]; // biome-ignore format: a table

// A shown value: the recording shows "Ann Lee" typed in the Name field; the live screen the same.
await harness.click(point.x, point.y);
await harness.typeText('Ann Lee');
await harness.pressKeys('Tab'); // the caret leaves the field
await new Promise((resolve) => setTimeout(resolve, 300));
const after = await liveImage(await desktop.captureFrame());
const ocr = new OcrEngine();
const values = [{ name: 'name', example: 'Ann Lee', value: 'Ann Lee' }];
const region = { x: box.x, y: box.y, width: box.width, height: box.height };
// Where the recording shows the examples, as a run's first outcome check finds them: the recorded
// frames read by OCR (cold: no cache in the workflow folder; the engine's worker started or not), or
// taken from the workflow's cache (a run after the first).
const workflow = await mkdtemp(join(tmpdir(), 'mime-bench-workflow-'));
const findSpots = (engine: InstanceType<typeof OcrEngine>) => async () => {
  const found = await findExamples(new RecordedOcr(workflow, engine).readCrop, pre, after, region, values);
  if (found.length !== 1) throw new Error('the OCR did not find the example value');
  return found;
};
const uncached = (work: () => Promise<unknown>) => async () => {
  await rm(join(workflow, CHECKS_CACHE_FOLDER), { recursive: true, force: true });
  await work();
};
const coldStart = await time(5, async () => {
  const engine = new OcrEngine();
  await uncached(findSpots(engine))();
  await engine.close();
});
const cold = await time(10, uncached(findSpots(ocr)));
const spots = await findSpots(ocr)();
const cached = await time(10, findSpots(ocr));
await rm(workflow, { recursive: true, force: true });
rows.push(['first outcome: where the recorded frames show the examples, cold (OCR worker started for it)', coldStart]); // biome-ignore format: a table
rows.push(['first outcome: where the recorded frames show the examples, cold (OCR worker running)', cold]); // biome-ignore format: a table
rows.push(['first outcome: where the recorded frames show the examples, from the workflow cache', cached]); // biome-ignore format: a table
const checkOutcome = (tree: typeof a11y | null, by: 'app' | 'ocr') => async () => {
  const verdict = await checkShownValues(ocr, tree, after, region, { scale: 1, dx: 0, dy: 0 }, spots);
  if (verdict.kind !== 'shown' || verdict.read !== by) throw new Error(`the value was not read by ${by}`);
};
rows.push([
  'outcome checked by content: read from the app (its tree)',
  await time(10, checkOutcome(a11y, 'app')),
]);
rows.push(['outcome checked by content: OCR of the lines around (no tree, worker started)', await time(10, checkOutcome(null, 'ocr'))]); // biome-ignore format: a table

process.stdout.write(
  `replay: the cost of each rung and check (Name field of the form page, Xvfb ${pre.width}x${pre.height}, medians)\n${rows
    .map(([what, ms]) => `  ${what}: ${ms.toFixed(1)} ms`)
    .join('\n')}\n`,
);
await ocr.close();
await desktop.close();
await harness.stop();
process.exit(0);
