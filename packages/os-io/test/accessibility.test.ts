/**
 * The AT-SPI adapter on the real accessibility bus of a private display: a form page in Chromium,
 * a GTK3 dialog (zenity) and a Qt 5 editor (FeatherPad) started by mime, driven with xdotool.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { AccessibleElement } from '@mime-desktop/schema';
import {
  CHROMIUM_FLAGS,
  type DesktopHarness,
  FORM_APP_PATH,
} from '@mime-desktop/test-support/desktop-harness';
import { tempDir, useDesktop, withDesktop } from '@mime-desktop/test-support/e2e-rig';
import { gtkAppEnv, waitForWindowTitle, windowGeometry } from '@mime-desktop/test-support/gtk-apps';
import { execa, type ResultPromise } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accessibilityOnce } from '../src/accessibility-once.ts';
import {
  ACCESSIBLE_CHROMIUM_FLAG,
  type Accessibility,
  accessibleAppEnv,
  launchApp,
  openAccessibility,
} from '../src/index.ts';

let harness: DesktopHarness;
let a11y: Accessibility;

const center = (e: AccessibleElement) => {
  const box = e.extents ?? { x: 0, y: 0, width: 0, height: 0 };
  return { x: Math.round(box.x + box.width / 2), y: Math.round(box.y + box.height / 2) };
};

const desktopHarness = useDesktop({ app: FORM_APP_PATH, windowManager: true });

beforeAll(async () => {
  harness = desktopHarness();
  const opened = await openAccessibility(harness.env);
  if (!opened.ok) throw new Error(opened.reason);
  a11y = opened.accessibility;
});

afterAll(async () => {
  await a11y?.close();
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
    // Typed once the click has given the field the focus: a window manager behind a busy machine
    // activates the window after xdotool's keys went to the window that had the focus (CI 15d).
    await expect.poll(async () => (await a11y.focused())?.name, { timeout: 15_000 }).toBe('Name');
    await harness.typeText('Ann Lee');
    await expect.poll(async () => (await a11y.focused())?.text, { timeout: 15_000 }).toBe('Ann Lee');
    expect(await a11y.focused()).toMatchObject({ role: 'entry', name: 'Name' });
    expect((await a11y.focused())?.states).toContain('focused');
  });

  it("names no page field once another app's window is active, though Chromium keeps its `focused` state", async () => {
    // A dialog with nothing to focus (its only button is insensitive while it pulses) sends no focus
    // event: the last one named is still the page's field, which still says `focused`.
    const busy = execa('zenity', ['--progress', '--pulsate', '--no-cancel', '--title', 'Busy'], {
      env: accessibleAppEnv(harness.env),
      reject: false,
    });
    try {
      const id = await waitForWindowTitle(harness, 'Busy');
      await expect
        .poll(() => harness.xdotool('getactivewindow').catch(() => ''), { timeout: 10_000 })
        .toBe(id);
      const [page] = await a11y.find(name);
      expect(page?.states).toContain('focused');
      await expect
        .poll(async () => (await a11y.focused())?.name ?? null, { timeout: 10_000 })
        .not.toBe('Name');
      expect(await a11y.focused()).not.toMatchObject({ app: 'Chromium' });
    } finally {
      busy.kill('SIGTERM');
      await busy;
    }
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

/** A nameless entry of a zenity form, known by its label. */
const zenityEntry = (label: string, title: string): AccessibleElement => ({
  role: 'text',
  name: '',
  label,
  app: 'zenity',
  window: { role: 'dialog', name: title },
  path: [],
  states: [],
  extents: null,
});

