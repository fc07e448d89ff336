/**
 * The ladder's locators and the checks, on pairs of frames (the demo app's recorded frame and the
 * same frame moved, synthetic forms) and on accessibility snapshots: no desktop, no journal.
 */
import { join } from 'node:path';
import type { AccessibleElement, WorkflowStep } from '@mime-desktop/schema';
import { decodeImage, type RgbaImage } from '@mime-desktop/vision';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import {
  checkPlace,
  checkTypedText,
  fieldTexts,
  inOtherColours,
  typedTextCheckable,
} from '../src/recorded/checks.ts';
import { RECORDED } from '../src/recorded/layout-map.ts';
import { locate } from '../src/recorded/locators.ts';
import { autoLadder, traceLadder } from '../src/recorded/recorded-mode.ts';
import { aboutALine, plainText } from '../src/recorded/shown-values.ts';
import { WindowPlacer } from '../src/recorded/window-placer.ts';
import { clickStep } from './click-step.ts';
import { element, moved, snapshot } from './ladder-fixtures.ts';
import { CHANGES, changedScreen } from './screen-variants.ts';

const DEMO = join(import.meta.dirname, '..', '..', '..', 'fixtures', 'workflows', 'play-song-recorded');

const step = (point: { x: number; y: number }, element?: AccessibleElement) => clickStep(point, { element });

/** A white frame with black rectangle outlines (fields) and filled blocks (text). */
function frame(
  width: number,
  height: number,
  shapes: Array<{ x: number; y: number; width: number; height: number; fill?: boolean }>,
): RgbaImage {
  const data = new Uint8Array(width * height * 4).fill(255);
  for (const s of shapes) {
    for (let y = s.y; y < s.y + s.height; y += 1) {
      for (let x = s.x; x < s.x + s.width; x += 1) {
        const edge = y === s.y || y === s.y + s.height - 1 || x === s.x || x === s.x + s.width - 1;
        if (!s.fill && !edge) continue;
        // Text-like blocks: stripes, so they have detail.
        if (s.fill && x % 3 === 0) continue;
        const i = (y * width + x) * 4;
        data[i] = 0;
        data[i + 1] = 0;
        data[i + 2] = 0;
      }
    }
  }
  return { width, height, data };
}

