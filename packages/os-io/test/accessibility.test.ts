/**
 * The AT-SPI adapter on the real accessibility bus of a private display: a form page in Chromium,
 * a GTK3 dialog (zenity) and a Qt 5 editor (FeatherPad) started by mime, driven with xdotool.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AccessibleElement } from '@mime-desktop/schema';
import {
  type DesktopHarness,
  FORM_APP_PATH,
  startDesktopHarness,
} from '@mime-desktop/test-support/desktop-harness';
import { gtkAppEnv, waitForWindowTitle, windowGeometry } from '@mime-desktop/test-support/gtk-apps';
import { execa, type ResultPromise } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Accessibility, accessibleAppEnv, launchApp, openAccessibility } from '../src/index.ts';

let harness: DesktopHarness;
let a11y: Accessibility;

const center = (e: AccessibleElement) => {
  const box = e.extents ?? { x: 0, y: 0, width: 0, height: 0 };
  return { x: Math.round(box.x + box.width / 2), y: Math.round(box.y + box.height / 2) };
};

beforeAll(async () => {
  harness = await startDesktopHarness({
    app: FORM_APP_PATH,
    windowManager: true,
    keepDisplayUntilExit: false,
  });
  const opened = await openAccessibility(harness.env);
  if (!opened.ok) throw new Error(opened.reason);
  a11y = opened.accessibility;
});

afterAll(async () => {
  await a11y?.close();
  await harness?.stop();
});

describe('a page in Chromium', () => {
  let name: AccessibleElement;

  it('finds a labelled field by the identity it has, with its extents', async () => {
    const identity: AccessibleElement = {
      role: 'entry',
      name: 'Name',
      label: null,
      app: 'Chromium',
      window: { role: 'frame', name: '' },
      path: [],
      states: [],
      extents: null,
    };
    await expect.poll(async () => (await a11y.find(identity)).length, { timeout: 10_000 }).toBe(1);
    const [found] = await a11y.find(identity);
    if (!found) throw new Error('not found');
    name = found;
    expect(found.extents?.width).toBeGreaterThan(200);
    expect(found.path.at(-1)).toMatchObject({ role: 'entry', name: 'Name' });
  });

  it('tells the element under a point, and the focused element with its text after typing', async () => {
    const point = center(name);
    const at = await a11y.elementAt(point);
    expect(at).toMatchObject({ role: 'entry', name: 'Name', app: 'Chromium' });
    expect(at?.path).toEqual(name.path);
    await harness.click(point.x, point.y);
    await harness.typeText('Ann Lee');
    await expect.poll(async () => (await a11y.focused())?.text, { timeout: 5000 }).toBe('Ann Lee');
    expect(await a11y.focused()).toMatchObject({ role: 'entry', name: 'Name' });
    expect((await a11y.focused())?.states).toContain('focused');
  });

  it('finds a recorded element again along its path, and nothing for an element the page lacks', async () => {
    const at = await a11y.elementAt(center(name));
    if (!at) throw new Error('no element');
    const again = await a11y.find(at);
    expect(again).toHaveLength(1);
    expect(again[0]?.extents).toEqual(name.extents);
    expect(await a11y.find({ ...at, name: 'Postcode', path: [] })).toEqual([]);
  });
});

describe('a GTK3 dialog (zenity)', () => {
  let dialog: ResultPromise | undefined;
  afterAll(() => {
    dialog?.kill('SIGTERM');
  });

  it('names nameless entries by the label beside them, and reads their text', async () => {
    dialog = execa(
      'zenity',
      ['--forms', '--title', 'Address', '--text', 'Where to', '--add-entry', 'Name', '--add-entry', 'City'],
      { env: accessibleAppEnv(harness.env), reject: false },
    );
    const identity: AccessibleElement = {
      role: 'text',
      name: '',
      label: 'City',
      app: 'zenity',
      window: { role: 'dialog', name: 'Address' },
      path: [],
      states: [],
      extents: null,
    };
    await expect.poll(async () => (await a11y.find(identity)).length, { timeout: 10_000 }).toBe(1);
    const [city] = await a11y.find(identity);
    if (!city) throw new Error('not found');
    const at = await a11y.elementAt(center(city));
    expect(at).toMatchObject({ role: 'text', name: '', label: 'City', window: { name: 'Address' } });
    await harness.click(center(city).x, center(city).y);
    await harness.typeText('Paris');
    await expect.poll(async () => (await a11y.focused())?.label, { timeout: 5000 }).toBe('City');
    expect((await a11y.focused())?.text).toBe('Paris');
    const named = await a11y.find({ ...identity, label: 'Name' });
    expect(named).toHaveLength(1);
    expect(named[0]?.extents?.y).not.toBe(city.extents?.y);
  });
});

describe('a Qt 5 app (FeatherPad) started by mime', () => {
  it('joins the tree (the accessibility bus named on the root window), its editor read after typing', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mime-a11y-qt-'));
    try {
      const file = join(dir, 'qt-a11y.txt');
      await writeFile(file, '');
      // Qt 5 registers before its accessibility connection is up unless the root window names the bus.
      await launchApp(`featherpad ${file}`, await gtkAppEnv(harness));
      const id = await waitForWindowTitle(harness, 'qt-a11y.txt');
      expect(
        await execa('xprop', ['-root', 'AT_SPI_BUS'], { env: harness.env }).then((r) => r.stdout),
      ).toMatch(/^AT_SPI_BUS\(STRING\) = "unix:/);
      await expect
        .poll(async () => (await a11y.apps()).join(' '), { timeout: 10_000 })
        .toMatch(/featherpad/i);
      const window = await windowGeometry(harness, id);
      await harness.click(window.x + window.width / 2, window.y + window.height / 2);
      // The editor is under its centre, not the nameless viewport Qt lays over it.
      const at = await a11y.elementAt({
        x: Math.round(window.x + window.width / 2),
        y: Math.round(window.y + window.height / 2),
      });
      expect(at).toMatchObject({ role: 'text', app: 'FeatherPad' });
      expect(at?.path.at(-1)).toMatchObject({ role: 'text' });
      await harness.typeText('hello qt');
      await expect.poll(async () => (await a11y.focused())?.text, { timeout: 5000 }).toBe('hello qt');
      expect(await a11y.focused()).toMatchObject({ role: 'text', app: expect.stringMatching(/featherpad/i) });
      await harness.pressKeys('ctrl+s');
      await expect.poll(() => readFile(file, 'utf8'), { timeout: 5000 }).toMatch(/^hello qt/);
      await harness.pressKeys('ctrl+q');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
