import type { UnplacedWindows } from '@mime-desktop/os-io';
import type { AccessibleElement, ElementBox } from '@mime-desktop/schema';
import { crop, type RgbaImage } from '@mime-desktop/vision';
import { describe, expect, it } from 'vitest';
import { type Anchor, WindowPlacer } from '../src/recorded/window-placer.ts';

const SCREEN = { width: 800, height: 500 };
/** The toolkit's extents count from its surface, which starts this far up and left of what it draws (GTK 3's shadow). */
const MARGIN = { x: 26, y: 23 };

/** Deterministic noise: a pattern found in one place only. */
function noise(seed: number): (x: number, y: number) => number {
  return (x, y) => {
    let h = (x * 374761393 + y * 668265263 + seed * 2147483647) | 0;
    h = Math.imul(h ^ (h >>> 13), 1274126177);
    return (h ^ (h >>> 16)) & 0xff;
  };
}

interface Part {
  element: AccessibleElement;
  /** Its place in the window's drawing. */
  box: ElementBox;
  paint: (x: number, y: number) => number;
}

const element = (role: string, name: string): AccessibleElement => ({
  role,
  name,
  label: null,
  app: 'zenity',
  window: { role: 'dialog', name: 'Address' },
  path: [],
  states: [],
  extents: null,
});

const part = (role: string, name: string, box: ElementBox, paint: Part['paint']): Part => ({
  element: element(role, name),
  box,
  paint,
});

const OK = part('push button', 'OK', { x: 20, y: 20, width: 60, height: 24 }, noise(1));
const CANCEL = part('push button', 'Cancel', { x: 20, y: 100, width: 60, height: 24 }, noise(2));
const FIELD = part('text', 'Name', { x: 150, y: 60, width: 100, height: 24 }, () => 255);

/** A black screen with the window's parts drawn at `at`. */
function screen(at: { x: number; y: number }, parts: readonly Part[]): RgbaImage {
  const data = new Uint8Array(SCREEN.width * SCREEN.height * 4);
  for (let i = 3; i < data.length; i += 4) data[i] = 255;
  for (const { box, paint } of parts) {
    for (let y = 0; y < box.height; y += 1) {
      for (let x = 0; x < box.width; x += 1) {
        const i = ((at.y + box.y + y) * SCREEN.width + at.x + box.x + x) * 4;
        const v = paint(x, y);
        data.set([v, v, 255 - v, 255], i);
      }
    }
  }
  return { ...SCREEN, data };
}

/** The recorded elements: their extents on the recorded screen (window at `at`), their looks cut from it. */
function recorded(at: { x: number; y: number }, parts: readonly Part[]): Anchor[] {
  const frame = screen(at, parts);
  return parts.map(({ element: e, box }) => {
    const extents = { ...box, x: at.x + box.x, y: at.y + box.y };
    return { element: { ...e, extents }, look: crop(frame, extents), frame };
  });
}

/** The live tree: each part's extents counted from its window's surface; the origins the placer set. */
function tree(parts: readonly Part[]): UnplacedWindows & { origins: Array<{ x: number; y: number } | null> } {
  const origins: Array<{ x: number; y: number } | null> = [];
  return {
    origins,
    findInWindow: async (identity) =>
      parts
        .filter((p) => p.element.role === identity.role && p.element.name === identity.name)
        .map((p) => ({ ...p.element, extents: { ...p.box, x: p.box.x + MARGIN.x, y: p.box.y + MARGIN.y } })),
    place: (_app, origin) => {
      origins.push(origin);
    },
  };
}

const RECORDED_AT = { x: 100, y: 80 };

