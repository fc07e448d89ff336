/**
 * The GTK 3 address dialog (zenity `--forms`: Name, City, OK) recorded by input under X11 (Xvfb and
 * openbox) and reflected without a model: the workflow the Wayland tests replay on sway and mutter.
 */
import { join } from 'node:path';
import { execa } from 'execa';
import { expect } from 'vitest';
import { accessibleAppEnv, elementCentre } from './accessible-element.ts';
import { withDesktop } from './e2e-rig.ts';
import { clientArea, waitForWindowTitle } from './gtk-apps.ts';
import { fillAddress, recordByInput } from './record-by-input.ts';
import { runMime } from './run-mime.ts';

/** zenity's arguments for the dialog, as recorded. */
export const DIALOG_ARGS = [
  '--forms',
  '--title',
  'Address',
  '--text',
  'Where to',
  '--add-entry',
  'Name',
  '--add-entry',
  'City',
];

/**
 * Records the dialog by input under X11 (Name, City, OK), reflects it without a model; the workflow
 * and where the dialog's content was on the screen.
 */
export async function recordDialog(
  home: string,
): Promise<{ workflow: string; at: { x: number; y: number } }> {
  let at = { x: 0, y: 0 };
  const session = await withDesktop({ app: false, windowManager: true }, async (harness) => {
    const dialog = execa('zenity', DIALOG_ARGS, { env: accessibleAppEnv(harness.env), reject: false });
    const field = (label: string) => elementCentre(harness.env, { role: 'text', label, app: 'zenity' });
    const fields = { name: await field('Name'), city: await field('City') };
    at = await clientArea(harness, await waitForWindowTitle(harness, '^Address$'));
    const id = await recordByInput(harness, home, 'address dialog', async (recorded) => {
      await fillAddress(harness, fields, recorded);
      const ok = await elementCentre(harness.env, { role: 'push button', name: 'OK', app: 'zenity' });
      // A person's pointer settles on the button before the press; the dialog closes on release.
      await harness.click(ok.x, ok.y, { restMs: 200, holdMs: 120 });
      await recorded(5);
    });
    expect((await dialog).stdout).toBe('Ann Lee|Paris');
    return id;
  });
  const reflected = await runMime(['reflect', '--session', session, '--home', home, '--no-model']);
  expect(reflected.exitCode, reflected.stderr).toBe(0);
  return { workflow: join(home, 'workflows', session), at };
}
