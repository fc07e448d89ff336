/**
 * A target recorded in a window that now stands elsewhere or at another size: which live window is
 * the recorded one, where the recorded point goes in it, and that trace and auto's recorded-place
 * rung click there only once the target's pixels say so (synthetic screens; no desktop).
 */
import type { SourceWindow } from '@mime-desktop/schema';
import type { RgbaImage } from '@mime-desktop/vision';
import { describe, expect, it } from 'vitest';
import { locate } from '../src/recorded/locators.ts';
import { autoLadder, traceLadder } from '../src/recorded/recorded-mode.ts';
import { liveWindowOf, windowLayouts } from '../src/recorded/window-place.ts';
import { clickStep } from './click-step.ts';

type Box = { x: number; y: number; width: number; height: number };

describe('windowLayouts', () => {
  const recorded = { x: 100, y: 50, width: 400, height: 300 };

  it('maps nothing for a window where it was recorded, and a moved window by its move', () => {
    expect(windowLayouts(recorded, recorded, { x: 150, y: 80 })).toEqual([]);
    expect(windowLayouts(recorded, { ...recorded, x: 250, y: 140 }, { x: 150, y: 80 })).toEqual([
      { scale: 1, dx: 150, dy: 90 },
    ]);
  });

  it('keeps a point in a resized window at its offset from the nearer edge first, then its share, then the far edge', () => {
    const larger = { x: 100, y: 50, width: 500, height: 400 };
    // Near the top left: a form's field keeps its offset from the window's corner.
    expect(windowLayouts(recorded, larger, { x: 150, y: 80 })).toEqual(
      [
        [0, 0],
        [0, 10],
        [13, 0],
        [0, 100],
        [13, 10],
        [100, 0],
        [13, 100],
        [100, 10],
        [100, 100],
      ].map(([dx, dy]) => ({ scale: 1, dx, dy })),
    );
    // Near the bottom right (an OK button): its offset from that corner first.
    expect(windowLayouts(recorded, larger, { x: 480, y: 330 })[0]).toEqual({ scale: 1, dx: 100, dy: 100 });
    // Moved and smaller: the move, then the shrink from the far edge.
    const smaller = { x: 250, y: 140, width: 300, height: 225 };
    expect(windowLayouts(recorded, smaller, { x: 480, y: 330 })[0]).toEqual({ scale: 1, dx: 50, dy: 15 });
  });
});

describe('liveWindowOf', () => {
  const recorded: SourceWindow = {
    title: 'tk-form',
    classes: ['form', 'Tk'],
    box: { x: 0, y: 0, width: 10, height: 10 },
  };
  const at = (x: number) => ({ x, y: 0, width: 10, height: 10 });

  it('is the window of the recorded classes and title, else the only one of its classes', () => {
    const windows = [
      { title: 'other', classes: ['form', 'Tk'], box: at(1) },
      { title: 'tk-form', classes: ['form', 'Tk'], box: at(2) },
      { title: 'tk-form', classes: ['xterm', 'XTerm'], box: at(3) },
    ];
    expect(liveWindowOf(recorded, windows)?.box).toEqual(at(2));
    expect(liveWindowOf(recorded, [{ title: 'tk-form: sent', classes: ['form', 'Tk'], box: at(4) }])).toEqual(
      {
        title: 'tk-form: sent',
        classes: ['form', 'Tk'],
        box: at(4),
      },
    );
  });

  it('is none where two windows of its classes could be it, or none tells its place', () => {
    const two = [
      { title: 'a', classes: ['form', 'Tk'], box: at(1) },
      { title: 'b', classes: ['form', 'Tk'], box: at(2) },
    ];
    expect(liveWindowOf(recorded, two)).toBeNull();
    expect(liveWindowOf(recorded, [{ title: 'tk-form', classes: ['form', 'Tk'] }])).toBeNull();
    expect(
      liveWindowOf({ ...recorded, classes: [] }, [{ title: 'tk-form', classes: [], box: at(1) }]),
    ).toBeNull();
  });
});

