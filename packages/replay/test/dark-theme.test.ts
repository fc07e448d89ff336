/**
 * A GTK 4 form recorded in the light theme and replayed in Adwaita dark (real frames from the replay
 * matrix, `fixtures/gtk4-form-*.png`): the focused Name entry's blue ring has about the grey level of
 * the dark page around it, so only its colour tells where it is. Trace and auto must find the entry
 * where it was recorded; a place where it is not must stay a miss.
 */
import { join } from 'node:path';
import { decodeImage, edgeSimilarity, type RgbaImage } from '@mime-desktop/vision';
import { beforeAll, describe, expect, it } from 'vitest';
import { TRACE_TARGET_SIMILARITY } from '../src/recorded/checks.ts';
import { locate } from '../src/recorded/locators.ts';
import { autoLadder, traceLadder } from '../src/recorded/recorded-mode.ts';
import { clickStep } from './click-step.ts';

const fixture = (name: string) => decodeImage(join(import.meta.dirname, 'fixtures', name));
/** The recorded click into the Name entry, and where its window stood (it has not moved). */
const window = { x: 429, y: 267, width: 422, height: 265 };
const name = clickStep(
  { x: 668, y: 320 },
  { window: { title: 'gtk4-form Address', classes: [], box: window } },
);

describe('a GTK 4 form recorded light, replayed dark', () => {
  let recorded: RgbaImage;
  let dark: RgbaImage;
  beforeAll(async () => {
    recorded = await fixture('gtk4-form-recorded.png');
    dark = await fixture('gtk4-form-dark-live.png');
  });

  it("keeps the focused entry's ring among its edges, though its grey level is the page's", () => {
    const box = name.source?.box ?? window;
    expect(edgeSimilarity(recorded, box, dark, box)).toBeGreaterThanOrEqual(TRACE_TARGET_SIMILARITY);
  });

  it('finds the Name entry where it was recorded, in trace and in auto', async () => {
    for (const ladder of [traceLadder, autoLadder]) {
      const found = await locate(ladder(null, null), {
        step: name,
        pre: recorded,
        live: dark,
        layout: null,
        window,
      });
      expect(found.ok, found.ok ? '' : found.failure.reason).toBe(true);
      if (found.ok) expect(found.value.map({ x: 668, y: 320 })).toEqual({ x: 668, y: 320 });
    }
  });

  it('does not take the City entry, 46 px lower, for the Name entry', async () => {
    // The same entry shape, unfocused and without a caret: by their edges, not the same target.
    const box = name.source?.box ?? window;
    const city = { ...box, y: box.y + 46 };
    expect(edgeSimilarity(recorded, box, dark, city)).toBeLessThan(TRACE_TARGET_SIMILARITY);
    // Trace, where the City entry stands at the recorded place (the frame moved up by 46 rows).
    const cityThere = { ...dark, data: shifted(dark, 46) };
    const found = await locate(traceLadder(null, null), {
      step: name,
      pre: recorded,
      live: cityThere,
      layout: null,
      window,
    });
    expect(found.ok).toBe(false);
  });
});

/** The frame moved up by `dy` rows (the row below a target brought to its place), the bottom left as it was. */
function shifted(image: RgbaImage, dy: number): Uint8Array {
  const data = Uint8Array.from(image.data);
  const row = image.width * 4;
  data.copyWithin(0, dy * row);
  return data;
}