/** The one element with this identity, once the app shows it. */
async function findOne(identity: AccessibleElement): Promise<AccessibleElement[]> {
  await expect.poll(async () => (await a11y.find(identity)).length, { timeout: 10_000 }).toBe(1);
  return a11y.find(identity);
}

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
    const identity = zenityEntry('City', 'Address');
    const [city] = await findOne(identity);
    if (!city) throw new Error('not found');
    const at = await a11y.elementAt(center(city));
    expect(at).toMatchObject({ role: 'text', name: '', label: 'City', window: { name: 'Address' } });
    await harness.click(center(city).x, center(city).y);
    await expect.poll(async () => (await a11y.focused())?.label, { timeout: 15_000 }).toBe('City');
    await harness.typeText('Paris');
    await expect.poll(async () => (await a11y.focused())?.text, { timeout: 15_000 }).toBe('Paris');
    const named = await a11y.find({ ...identity, label: 'Name' });
    expect(named).toHaveLength(1);
    expect(named[0]?.extents?.y).not.toBe(city.extents?.y);
  });

  it('gives the screen boxes of a dialog scaled 2x (GDK_SCALE), where GTK reports its own pixels', async () => {
    const scaled = execa('zenity', ['--forms', '--title', 'Scaled', '--add-entry', 'Street'], {
      env: { ...accessibleAppEnv(harness.env), GDK_SCALE: '2' },
      reject: false,
    });
    try {
      const window = await windowGeometry(harness, await waitForWindowTitle(harness, 'Scaled'));
      const [street] = await findOne(zenityEntry('Street', 'Scaled'));
      const box = street?.extents;
      if (!street || !box) throw new Error('not found');
      // Inside the window on the screen, at its scale (GTK says half of each).
      expect(box.x).toBeGreaterThanOrEqual(window.x - 2);
      expect(box.x + box.width).toBeLessThanOrEqual(window.x + window.width);
      expect(box.y + box.height).toBeLessThanOrEqual(window.y + window.height);
      expect(box.height).toBeGreaterThan(50);
      expect(await a11y.elementAt(center(street))).toMatchObject({ role: 'text', label: 'Street' });
      await harness.click(center(street).x, center(street).y);
      await expect.poll(async () => (await a11y.focused())?.label, { timeout: 15_000 }).toBe('Street');
      await harness.typeText('Rue Haute');
      // The focus event of a dialog started on a busy machine may come seconds late.
      await expect.poll(async () => (await a11y.focused())?.text, { timeout: 15_000 }).toBe('Rue Haute');
    } finally {
      scaled.kill('SIGTERM');
      await scaled;
    }
  });
});

describe('a Qt 5 app (FeatherPad) started by mime', () => {
  it('joins the tree (the accessibility bus named on the root window), its editor read after typing', async () => {
    const dir = await tempDir('mime-a11y-qt-');
    const file = join(dir, 'qt-a11y.txt');
    await writeFile(file, '');
    // Qt 5 registers before its accessibility connection is up unless the root window names the bus.
    await launchApp(`featherpad ${file}`, await gtkAppEnv(harness));
    const id = await waitForWindowTitle(harness, 'qt-a11y.txt');
    expect(await execa('xprop', ['-root', 'AT_SPI_BUS'], { env: harness.env }).then((r) => r.stdout)).toMatch(
      /^AT_SPI_BUS\(STRING\) = "unix:/,
    );
    await expect.poll(async () => (await a11y.apps()).join(' '), { timeout: 10_000 }).toMatch(/featherpad/i);
    const window = await windowGeometry(harness, id);
    await harness.click(window.x + window.width / 2, window.y + window.height / 2);
    // The editor is under its centre, not the nameless viewport Qt lays over it.
    const at = await a11y.elementAt({
      x: Math.round(window.x + window.width / 2),
      y: Math.round(window.y + window.height / 2),
    });
    expect(at).toMatchObject({ role: 'text', app: 'FeatherPad' });
    expect(at?.path.at(-1)).toMatchObject({ role: 'text' });
    await expect.poll(async () => (await a11y.focused())?.role, { timeout: 15_000 }).toBe('text');
    await harness.typeText('hello qt');
    await expect.poll(async () => (await a11y.focused())?.text, { timeout: 15_000 }).toBe('hello qt');
    expect(await a11y.focused()).toMatchObject({ role: 'text', app: expect.stringMatching(/featherpad/i) });
    await harness.pressKeys('ctrl+s');
    await expect.poll(() => readFile(file, 'utf8'), { timeout: 5000 }).toMatch(/^hello qt/);
    await harness.pressKeys('ctrl+q');
  }, 60_000);

  it('gives the screen boxes of an app scaled 1.25x (QT_SCALE_FACTOR), where Qt reports its own pixels', async () => {
    const dir = await tempDir('mime-a11y-qt-');
    const file = join(dir, 'qt-scaled.txt');
    await writeFile(file, '');
    await launchApp(`featherpad ${file}`, { ...(await gtkAppEnv(harness)), QT_SCALE_FACTOR: '1.25' });
    const window = await windowGeometry(harness, await waitForWindowTitle(harness, 'qt-scaled.txt'));
    // Low in the editor's right part: outside the window Qt reports (its 80%).
    const point = {
      x: Math.round(window.x + window.width * 0.9),
      y: Math.round(window.y + window.height * 0.7),
    };
    await expect.poll(async () => (await a11y.elementAt(point))?.role, { timeout: 10_000 }).toBe('text');
    const editor = await a11y.elementAt(point);
    const box = editor?.extents;
    if (!box) throw new Error('no extents');
    expect(box.x).toBeGreaterThanOrEqual(window.x - 2);
    expect(box.width).toBeGreaterThan(window.width * 0.9);
    expect(box.x + box.width).toBeLessThanOrEqual(window.x + window.width + 2);
    await harness.pressKeys('ctrl+q');
  }, 60_000);
});

