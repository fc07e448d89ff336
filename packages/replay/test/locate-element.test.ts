import type { Accessibility } from '@mime-desktop/os-io';
import type { AccessibleElement } from '@mime-desktop/schema';
import { describe, expect, it } from 'vitest';
import { type ElementLocated, type ElementMissed, locateElement } from '../src/recorded/locate-element.ts';
import { element, snapshot } from './ladder-fixtures.ts';

/** The element found, else the test fails saying why it was missed. */
function located(result: ElementLocated | ElementMissed): ElementLocated {
  if ('missed' in result) throw new Error(`missed: ${result.missed}`);
  return result;
}

/** Why the element was missed (undefined where it was found). */
const missed = (result: ElementLocated | ElementMissed) => ('missed' in result ? result.missed : undefined);

/** A field of the form page, focused, at (10, 10). */
const field = (name: string) => element({ x: 10, y: 10, width: 100, height: 20 }, name);

const SCREEN = { width: 1280, height: 800 };

/** A tree that finds `live` for any identity (no focus). */
const finding = (live: AccessibleElement): Accessibility => snapshot([live]);

/** A tree whose focus answers come in this order (the last one repeated). */
function focusing(...answers: Array<AccessibleElement | null>): Accessibility & { asked: () => number } {
  let asked = 0;
  return {
    asked: () => asked,
    elementAt: async () => null,
    lineAt: async () => null,
    focused: async () => answers[Math.min(asked++, answers.length - 1)] ?? null,
    wake: async () => undefined,
    find: async () => [],
    apps: async () => ['Chromium'],
    close: async () => undefined,
  };
}

describe("a typing step's element: the recorded field has the focus", () => {
  it('waits for the focus a click just moved: the tree names the old field first (a busy browser)', async () => {
    const tree = focusing(field('Name'), field('Name'), field('City'));
    const found = located(await locateElement(tree, field('City'), null, SCREEN));
    expect(found.reason).toBe('the recorded entry "City" has the focus');
    expect(tree.asked()).toBe(3);
  });

  it('is not found while another field keeps the focus, after a few asks', async () => {
    const tree = focusing(field('Name'));
    expect(missed(await locateElement(tree, field('City'), null, SCREEN))).toBe(
      'the entry "Name" has the focus',
    );
    expect(tree.asked()).toBe(4);
  });

  it('asks once where the tree tells no focus (nothing to wait for)', async () => {
    const tree = focusing(null);
    expect(missed(await locateElement(tree, field('City'), null, SCREEN))).toBe('no element has the focus');
    expect(tree.asked()).toBe(1);
  });
});

describe("a pointer step's element: found once, where the step can act", () => {
  const recorded = field('OK');
  const moved = (x: number, y: number): AccessibleElement => ({
    ...recorded,
    extents: { x, y, width: 100, height: 20 },
  });

  it('is found moved, the recorded point at its place in the live box', async () => {
    const found = located(await locateElement(finding(moved(610, 410)), recorded, { x: 20, y: 15 }, SCREEN));
    expect(found.map({ x: 20, y: 15 })).toEqual({ x: 620, y: 415 });
    expect(found.reason).toBe('found the entry "OK" by its accessibility identity, moved by (600, 400)');
  });

  it('is not found where the app keeps telling a box off the screen, after a few asks', async () => {
    let asked = 0;
    const offScreen = {
      ...finding(recorded),
      find: async () => {
        asked += 1;
        return [moved(1700, 1100)];
      },
    };
    expect(missed(await locateElement(offScreen, recorded, { x: 20, y: 15 }, SCREEN))).toBe(
      "found at (1710, 1105), off the 1280x800 screen (the app's box 100x20 at (1700, 1100), recorded 100x20 at (10, 10))",
    );
    expect(asked).toBe(5);
    located(await locateElement(finding(moved(1200, 100)), recorded, { x: 20, y: 15 }, SCREEN));
    // The recorded point's place in the box lies past the screen's right edge: not there either.
    expect(missed(await locateElement(finding(moved(1250, 100)), recorded, { x: 100, y: 15 }, SCREEN))).toBe(
      "found at (1340, 105), off the 1280x800 screen (the app's box 100x20 at (1250, 100), recorded 100x20 at (10, 10))",
    );
  });

  it('is found where the app told a box off the screen once, then its place (GTK 3 on sway under load)', async () => {
    const answers = [moved(1743, 1115), moved(1743, 1115), moved(610, 410)];
    let asked = 0;
    const settling = { ...finding(recorded), find: async () => [answers[Math.min(asked++, 2)] ?? recorded] };
    const found = located(await locateElement(settling, recorded, { x: 20, y: 15 }, SCREEN));
    expect(found.map({ x: 20, y: 15 })).toEqual({ x: 620, y: 415 });
    expect(asked).toBe(3);
  });

  it('says why it is missed: none in the app, several, none placed, or the lookup failed', async () => {
    const missedIn = async (tree: Accessibility) =>
      missed(await locateElement(tree, recorded, { x: 20, y: 15 }, SCREEN));
    expect(await missedIn(snapshot([]))).toBe("not found in Chromium's windows");
    expect(await missedIn(snapshot([moved(0, 0), moved(200, 0)]))).toBe('2 elements of Chromium are it');
    expect(await missedIn(snapshot([{ ...recorded, extents: null }]))).toBe(
      'found in Chromium with no place on the screen',
    );
    const failing = {
      ...snapshot([]),
      find: async () => {
        throw new Error('GetChildren took over 1000 ms');
      },
    };
    expect(await missedIn(failing)).toBe('the lookup failed: GetChildren took over 1000 ms');
  });
});
