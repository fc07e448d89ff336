import type { Accessibility } from '@mime-desktop/os-io';
import type { AccessibleElement } from '@mime-desktop/schema';
import { describe, expect, it } from 'vitest';
import { locateElement } from '../src/recorded/locate-element.ts';

const field = (name: string): AccessibleElement => ({
  role: 'entry',
  name,
  label: null,
  app: 'Chromium',
  window: { role: 'frame', name: 'mime-form' },
  path: [{ role: 'entry', name, index: 1 }],
  states: ['focused'],
  extents: { x: 10, y: 10, width: 100, height: 20 },
});

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
    const found = await locateElement(tree, field('City'), null);
    expect(found?.reason).toBe('the recorded entry "City" has the focus');
    expect(tree.asked()).toBe(3);
  });

  it('is not found while another field keeps the focus, after a few asks', async () => {
    const tree = focusing(field('Name'));
    expect(await locateElement(tree, field('City'), null)).toBeNull();
    expect(tree.asked()).toBe(4);
  });

  it('asks once where the tree tells no focus (nothing to wait for)', async () => {
    const tree = focusing(null);
    expect(await locateElement(tree, field('City'), null)).toBeNull();
    expect(tree.asked()).toBe(1);
  });
});