describe('the ladder on the demo app’s recorded frame', async () => {
  const pre = await decodeImage(join(DEMO, 'screenshots', '0.png'));
  const searchBox = step({ x: 240, y: 120 });

  it('trace finds the target at its place, and misses it when the app moved', async () => {
    const same = await locate(traceLadder(null, null), { step: searchBox, pre, live: pre, layout: null });
    expect(same.ok && same.value.rung).toBe('recorded-place');
    const live = await moved(pre, 60, 40);
    const miss = await locate(traceLadder(null, null), { step: searchBox, pre, live, layout: null });
    expect(miss.ok).toBe(false);
    expect(!miss.ok && miss.failure.reason).toBe('the target does not look as recorded');
  });

  it('trace keeps the layout an element was found at for a step without a target (typing after it)', async () => {
    const live = await moved(pre, 60, 40);
    const typing = {
      ...searchBox,
      action_type: 'TYPE',
      source: { ...searchBox.source, point: null, box: null },
    };
    const layout = { scale: 1, dx: 60, dy: 40 };
    for (const ladder of [traceLadder, autoLadder]) {
      const found = await locate(ladder(null, null), { step: typing as WorkflowStep, pre, live, layout });
      expect(found.ok && found.value.layout).toEqual(layout);
    }
  });

  it('auto re-finds a moved target anywhere on the screen, then near where the layout now is', async () => {
    const live = await moved(pre, 60, 40);
    const first = await locate(autoLadder(null, null), { step: searchBox, pre, live, layout: null });
    if (!first.ok) throw new Error(first.failure.reason);
    expect(first.value.rung).toBe('template-anywhere');
    expect(first.value.map({ x: 240, y: 120 })).toEqual({ x: 300, y: 160 });
    const next = await locate(autoLadder(null, null), {
      step: searchBox,
      pre,
      live,
      layout: first.value.layout,
    });
    expect(next.ok && next.value.rung).toBe('recorded-place');
    expect(next.ok && next.value.map({ x: 240, y: 120 })).toEqual({ x: 300, y: 160 });
  });

  it('a step without a target after the layout was found moved is checked after, in both modes; in place, against the whole screen', async () => {
    const typing: WorkflowStep = { ...searchBox, action_type: 'TYPE', action_value: 'Numb' };
    if (!typing.source) throw new Error('the step has no source');
    typing.source = { ...typing.source, point: null, box: null };
    // A black screen of the recorded size: alike the recording neither by pixels nor by edges.
    const live: RgbaImage = { ...pre, data: new Uint8Array(pre.data.length).fill(0) };
    const input = { step: typing, pre, live, layout: { scale: 1, dx: 60, dy: 40 } };
    for (const ladder of [traceLadder, autoLadder]) {
      const found = await locate(ladder(null, null), input);
      expect(found.ok && found.value.reason).toBe('the layout was found moved: checked after');
      // Where the layout was found in place, the screen as a whole is compared.
      const inPlace = await locate(ladder(null, null), { ...input, layout: RECORDED });
      expect(!inPlace.ok && inPlace.failure.reason).toMatch(/not the one recorded before this step/);
    }
  });

  it('finds the element by its identity first, at its live extents, and leaves an ambiguous one to the pixels', async () => {
    const recorded = element({ x: 40, y: 96, width: 400, height: 48 });
    const withElement = step({ x: 240, y: 120 }, recorded);
    const live = await moved(pre, 60, 40);
    const a11y = snapshot([element({ x: 100, y: 136, width: 400, height: 48 })]);
    const found = await locate(autoLadder(a11y, null), { step: withElement, pre, live, layout: null });
    if (!found.ok) throw new Error(found.failure.reason);
    expect(found.value.rung).toBe('accessibility');
    expect(found.value.map({ x: 240, y: 120 })).toEqual({ x: 300, y: 160 });
    expect(found.value.layout).toEqual({ scale: 1, dx: 60, dy: 40 });
    const twice = snapshot([
      element({ x: 100, y: 136, width: 400, height: 48 }),
      element({ x: 0, y: 0, width: 9, height: 9 }),
    ]);
    const ambiguous = await locate(autoLadder(twice, null), { step: withElement, pre, live, layout: null });
    expect(ambiguous.ok && ambiguous.value.rung).toBe('template-anywhere');
  });

  it('says why the element rung could not look where its window has no known place, beside what the pixels found or missed', async () => {
    const recorded = element({ x: 40, y: 96, width: 400, height: 48 });
    const withElement = step({ x: 240, y: 120 }, recorded);
    const a11y = snapshot([element({ x: 100, y: 136, width: 400, height: 48 })]);
    const windows = { findInWindow: async () => [], place: () => undefined };
    // No recorded element to measure the window by (none was recorded with its look).
    const placer = new WindowPlacer(windows, async () => []);
    const found = await locate(autoLadder(a11y, null, placer), {
      step: withElement,
      pre,
      live: await moved(pre, 60, 40),
      layout: null,
    });
    if (!found.ok) throw new Error(found.failure.reason);
    expect(found.value.rung).toBe('template-anywhere');
    expect(found.value.reason).toMatch(
      /\(its element not placed: the place of the window 'mime-demo' of Chromium is unknown \(mutter does not tell\): none of its recorded elements is distinctive/,
    );
    const black: RgbaImage = { ...pre, data: new Uint8Array(pre.data.length).fill(0) };
    const missed = await locate(autoLadder(a11y, null, placer), {
      step: withElement,
      pre,
      live: black,
      layout: null,
    });
    expect(!missed.ok && missed.failure.reason).toMatch(
      /alike\) \(its element not placed: the place of the window 'mime-demo'/,
    );
  });

  it('says why the element was not found beside a miss, and not beside what the pixels found', async () => {
    const withElement = step({ x: 240, y: 120 }, element({ x: 40, y: 96, width: 400, height: 48 }));
    const none = snapshot([]);
    const found = await locate(traceLadder(none, null), { step: withElement, pre, live: pre, layout: null });
    if (!found.ok) throw new Error(found.failure.reason);
    expect(found.value.reason).toBe('the screen matches the recording around the target (100% alike)');
    const black: RgbaImage = { ...pre, data: new Uint8Array(pre.data.length).fill(0) };
    const missed = await locate(traceLadder(none, null), {
      step: withElement,
      pre,
      live: black,
      layout: null,
    });
    expect(!missed.ok && missed.failure.reason).toMatch(/\(its element not found in Chromium's windows\)$/);
  });

  it('takes no scale from an element whose size follows its window (a notebook, a text area, a stretched field), only where it went', async () => {
    const layoutOf = async (recorded: AccessibleElement, live: AccessibleElement['extents']) => {
      const found = await locate(autoLadder(snapshot([{ ...recorded, extents: live }]), null), {
        step: step({ x: 240, y: 120 }, recorded),
        pre,
        live: pre,
        layout: null,
      });
      if (!found.ok) throw new Error(found.failure.reason);
      return found.value.layout;
    };
    const full = { x: 20, y: 60, width: 600, height: 400 };
    // The window made 3/4 as big: the notebook and the editor's text with it, the app's text not.
    const smaller = { x: 20, y: 60, width: 450, height: 300 };
    const notebook = { ...element(full), role: 'page tab list', name: '' };
    expect(await layoutOf(notebook, smaller)).toEqual({ scale: 1, dx: 0, dy: 0 });
    const editor = { ...element(full), role: 'text', name: '', states: ['showing', 'multi-line'] };
    expect(await layoutOf(editor, { ...smaller, x: 80, y: 100 })).toEqual({ scale: 1, dx: 60, dy: 40 });
    // A field that fills its row, in that window (a GTK 4 entry): narrower, as tall; not a smaller scale.
    const entry = element({ x: 40, y: 96, width: 315, height: 32 });
    expect(await layoutOf(entry, { x: 210, y: 213, width: 210, height: 32 })).toEqual({
      scale: 1,
      dx: 170,
      dy: 117,
    });
    // A control drawn 1.25x as big is at that scale.
    const field = element({ x: 40, y: 96, width: 400, height: 48 });
    expect(await layoutOf(field, { x: 50, y: 120, width: 500, height: 60 })).toEqual({
      scale: 1.25,
      dx: 0,
      dy: 0,
    });
  });
});

describe('a featureless target (the inside of an empty field)', () => {
  // A field at (100, 100); the target box lies inside it, all white.
  const field = { x: 100, y: 100, width: 300, height: 100 };
  const pre = frame(800, 600, [field, { x: 100, y: 60, width: 60, height: 14, fill: true }]);
  const live = frame(800, 600, [
    { ...field, x: 400, y: 350 },
    { x: 400, y: 310, width: 60, height: 14, fill: true },
  ]);
  const inside = step({ x: 250, y: 150 });

  it('is not "found where it was recorded" on the blank page the field left', async () => {
    const found = await locate(autoLadder(null, null), { step: inside, pre, live, layout: null });
    expect(found.ok && found.value.rung).not.toBe('recorded-place');
    if (found.ok) expect(found.value.map({ x: 250, y: 150 })).toEqual({ x: 550, y: 400 });
  });

  it('is found at its place when its surroundings are there too', async () => {
    const found = await locate(autoLadder(null, null), { step: inside, pre, live: pre, layout: null });
    expect(found.ok && found.value.rung).toBe('recorded-place');
  });
});

describe('a thin label (a target with edges, mostly background)', () => {
  // A label of stripes at (200, 140), 50x12, inside the target box of a click on it (160x64).
  const label = { x: 200, y: 140, width: 50, height: 12, fill: true };
  const pre = frame(800, 600, [label]);
  const click = step({ x: 225, y: 146 });

  it('is not "found where it was recorded" where the label is gone, though the grey levels stay alike', async () => {
    const live = frame(800, 600, []);
    const found = await locate(autoLadder(null, null), { step: click, pre, live, layout: null });
    expect(found.ok && found.value.rung).not.toBe('recorded-place');
  });

  it('is found at its place where it still is, and where the label moved, by its crop', async () => {
    const there = await locate(autoLadder(null, null), { step: click, pre, live: pre, layout: null });
    expect(there.ok && there.value.rung).toBe('recorded-place');
    const live = frame(800, 600, [{ ...label, x: 500, y: 400 }]);
    const moved = await locate(autoLadder(null, null), { step: click, pre, live, layout: null });
    if (!moved.ok) throw new Error(moved.failure.reason);
    expect(moved.value.map({ x: 225, y: 146 })).toEqual({ x: 525, y: 406 });
  });
});

describe('a subtask’s first target re-found anywhere', () => {
  // A striped block (a control) with its context around it, in a window the desktop places at `win`.
  const win = { x: 20, y: 20, width: 300, height: 300 };
  const other = { x: 360, y: 20, width: 260, height: 300 };
  const target = { x: 100, y: 100, width: 60, height: 24 };
  const pre = frame(640, 400, [
    win,
    other,
    { ...target, fill: true },
    { x: 40, y: 104, width: 50, height: 16, fill: true },
    { x: 170, y: 92, width: 20, height: 40, fill: true },
    { x: 100, y: 70, width: 60, height: 10, fill: true },
  ]);
  const base = clickStep({ x: 130, y: 112 }, { window: { title: 'Form', classes: ['form'], box: win } });
  const click = { ...base, source: { ...base.source, box: target } } as WorkflowStep;

  it('is not found in another window, where only its own box (without its context) is alike', async () => {
    // Its window stands where it was recorded, without it; a control alike shows in another window.
    const live = frame(640, 400, [win, other, { ...target, x: 400, fill: true }]);
    const found = await locate(autoLadder(null, null), { step: click, pre, live, layout: null, window: win });
    expect(found.ok).toBe(false);
    expect(!found.ok && found.failure.reason).toMatch(/^the recorded target was not found/);
  });

  it('is found by its own box where it moved inside its window', async () => {
    const live = frame(640, 400, [win, other, { ...target, x: 250, fill: true }]);
    const found = await locate(autoLadder(null, null), { step: click, pre, live, layout: null, window: win });
    expect(found.ok && found.value.rung).toBe('template-anywhere');
    expect(found.ok && found.value.map({ x: 130, y: 112 })).toEqual({ x: 280, y: 112 });
  });
});

describe('checks', () => {
  const name = { x: 100, y: 100, width: 300, height: 40 };
  const city = { x: 100, y: 200, width: 300, height: 40 };
  const before = frame(600, 400, [name, city]);

  it('typing is checked where it was typed, whatever else changed (a focus ring moving on)', () => {
    const recordedCells = 60;
    const typedThere = frame(600, 400, [
      name,
      city,
      { x: 110, y: 110, width: 90, height: 20, fill: true },
      { ...city, x: 98, y: 198, width: 304, height: 44 },
    ]);
    expect(checkPlace(before, typedThere, name, recordedCells).ok).toBe(true);
    const typedElsewhere = frame(600, 400, [
      name,
      city,
      { x: 110, y: 210, width: 90, height: 20, fill: true },
    ]);
    expect(checkPlace(before, typedElsewhere, name, recordedCells).ok).toBe(false);
  });

  it('a key is checked by place, not by pixels, only where the screen is in other colours than recorded (a dark theme)', () => {
    // The recording: a title block appears in the name field after the key.
    const after = frame(600, 400, [name, city, { x: 110, y: 110, width: 90, height: 20, fill: true }]);
    const dark = (image: RgbaImage): RgbaImage => ({
      ...image,
      data: image.data.map((v, i) => (i % 4 === 3 ? v : 255 - v)),
    });
    expect(inOtherColours(before, before, name, RECORDED)).toBe(false);
    expect(inOtherColours(dark(before), before, name, RECORDED)).toBe(true);
    // Another value already in the field (an app not at its recorded start) is not another theme.
    expect(inOtherColours(after, before, name, RECORDED)).toBe(false);
    // In the dark, the change is still asked for where the recording changed: none there fails.
    const recordedCells = 60;
    expect(checkPlace(dark(before), dark(after), name, recordedCells).ok).toBe(true);
    expect(checkPlace(dark(before), dark(before), name, recordedCells).ok).toBe(false);
  });

  it('typing is checked by the focused field’s text where the tree tells, never for a secret', () => {
    const field = { ...element({ x: 0, y: 0, width: 1, height: 1 }, 'City') };
    expect(checkTypedText({ ...field, text: 'Rome' }, 'Rome', null)).toEqual({ kind: 'holds' });
    expect(checkTypedText({ ...field, text: '' }, 'Rome', null).kind).toBe('differs');
    expect(checkTypedText({ ...field }, 'Rome', null).kind).toBe('unknown');
    // Exactly the recorded field's text with this run's value in: a pre-filled field does not hold it.
    expect(checkTypedText({ ...field, text: 'Rome\n' }, 'Rome', 'Rome')).toEqual({ kind: 'holds' });
    expect(checkTypedText({ ...field, text: 'Zzz Rome' }, 'Rome', 'Rome').kind).toBe('differs');
    // The recorded field's texts with this run's value put in where the recording's was.
    expect(fieldTexts('To: Ann.', 'Ann', 'Bob')).toEqual({ before: 'To: .', after: 'To: Bob.' });
    expect(fieldTexts('Ann and Ann', 'Ann', 'Bob')).toBeNull();
    expect(fieldTexts(undefined, 'Ann', 'Bob')).toBeNull();
    // A browser's field or paragraph that keeps its words in child objects cannot tell.
    expect(checkTypedText({ ...field, text: '\ufffc\ufffc' }, 'Rome', 'Rome').kind).toBe('unknown');
    expect(plainText('\ufffc\ufffc')).toBeNull();
    expect(plainText('  ')).toBeNull();
    expect(plainText('Now playing: Faint')).toBe('Now playing: Faint');
    // Only an element about a line tall tells what a line shows (not the page holding every line).
    const line = { x: 0, y: 100, width: 80, height: 16 };
    expect(aboutALine({ ...field, extents: { x: 0, y: 98, width: 200, height: 20 } }, line)).toBe(true);
    expect(aboutALine({ ...field, extents: { x: 0, y: 0, width: 1280, height: 800 } }, line)).toBe(false);
    expect(typedTextCheckable(field, 'Rome')).toBe(true);
    expect(typedTextCheckable({ ...field, role: 'password text' }, 'hunter2')).toBe(false);
    expect(typedTextCheckable(field, '{password}')).toBe(false);
    expect(typedTextCheckable(undefined, 'Rome')).toBe(false);
  });
});

/** A failure's figure and threshold: the figure is always below it. */
function expectBelowThreshold(look: Awaited<ReturnType<typeof locate>>) {
  if (look.ok) throw new Error(`found: ${look.value.reason}`);
  expect(look.failure.similarity).toBeLessThan(look.failure.threshold);
  return look.failure;
}

const MOUSEPAD = join(
  import.meta.dirname,
  '..',
  '..',
  '..',
  'fixtures',
  'workflows',
  'mousepad-save',
  'screenshots',
);

describe('a featureless target on a real app: the click into Mousepad’s empty document', async () => {
  const file = join(MOUSEPAD, '0.png');
  const pre = await decodeImage(file);
  const click = step({ x: 641, y: 427 });

  it('is found where it was recorded on the recorded screen, by its surroundings', async () => {
    for (const ladder of [traceLadder, autoLadder]) {
      const found = await locate(ladder(null, null), { step: click, pre, live: pre, layout: null });
      expect(found.ok && found.value.rung).toBe('recorded-place');
    }
  });

  it('is never "found where it was recorded" on the blank document after the window moved', async () => {
    // Moved so that the recorded place still shows the blank document: 100% alike by pixels.
    const live = await changedScreen(file, { dx: 200, dy: 100 });
    const trace = expectBelowThreshold(
      await locate(traceLadder(null, null), { step: click, pre, live, layout: null }),
    );
    expect(trace.reason).toMatch(/featureless/);
    const auto = await locate(autoLadder(null, null), { step: click, pre, live, layout: null });
    if (!auto.ok) throw new Error(auto.failure.reason);
    expect(auto.value.rung).toBe('template-anywhere');
    expect(auto.value.map({ x: 641, y: 427 })).toEqual({ x: 841, y: 527 });
  });

  for (const { name, change } of CHANGES.slice(2)) {
    it(`auto re-finds it ${name}`, async () => {
      const live = await changedScreen(file, change);
      const found = await locate(autoLadder(null, null), { step: click, pre, live, layout: null });
      if (!found.ok) throw new Error(found.failure.reason);
      expect(found.value.rung).not.toBe('recorded-place');
      const at = found.value.map({ x: 641, y: 427 });
      const scale = change.scale ?? 1;
      expect(Math.abs(at.x - (641 * scale + (change.dx ?? 0)))).toBeLessThanOrEqual(4);
      expect(Math.abs(at.y - (427 * scale + (change.dy ?? 0)))).toBeLessThanOrEqual(4);
    });
  }

  it('is not found where the app does not show it (the Save dialog over it, a blank screen), with figures below their thresholds', async () => {
    const dialog = await decodeImage(join(MOUSEPAD, '3.png'));
    const blank: RgbaImage = {
      width: pre.width,
      height: pre.height,
      data: new Uint8Array(pre.data.length).fill(255),
    };
    for (const live of [dialog, blank]) {
      for (const ladder of [traceLadder, autoLadder]) {
        expectBelowThreshold(await locate(ladder(null, null), { step: click, pre, live, layout: null }));
      }
    }
  });

  it('on a screen without any edges around it, is a miss whose figure is the edges it lacks', async () => {
    const blank: RgbaImage = {
      width: pre.width,
      height: pre.height,
      data: new Uint8Array(pre.data.length).fill(255),
    };
    const miss = expectBelowThreshold(
      await locate(autoLadder(null, null), { step: click, pre: blank, live: blank, layout: null }),
    );
    expect(miss.reason).toMatch(/no edges/);
  });
});

describe('a target with detail on the demo app, in a dark theme and scaled', async () => {
  const file = join(DEMO, 'screenshots', '0.png');
  const pre = await decodeImage(file);
  const searchBox = step({ x: 240, y: 120 });

  for (const { name, change } of CHANGES.slice(2)) {
    it(`auto re-finds the search box ${name}${change.dark ? ', by its edges' : ''}`, async () => {
      const live = await changedScreen(file, change);
      const found = await locate(autoLadder(null, null), { step: searchBox, pre, live, layout: null });
      if (!found.ok) throw new Error(found.failure.reason);
      if (change.dark) expect(found.value.reason).toMatch(/by its edges/);
      const at = found.value.map({ x: 240, y: 120 });
      const scale = change.scale ?? 1;
      expect(Math.abs(at.x - (240 * scale + (change.dx ?? 0)))).toBeLessThanOrEqual(4);
      expect(Math.abs(at.y - (120 * scale + (change.dy ?? 0)))).toBeLessThanOrEqual(4);
    });
  }

  it('misses a search box the app does not show (another page), the figure below its threshold', async () => {
    const other = await decodeImage(join(MOUSEPAD, '3.png'));
    const live = await sharp(other.data, { raw: { width: other.width, height: other.height, channels: 4 } })
      .resize(pre.width, pre.height, { fit: 'fill' })
      .raw()
      .toBuffer();
    const screen = { width: pre.width, height: pre.height, data: new Uint8Array(live) };
    expectBelowThreshold(
      await locate(autoLadder(null, null), { step: searchBox, pre, live: screen, layout: null }),
    );
  });
});

describe('trace on a Tk form (no accessibility tree) in a dark theme', async () => {
  const TK = join(import.meta.dirname, '..', '..', '..', 'fixtures', 'frames', 'tk-form-dark');
  const pre = await decodeImage(join(TK, 'recorded-0.png'));
  // The click into the empty Name field, as the recording stores it.
  const nameField = {
    ...step({ x: 276, y: 105 }),
    source: { ...step({ x: 276, y: 105 }).source, box: { x: 196, y: 73, width: 160, height: 64 } },
  } as WorkflowStep;

  it('finds the field at its place by edges where the form is in other colours', async () => {
    const live = await decodeImage(join(TK, 'live-dark-0.png'));
    const found = await locate(traceLadder(null, null), { step: nameField, pre, live, layout: null });
    if (!found.ok) throw new Error(found.failure.reason);
    expect(found.value.rung).toBe('recorded-place');
    expect(found.value.reason).toMatch(/edges are where the recording has them/);
    expect(found.value.map({ x: 276, y: 105 })).toEqual({ x: 276, y: 105 });
  });

  it('misses it, by edges, where the dark form stands elsewhere (moved)', async () => {
    const dark = await decodeImage(join(TK, 'live-dark-0.png'));
    const live = await moved(dark, 150, 90);
    expectBelowThreshold(await locate(traceLadder(null, null), { step: nameField, pre, live, layout: null }));
  });
});