const SCREEN = { width: 800, height: 500 };
/** The form window's size and its parts, relative to its corner. */
const WINDOW = { width: 320, height: 220 };
const TITLE_BAR = { x: 0, y: 0, width: 320, height: 20 };
const LABELS = [
  { x: 16, y: 44, width: 50, height: 12 },
  { x: 16, y: 94, width: 40, height: 12 },
];
const FIELDS = [
  { x: 80, y: 36, width: 200, height: 28 },
  { x: 80, y: 86, width: 200, height: 28 },
];
/** The Send button, hung from the window's bottom right corner. */
const SEND = { x: -96, y: -44, width: 72, height: 26 };

/**
 * A grey desktop with a fixed icon and the form window at `at` (its frame `size`): a dark title bar
 * striped like text, a border, two labels and fields hung from its top left, the Send button from its
 * bottom right; `withoutField` leaves the second field out (an app that shows another form).
 */
function screen(
  at: { x: number; y: number },
  size = WINDOW,
  withoutField = false,
  { width, height } = SCREEN,
): RgbaImage {
  const data = new Uint8Array(width * height * 4);
  const paint = (b: Box, grey: number, striped = false) => {
    for (let y = Math.max(0, b.y); y < Math.min(height, b.y + b.height); y += 1) {
      for (let x = Math.max(0, b.x); x < Math.min(width, b.x + b.width); x += 1) {
        if (striped && x % 3 === 0) continue;
        data.set([grey, grey, grey, 255], (y * width + x) * 4);
      }
    }
  };
  const outline = (b: Box, grey: number) => {
    paint({ ...b, height: 1 }, grey);
    paint({ ...b, y: b.y + b.height - 1, height: 1 }, grey);
    paint({ ...b, width: 1 }, grey);
    paint({ ...b, x: b.x + b.width - 1, width: 1 }, grey);
  };
  const inWindow = (b: Box) => ({ ...b, x: at.x + b.x, y: at.y + b.y });
  const fromCorner = (b: Box) => ({ ...b, x: at.x + size.width + b.x, y: at.y + size.height + b.y });
  paint({ x: 0, y: 0, width, height }, 120);
  paint({ x: 700, y: 400, width: 40, height: 40 }, 30, true);
  paint(inWindow({ x: 0, y: 0, ...size }), 255);
  outline(inWindow({ x: 0, y: 0, ...size }), 0);
  paint(inWindow(TITLE_BAR), 40, true);
  for (const label of LABELS) paint(inWindow(label), 0, true);
  for (const [k, field] of FIELDS.entries()) if (!(withoutField && k === 1)) outline(inWindow(field), 0);
  paint(fromCorner(SEND), 200);
  outline(fromCorner(SEND), 0);
  paint(fromCorner({ x: SEND.x + 16, y: SEND.y + 8, width: 40, height: 10 }), 0, true);
  return { width, height, data };
}

const RECORDED_AT = { x: 40, y: 30 };
const RECORDED_WINDOW: SourceWindow = {
  title: 'tk-form',
  classes: ['form', 'Tk'],
  box: { ...RECORDED_AT, ...WINDOW },
};

/** A click recorded at `point` in the form window where it was recorded. */
const click = (point: { x: number; y: number }, window: SourceWindow | undefined = RECORDED_WINDOW) =>
  clickStep(point, { window });