describe('a Chromium window started without its accessibility flag', () => {
  it('names no element in it, not its empty frame', async () => {
    const profile = await tempDir('mime-a11y-bare-');
    const flags = CHROMIUM_FLAGS.filter((flag) => flag !== ACCESSIBLE_CHROMIUM_FLAG);
    await withDesktop({ app: false }, async (bare) => {
      const app = execa('chromium', [...flags, `--user-data-dir=${profile}`, FORM_APP_PATH], {
        env: accessibleAppEnv(bare.env),
        reject: false,
        detached: true,
        stdio: 'ignore',
      });
      const opened = await openAccessibility(bare.env);
      if (!opened.ok) throw new Error(opened.reason);
      try {
        await waitForWindowTitle(bare, '^mime-form ', 30_000);
        // On the bus, its window there (the point's window found), yet it keeps no tree under it.
        await expect.poll(() => opened.accessibility.apps(), { timeout: 10_000 }).toContain('Chromium');
        await opened.accessibility.wake();
        expect(await opened.accessibility.elementAt({ x: 280, y: 114 })).toBeNull();
        expect(await opened.accessibility.focused()).toBeNull();
      } finally {
        await opened.accessibility.close();
        // Its profile is thrown away: ended at once, not asked to save a session.
        if (app.pid !== undefined) process.kill(-app.pid, 'SIGKILL');
        await app;
      }
    });
  }, 60_000);
});

describe('a bus that answers late (a busy machine)', () => {
  it('is asked again after it did not answer in time, and then opens', async () => {
    const { env } = harness;
    // The bus launcher (org.a11y.Bus) of this test's own session, stopped: it answers nothing.
    const { stdout } = await execa(
      'dbus-send',
      [
        '--session',
        '--print-reply',
        '--dest=org.freedesktop.DBus',
        '/org/freedesktop/DBus',
        'org.freedesktop.DBus.GetConnectionUnixProcessID',
        'string:org.a11y.Bus',
      ],
      { env },
    );
    const pid = Number(/uint32 (\d+)/.exec(stdout)?.[1]);
    expect(pid).toBeGreaterThan(1);
    const once = accessibilityOnce(() => openAccessibility(env));
    process.kill(pid, 'SIGSTOP');
    try {
      const late = await openAccessibility(env);
      expect(late).toMatchObject({ ok: false, retry: true });
      expect(await once.get()).toBeNull();
    } finally {
      process.kill(pid, 'SIGCONT');
    }
    // Kept for the process, the failure left recordings without elements; asked again, it opens.
    await expect.poll(async () => (await once.get()) !== null, { timeout: 20_000, interval: 500 }).toBe(true);
    try {
      const tree = await once.get();
      expect(await tree?.apps()).toContain('Chromium');
    } finally {
      await once.close();
    }
  }, 60_000);
});
