/**
 * Accessibility on Wayland: a GTK 3 dialog (zenity) native on headless sway reports its extents
 * relative to its window; the wlroots adapter adds the window's place from sway (by pid). Checked by
 * clicking the field the extents name after the window moved: only the right place focuses it.
 */

import type { AccessibleElement } from '@mime-desktop/schema';
import { type SwayHarness, startSwayHarness, swaySkipReason } from '@mime-desktop/test-support/sway-harness';
import { execa, type ResultPromise } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accessibleAppEnv, createDesktop, type Desktop } from '../src/index.ts';

const skip = swaySkipReason();

const cityEntry: AccessibleElement = {
  role: 'text',
  name: '',
  label: 'City',
  app: 'zenity',
  window: { role: 'dialog', name: 'Address' },
  path: [],
  states: [],
  extents: null,
};

const center = (e: AccessibleElement | undefined) => {
  const box = e?.extents ?? { x: 0, y: 0, width: 0, height: 0 };
  return { x: Math.round(box.x + box.width / 2), y: Math.round(box.y + box.height / 2) };
};

describe.skipIf(skip !== null)('a GTK 3 dialog native on sway', () => {
  let sway: SwayHarness | undefined;
  let desktop: Desktop | undefined;
  let dialog: ResultPromise | undefined;
  beforeAll(async () => {
    sway = await startSwayHarness({ app: false });
    // mime's desktop in this process reads the session from the environment, as the CLI does.
    for (const [key, value] of Object.entries(sway.env)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
    desktop = await createDesktop({ failSafe: false });
    // Opened before the app starts, so the app exports its tree.
    await desktop.accessibility();
    dialog = execa(
      'zenity',
      ['--forms', '--title', 'Address', '--text', 'Where to', '--add-entry', 'Name', '--add-entry', 'City'],
      { env: { ...accessibleAppEnv(sway.env), GDK_BACKEND: 'wayland' }, extendEnv: false, reject: false },
    );
  }, 60_000);
  afterAll(async () => {
    dialog?.kill('SIGTERM');
    await dialog;
    await desktop?.close();
    await sway?.stop();
  });

  const moveTo = async (x: number, y: number) => {
    // Polled: the dialog's window may not be mapped yet ("No matching node").
    const move = `[app_id=zenity] floating enable, move absolute position ${x} ${y}`;
    await expect
      .poll(
        () =>
          sway?.swaymsg(move).then(
            () => true,
            () => false,
          ),
        { timeout: 15_000 },
      )
      .toBe(true);
    await expect
      .poll(async () => {
        const window = await desktop?.focusedWindow();
        return window ? await desktop?.windowAt({ x: x + 5, y: y + 5 }) : null;
      })
      .toMatchObject({ classes: ['zenity'] });
  };

  const findCity = async () => {
    const a11y = await desktop?.accessibility();
    if (!a11y) throw new Error('no accessibility bus');
    await expect.poll(async () => (await a11y.find(cityEntry)).length, { timeout: 15_000 }).toBe(1);
    const [city] = await a11y.find(cityEntry);
    return { a11y, city };
  };

  it('gives screen extents that follow the window, and clicking them focuses the field', {
    timeout: 60_000,
  }, async () => {
    await moveTo(100, 80);
    const first = await findCity();
    await moveTo(500, 300);
    const { a11y, city } = await findCity();
    expect(city?.extents?.x).toBe((first.city?.extents?.x ?? Number.NaN) + 400);
    expect(city?.extents?.y).toBe((first.city?.extents?.y ?? Number.NaN) + 220);
    // Name takes typing when the dialog opens: only a click on City's real place moves it there.
    expect(await a11y.elementAt(center(city))).toMatchObject({ role: 'text', label: 'City' });
    await desktop?.click(center(city));
    await desktop?.typeText('Paris');
    const textOf = async (label: string) => (await a11y.find({ ...cityEntry, label }))[0]?.text;
    await expect.poll(() => textOf('City'), { timeout: 5000 }).toBe('Paris');
    expect(await textOf('Name')).toBe('');
  });
});