describe('a target whose window moved or changed size', () => {
  const pre = screen(RECORDED_AT);
  const city = { x: RECORDED_AT.x + 140, y: RECORDED_AT.y + 100 };
  const send = { x: RECORDED_AT.x + WINDOW.width - 60, y: RECORDED_AT.y + WINDOW.height - 31 };
  const movedAt = { x: RECORDED_AT.x + 150, y: RECORDED_AT.y + 90 };
  const movedWindow = { ...movedAt, ...WINDOW };

  it('is clicked in trace where its window moved, once its pixels are there', async () => {
    const live = screen(movedAt);
    const found = await locate(traceLadder(null, null), {
      step: click(city),
      pre,
      live,
      layout: null,
      window: movedWindow,
    });
    expect(found.ok, found.ok ? '' : found.failure.reason).toBe(true);
    if (!found.ok) return;
    expect(found.value.map(city)).toEqual({ x: city.x + 150, y: city.y + 90 });
    expect(found.value.rung).toBe('recorded-place');
    expect(found.value.reason).toContain('its window moved by (150, 90)');
    // Without the window's place (an older recording), trace cannot tell and stops.
    const older = await locate(traceLadder(null, null), {
      step: click(city, undefined),
      pre,
      live,
      layout: null,
      window: null,
    });
    expect(older.ok).toBe(false);
  });

  it('takes auto’s recorded-place rung for a subtask’s first target there', async () => {
    const live = screen(movedAt);
    const found = await locate(autoLadder(null, null), {
      step: click(city),
      pre,
      live,
      layout: null,
      window: movedWindow,
    });
    expect(found.ok && found.value.rung).toBe('recorded-place');
    expect(found.ok && found.value.map(city)).toEqual({ x: city.x + 150, y: city.y + 90 });
  });

  it('is never clicked where the window says but the target is not: another form, or a window that is not where it says', async () => {
    const other = await locate(traceLadder(null, null), {
      step: click(city),
      pre,
      live: screen(movedAt, WINDOW, true),
      layout: null,
      window: movedWindow,
    });
    expect(other.ok).toBe(false);
    if (other.ok) return;
    expect(other.failure.reason).toContain("the target's edges are not where its window puts it");
    expect(other.failure.similarity).toBeLessThan(other.failure.threshold);
    // The window list says where it moved, the screen shows it elsewhere: no place verifies.
    const stale = await locate(traceLadder(null, null), {
      step: click(city),
      pre,
      live: screen({ x: movedAt.x + 60, y: movedAt.y + 30 }),
      layout: null,
      window: movedWindow,
    });
    expect(stale.ok).toBe(false);
    // Where the screen shows it as recorded, the recorded place verifies as before.
    const there = await locate(traceLadder(null, null), {
      step: click(city),
      pre,
      live: pre,
      layout: null,
      window: movedWindow,
    });
    expect(there.ok && there.value.map(city)).toEqual(city);
  });

  it('keeps a resized window’s field from its top left and its button from its bottom right', async () => {
    const larger = { width: WINDOW.width + 120, height: WINDOW.height + 80 };
    const live = screen(RECORDED_AT, larger);
    const window = { ...RECORDED_AT, ...larger };
    const field = await locate(traceLadder(null, null), {
      step: click(city),
      pre,
      live,
      layout: null,
      window,
    });
    expect(field.ok && field.value.map(city)).toEqual(city);
    const button = await locate(traceLadder(null, null), {
      step: click(send),
      pre,
      live,
      layout: null,
      window,
    });
    expect(button.ok, button.ok ? '' : button.failure.reason).toBe(true);
    expect(button.ok && button.value.map(send)).toEqual({ x: send.x + 120, y: send.y + 80 });
  });

  it('takes, of the places that verify, the one where the window lines up: a point along a long field looks alike anywhere on it', async () => {
    // Recorded right of the City field's middle (nearer the window's right edge); the window got
    // narrower and the form kept its fields at its top left, as Tk and GTK do.
    const along = { x: RECORDED_AT.x + 190, y: city.y };
    const narrower = { width: WINDOW.width - 60, height: WINDOW.height };
    const window = { ...RECORDED_AT, ...narrower };
    const live = screen(RECORDED_AT, narrower);
    expect(windowLayouts(RECORDED_WINDOW.box, window, along)[0]).toEqual({ scale: 1, dx: -60, dy: 0 });
    const found = await locate(traceLadder(null, null), {
      step: click(along),
      pre,
      live,
      layout: null,
      window,
    });
    expect(found.ok && found.value.map(along)).toEqual(along);
  });

  it('verifies a window where it was recorded on a bigger screen', async () => {
    const bigger = screen(RECORDED_AT, WINDOW, false, { width: 1000, height: 640 });
    const window = { ...RECORDED_AT, ...WINDOW };
    const found = await locate(traceLadder(null, null), {
      step: click(city),
      pre,
      live: bigger,
      layout: null,
      window,
    });
    expect(found.ok, found.ok ? '' : found.failure.reason).toBe(true);
    expect(found.ok && found.value.reason).toContain(
      'its window where it was recorded, on a 1000x640 screen',
    );
    const without = await locate(traceLadder(null, null), {
      step: click(city),
      pre,
      live: bigger,
      layout: null,
      window: null,
    });
    expect(without.ok).toBe(false);
  });
});
