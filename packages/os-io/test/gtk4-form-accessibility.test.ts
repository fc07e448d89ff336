/**
 * The GTK 4 form of the replay matrix (fixtures/apps/gtk4-form) on X11: GTK 4 reports its elements'
 * extents relative to its window only ("Screen coordinates not supported"), so mime places them by
 * the X window. Started as the matrix starts it, from an environment that turned GTK 4's
 * accessibility off (`GTK_A11Y=none`), which {@link accessibleAppEnv} turns back on. The form writes
 * where GTK laid its fields out in its window: the boxes mime gives must be where they are drawn.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { AccessibleElement, ElementBox } from '@mime-desktop/schema';
import { useDesktop, useTempDirs } from '@mime-desktop/test-support/e2e-rig';
import { clientArea, gtkAppEnv, waitForWindowTitle } from '@mime-desktop/test-support/gtk-apps';
import { REPO_ROOT } from '@mime-desktop/test-support/run-mime';
import { waitUntil } from '@mime-desktop/test-support/wait';
import { execa, type ResultPromise } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Accessibility, accessibleAppEnv, openAccessibility } from '../src/index.ts';

const desktop = useDesktop({ app: false, windowManager: true });
const tempDir = useTempDirs();
let a11y: Accessibility;
let app: ResultPromise;
let windowId: string;
let state: string;

/** A field of the form as recorded: GTK 4.8 names an entry with no label of its own by its class. */
const field = (index: number): AccessibleElement => ({
  role: 'text box',
  name: 'GtkEntry',
  label: null,
  app: 'form.py',
  window: { role: 'window', name: 'gtk4-form Address' },
  path: [
    { role: 'group', name: '', index: 0 },
    { role: 'text box', name: 'GtkEntry', index },
  ],
  states: [],
  extents: null,
});
const CITY = field(3);

/** The one element `identity` names now, with its screen box. */
async function one(identity: AccessibleElement): Promise<AccessibleElement & { extents: ElementBox }> {
  const found = await a11y.find(identity);
  const [element] = found;
  if (found.length !== 1 || !element?.extents) throw new Error(`not one ${identity.role} found`);
  return { ...element, extents: element.extents };
}

/** Where the form drew its City field on the screen: its layout in the window, from the window's client area. */
async function drawnCity(): Promise<ElementBox> {
  const { layout } = JSON.parse(await readFile(state, 'utf8')) as { layout: { city: ElementBox } };
  const client = await clientArea(desktop(), windowId);
  return { ...layout.city, x: client.x + layout.city.x, y: client.y + layout.city.y };
}

const centre = (box: ElementBox) => ({
  x: Math.round(box.x + box.width / 2),
  y: Math.round(box.y + box.height / 2),
});

beforeAll(async () => {
  const harness = desktop();
  const opened = await openAccessibility(harness.env);
  if (!opened.ok) throw new Error(opened.reason);
  a11y = opened.accessibility;
  state = join(await tempDir('mime-gtk4-form-'), 'state.json');
  // Xvfb has no GL: GTK 4 draws with cairo. The harness's GTK environment sets GTK_A11Y=none.
  app = execa('/usr/bin/python3', [join(REPO_ROOT, 'fixtures/apps/gtk4-form/form.py'), '--state', state], {
    env: accessibleAppEnv({ ...(await gtkAppEnv(harness)), GSK_RENDERER: 'cairo' }),
    reject: false,
    detached: true,
    stdio: 'ignore',
  });
  windowId = await waitForWindowTitle(harness, '^gtk4-form');
  await harness.xdotool('windowmove', windowId, '160', '120');
  await waitUntil(async () => (await clientArea(harness, windowId)).x <= 200, { what: 'the window moved' });
  await waitUntil(async () => (await a11y.find(CITY)).length === 1, {
    timeoutMs: 15_000,
    what: 'the City field in the tree',
  });
  await waitUntil(async () => (await readFile(state, 'utf8').catch(() => '')).includes('layout'), {
    what: 'the form wrote its layout',
  });
}, 60_000);

afterAll(async () => {
  await a11y?.close();
  if (app?.pid !== undefined) process.kill(-app.pid, 'SIGTERM');
  await app;
});

describe('the GTK 4 form on X11', () => {
  it('gives its City field a screen box where the field is drawn in the moved window', async () => {
    const drawn = await drawnCity();
    const { extents } = await one(CITY);
    // GTK reports the field's inside (past its border and padding): the same middle, inside the drawn box.
    expect(Math.abs(centre(extents).x - centre(drawn).x)).toBeLessThanOrEqual(2);
    expect(Math.abs(centre(extents).y - centre(drawn).y)).toBeLessThanOrEqual(2);
    expect(extents.x).toBeGreaterThanOrEqual(drawn.x);
    expect(extents.x + extents.width).toBeLessThanOrEqual(drawn.x + drawn.width);
    expect(extents.height).toBeGreaterThan(drawn.height / 2);
  });

  it('names the field under a point of the screen', async () => {
    const at = centre(await drawnCity());
    expect(await a11y.elementAt(at)).toMatchObject({ role: 'text box', path: CITY.path });
  });

  it('puts the box where the field is: a click at its centre focuses it and typing fills it', async () => {
    expect((await one(CITY)).states).not.toContain('focused');
    const at = centre((await one(CITY)).extents);
    await desktop().click(at.x, at.y);
    await expect.poll(async () => (await a11y.focused())?.path, { timeout: 5000 }).toEqual(CITY.path);
    await desktop().typeText('Rome');
    await expect.poll(async () => (await one(CITY)).text, { timeout: 5000 }).toBe('Rome');
  });
});
