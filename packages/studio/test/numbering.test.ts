/**
 * One numbering: the page's `assets/numbering.js` (a module served as it is) says every step and
 * subtask as `formatStep`/`formatSubtask`/`formatPlace` of @mime-desktop/schema do, 1-based.
 */
import { pathToFileURL } from 'node:url';
import { formatPlace, formatStep, formatSubtask } from '@mime-desktop/schema';
import { describe, expect, it } from 'vitest';

interface Numbering {
  formatStep: typeof formatStep;
  formatSubtask: typeof formatSubtask;
  formatPlace: typeof formatPlace;
}

const pageModule = pathToFileURL(new URL('../assets/numbering.js', import.meta.url).pathname).href;

describe('numbering', () => {
  it('is 1-based, a step by its place in the plan, with its subtask when known', () => {
    expect(formatStep(0)).toBe('step 1');
    expect(formatStep(2, { title: true })).toBe('Step 3');
    expect(formatSubtask(1)).toBe('subtask 2');
    expect(formatPlace(1, 2)).toBe('Subtask 2 · Step 3');
    expect(formatPlace(null, 2)).toBe('Step 3');
  });

  it("is the page's too", async () => {
    const page = (await import(pageModule)) as Numbering;
    for (const i of [0, 1, 9, 199]) {
      expect(page.formatStep(i)).toBe(formatStep(i));
      expect(page.formatStep(i, { title: true })).toBe(formatStep(i, { title: true }));
      expect(page.formatSubtask(i, { title: true })).toBe(formatSubtask(i, { title: true }));
      expect(page.formatPlace(i, i + 1)).toBe(formatPlace(i, i + 1));
      expect(page.formatPlace(null, i)).toBe(formatPlace(null, i));
    }
  });
});
