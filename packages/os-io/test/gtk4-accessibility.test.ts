/**
 * A GTK 4 app on X11 (gtk4-widget-factory): GTK 4 reports its elements' extents relative to its
 * window only ("Screen coordinates not supported"), so mime places them by the X window, past the
 * border GTK draws around its content. A box mime gives is clicked with xdotool and the widget reacts.
 */
import type { AccessibleElement } from '@mime-desktop/schema';
import { useDesktop } from '@mime-desktop/test-support/e2e-rig';
import { waitForWindowTitle, windowGeometry } from '@mime-desktop/test-support/gtk-apps';
import { waitUntil } from '@mime-desktop/test-support/wait';
import { execa, type ResultPromise } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Accessibility, accessibleAppEnv, openAccessibility } from '../src/index.ts';

const desktop = useDesktop({ app: false, windowManager: true });
let a11y: Accessibility;
let app: ResultPromise;
let windowId: string;

const toggle: AccessibleElement = {
  role: 'button',
  name: 'togglebutton',
  label: null,
  app: 'gtk4-widget-factory',
  window: { role: 'window', name: 'GTK Widget Factory' },
  path: [],
  states: [],
  extents: null,
};

/** The top one of the factory's toggle buttons (the first column's first), as mime finds it now. */
async function firstToggle(): Promise<
  AccessibleElement & { extents: NonNullable<AccessibleElement['extents']> }
> {
  const found = (await a11y.find(toggle)).flatMap((e) => (e.extents ? [{ ...e, extents: e.extents }] : []));
  const [first] = found.sort((a, b) => a.extents.y - b.extents.y);
  if (!first) throw new Error('no toggle button found');
  return first;
}

const centre = (box: { x: number; y: number; width: number; height: number }) => ({
  x: Math.round(box.x + box.width / 2),
  y: Math.round(box.y + box.height / 2),
});

beforeAll(async () => {
  const harness = desktop();
  const opened = await openAccessibility(harness.env);
  if (!opened.ok) throw new Error(opened.reason);
  a11y = opened.accessibility;
  // Xvfb has no GL: GTK 4 draws with cairo.
  app = execa('gtk4-widget-factory', [], {
    env: { ...accessibleAppEnv(harness.env), GSK_RENDERER: 'cairo' },
    reject: false,
    detached: true,
    stdio: 'ignore',
  });
  windowId = await waitForWindowTitle(harness, '^GTK Widget Factory$');
  await harness.xdotool('windowmove', windowId, '160', '120');
  await waitUntil(async () => (await windowGeometry(harness, windowId)).x === 160, {
    what: 'the window moved',
  });
  await waitUntil(async () => (await a11y.find(toggle)).length > 0, {
    timeoutMs: 15_000,
    what: 'the toggle buttons in the tree',
  });
}, 60_000);

afterAll(async () => {
  await a11y?.close();
  if (app?.pid !== undefined) process.kill(-app.pid, 'SIGTERM');
  await app;
});

describe('a GTK 4 app on X11', () => {
  it('gives its elements screen boxes inside its moved window', async () => {
    const window = await windowGeometry(desktop(), windowId);
    const { extents: box } = await firstToggle();
    expect(box.x).toBeGreaterThan(window.x + 200);
    expect(box.y).toBeGreaterThan(window.y + 40);
    expect(box.x + box.width).toBeLessThan(window.x + window.width);
    expect(box.y + box.height).toBeLessThan(window.y + window.height);
  });

  it('names the element under a point of the screen', async () => {
    const { extents } = await firstToggle();
    expect(await a11y.elementAt(centre(extents))).toMatchObject({ role: 'button', name: 'togglebutton' });
  });

  it('puts a box where the widget is: a click at its centre toggles the button', async () => {
    const before = await firstToggle();
    expect(before.states).not.toContain('pressed');
    const at = centre(before.extents);
    await desktop().click(at.x, at.y);
    await expect.poll(async () => (await firstToggle()).states, { timeout: 5000 }).toContain('pressed');
  });
});
