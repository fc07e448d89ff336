/**
 * A Tk form (no accessibility tree) recorded at 1x and replayed at 1.25x Tk scaling (real frames from
 * the replay matrix, `fixtures/tk-form-*.png`): the window keeps its size and frame, its content is
 * drawn 1.25x as big (paddings in pixels are not), so no one layout holds both. The Name entry's inside
 * still covers its recorded place, which tells nothing of the size: the City entry, further down, must
 * then be re-found where it is drawn, not looked for at the recording's size near its recorded place.
 */
import { join } from 'node:path';
import type { WorkflowStep } from '@mime-desktop/schema';
import { decodeImage, type RgbaImage } from '@mime-desktop/vision';
import { beforeAll, describe, expect, it } from 'vitest';
import { ASSUMED_RECORDED, RECORDED } from '../src/recorded/layout-map.ts';
import { locate } from '../src/recorded/locators.ts';
import { autoLadder } from '../src/recorded/recorded-mode.ts';
import { clickStep } from './click-step.ts';

const fixture = (name: string) => decodeImage(join(import.meta.dirname, 'fixtures', name));
/** The form's window, where it was recorded and where it stands at 1.25x (it did not move). */
const window = { x: 60, y: 60, width: 422, height: 245 };
const inWindow = { window: { title: 'tk-form Address', classes: ['tkForm', 'Tkform'], box: window } };
const name: WorkflowStep = clickStep({ x: 276, y: 105 }, inWindow);
const city: WorkflowStep = { ...clickStep({ x: 276, y: 154 }, inWindow), i: 2 };
/** The City entry as drawn at 1.25x (its outline, measured on the live frame). */
const CITY_ENTRY = { x: 164, y: 147, width: 320, height: 29 };

describe('a Tk form recorded at 1x, replayed at 1.25x scaling', () => {
  let frames: Record<'name' | 'nameLive' | 'city' | 'cityLive', RgbaImage>;
  beforeAll(async () => {
    const [recordedName, nameLive, recordedCity, cityLive] = await Promise.all(
      ['recorded-name', '125x-name', 'recorded-city', '125x-city'].map((f) => fixture(`tk-form-${f}.png`)),
    );
    frames = {
      name: recordedName as RgbaImage,
      nameLive: nameLive as RgbaImage,
      city: recordedCity as RgbaImage,
      cityLive: cityLive as RgbaImage,
    };
  });

  it('re-finds the City entry at its 1.25x place after the Name entry was taken at its recorded place', async () => {
    const ladder = autoLadder(null, null);
    const first = await locate(ladder, {
      step: name,
      pre: frames.name,
      live: frames.nameLive,
      layout: null,
      window,
    });
    expect(first.ok, first.ok ? '' : first.failure.reason).toBe(true);
    if (!first.ok) return;
    // The Name entry's inside covers its recorded place at 1.25x too: taken there, its size assumed.
    expect(first.value.rung).toBe('recorded-place');
    expect(first.value.layout).toMatchObject({ scale: 1, dx: 0, dy: 0, assumed: true });
    const second = await locate(ladder, {
      step: city,
      pre: frames.city,
      live: frames.cityLive,
      layout: first.value.layout,
      window,
    });
    expect(second.ok, second.ok ? '' : second.failure.reason).toBe(true);
    if (!second.ok) return;
    expect(second.value.rung).toBe('template-anywhere');
    expect(second.value.layout.scale).toBe(1.25);
    expect(second.value.layout.assumed).toBeUndefined();
    // The click lands inside the City entry as drawn, 42 px right of where it was recorded.
    const at = second.value.map({ x: 276, y: 154 });
    expect(at.x).toBeGreaterThan(CITY_ENTRY.x + 100);
    expect(at.x).toBeLessThan(CITY_ENTRY.x + CITY_ENTRY.width);
    expect(at.y).toBeGreaterThan(CITY_ENTRY.y + 3);
    expect(at.y).toBeLessThan(CITY_ENTRY.y + CITY_ENTRY.height - 3);
  });

  it('keeps the layout assumed through the typing into the Name entry (the screen alike as a whole measures none)', async () => {
    const typing: WorkflowStep = {
      ...name,
      i: 1,
      action_type: 'TYPE',
      action_value: 'Ann Lee',
      source: { event_index: 1, screenshot: 'screenshots/1.png', point: null, end_point: null, box: null },
    };
    const found = await locate(autoLadder(null, null), {
      step: typing,
      pre: frames.name,
      live: frames.name,
      layout: ASSUMED_RECORDED,
      window,
    });
    expect(found.ok && found.value.layout).toEqual(ASSUMED_RECORDED);
  });

  it('stops where the target is neither near an assumed layout nor anywhere else', async () => {
    // The form gone: a black screen of the same size.
    const blank = { ...frames.cityLive, data: Uint8Array.from(frames.cityLive.data).fill(0) };
    const found = await locate(autoLadder(null, null), {
      step: city,
      pre: frames.city,
      live: blank,
      layout: ASSUMED_RECORDED,
      window,
    });
    expect(found.ok).toBe(false);
    if (!found.ok) {
      expect(found.failure.reason).toMatch(
        /^the recorded target was not found near where the previous step found the layout .*, nor anywhere else: /,
      );
    }
  });

  it('still refuses a target away from a layout a step measured: a window does not jump within a subtask', async () => {
    const found = await locate(autoLadder(null, null), {
      step: city,
      pre: frames.city,
      live: frames.cityLive,
      layout: RECORDED,
      window,
    });
    expect(found.ok).toBe(false);
    if (!found.ok) {
      expect(found.failure.reason).toMatch(/not found near where the previous step found the layout/);
    }
  });
});