describe('WindowPlacer', () => {
  it('measures the window from a distinctive element, confirmed by a second one, and places the app by it', async () => {
    const parts = [OK, CANCEL, FIELD];
    const live = tree(parts);
    const placer = new WindowPlacer(live, async () => recorded(RECORDED_AT, parts));
    const result = await placer.place(FIELD.element, screen({ x: 400, y: 300 }, parts));
    expect(result).toMatchObject({ ok: true });
    expect(result.reason).toMatch(/window 'Address' of zenity measured at \(374, 277\)/);
    expect(live.origins.at(-1)).toEqual({ x: 400 - MARGIN.x, y: 300 - MARGIN.y });
  });

  it('keeps the origin while the window stays, and measures it again once the window moved', async () => {
    const parts = [OK, CANCEL, FIELD];
    const live = tree(parts);
    const placer = new WindowPlacer(live, async () => recorded(RECORDED_AT, parts));
    await placer.place(FIELD.element, screen({ x: 400, y: 300 }, parts));
    await placer.place(OK.element, screen({ x: 400, y: 300 }, parts));
    expect(live.origins).toEqual([null, { x: 374, y: 277 }]);
    const moved = await placer.place(OK.element, screen({ x: 200, y: 150 }, parts));
    expect(moved.ok).toBe(true);
    expect(live.origins.at(-1)).toEqual({ x: 174, y: 127 });
  });

  it('places nothing when the only distinctive element is not confirmed by a second one', async () => {
    const parts = [OK, CANCEL, FIELD];
    const live = tree(parts);
    const placer = new WindowPlacer(live, async () => recorded(RECORDED_AT, parts));
    // The other button shows something else now: the first match alone is not trusted.
    const changed = [OK, { ...CANCEL, paint: noise(9) }, { ...FIELD, paint: noise(10) }];
    const result = await placer.place(FIELD.element, screen({ x: 400, y: 300 }, changed));
    expect(result.ok).toBe(false);
    expect(result.reason).toMatch(
      /the place of the window 'Address' of zenity is unknown .*confirmed by a second one/,
    );
    expect(live.origins.filter((o) => o !== null)).toEqual([]);
  });

  it('finds two elements that each look like another place together, where the two show once', async () => {
    const twin = part('push button', 'Apply', { x: 150, y: 150, width: 60, height: 24 }, noise(1));
    const parts = [OK, twin, FIELD];
    const live = tree(parts);
    const placer = new WindowPlacer(live, async () => recorded(RECORDED_AT, parts));
    const result = await placer.place(FIELD.element, screen({ x: 400, y: 200 }, parts));
    expect(result.ok).toBe(true);
    expect(result.reason).toMatch(/push button "OK" and push button "Apply" found together/);
    expect(live.origins.at(-1)).toEqual({ x: 400 - MARGIN.x, y: 200 - MARGIN.y });
  });

  it('places nothing when two places look alike, alone and together (two such windows)', async () => {
    const twin = part('push button', 'Apply', { x: 150, y: 150, width: 60, height: 24 }, noise(1));
    const parts = [OK, twin, FIELD];
    const live = tree(parts);
    const placer = new WindowPlacer(live, async () => recorded(RECORDED_AT, parts));
    // The same window drawn twice: no look of it, alone or paired, shows once.
    const twice = screen({ x: 20, y: 20 }, parts);
    const second = screen({ x: 420, y: 220 }, parts);
    for (let i = 0; i < twice.data.length; i += 4) {
      if (second.data[i] !== 0 || second.data[i + 2] !== 0) twice.data.set(second.data.subarray(i, i + 4), i);
    }
    const result = await placer.place(FIELD.element, twice);
    expect(result.ok).toBe(false);
    expect(result.reason).toMatch(/uniquely \(lead 0\.1\)/);
    expect(live.origins.filter((o) => o !== null)).toEqual([]);
  });

  it('says so when every recorded element of the window is featureless', async () => {
    const other = part('text', 'City', { x: 150, y: 120, width: 100, height: 24 }, () => 255);
    const parts = [FIELD, other];
    const placer = new WindowPlacer(tree(parts), async () => recorded(RECORDED_AT, parts));
    const result = await placer.place(FIELD.element, screen({ x: 400, y: 300 }, parts));
    expect(result).toEqual({
      ok: false,
      reason: expect.stringMatching(/none of its recorded elements is distinctive \(all featureless\)/),
    });
  });
});
