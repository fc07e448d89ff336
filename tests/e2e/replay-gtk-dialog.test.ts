/**
 * Accessibility-first replay on a real GTK3 dialog with two entries (zenity --forms): recorded with
 * `mime record` by input, reflected, then replayed in auto mode with new params while the dialog is
 * moved, in a dark theme, with fonts 1.25x, scaled 2x (GDK_SCALE) and on a bigger screen: 0 model
 * calls, the values the dialog hands back are the new ones.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { accessibleAppEnv, elementCentre } from '@mime-desktop/test-support/accessible-element';
import type { DesktopHarness } from '@mime-desktop/test-support/desktop-harness';
import { readEvents, useTempDirs, withDesktop } from '@mime-desktop/test-support/e2e-rig';
import { type FakeModelServer, startFakeModelServer } from '@mime-desktop/test-support/fake-model-server';
import { reflectModel } from '@mime-desktop/test-support/fake-reflect-model';
import { addressPlan, fillAddress, recordByInput } from '@mime-desktop/test-support/record-by-input';
import { runMime } from '@mime-desktop/test-support/run-mime';
import { sleep } from '@mime-desktop/test-support/wait';
import { execa, type ResultPromise } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

let home: string;
let server: FakeModelServer;
let workflowDir: string;

interface Dialog {
  process: ResultPromise;
  windowId: string;
}

/** Where the dialog's field labelled `label` is now (its centre). */
const fieldCentre = (harness: DesktopHarness, label: string) =>
  elementCentre(harness.env, { role: 'text', label, app: 'zenity' });

/** Starts the dialog on the harness display (with an environment of its own, e.g. a theme) and waits for its fields. */
async function openDialog(harness: DesktopHarness, env: Record<string, string> = {}): Promise<Dialog> {
  const process = execa(
    'zenity',
    ['--forms', '--title', 'Address', '--text', 'Where to', '--add-entry', 'Name', '--add-entry', 'City'],
    { env: { ...accessibleAppEnv(harness.env), ...env }, reject: false },
  );
  await fieldCentre(harness, 'Name');
  const windowId =
    (await harness.xdotool('search', '--onlyvisible', '--name', '^Address$')).split('\n')[0] ?? '';
  return { process, windowId };
}

/** Runs `use` on a desktop of its own with a window manager and no app. */
const withDialogDesktop = <T>(
  options: { width?: number; height?: number },
  use: (harness: DesktopHarness) => Promise<T>,
) => withDesktop({ app: false, windowManager: true, ...options }, use);

const fileTempDir = useTempDirs();

beforeAll(async () => {
  home = await fileTempDir('mime-gtk-');
  server = await startFakeModelServer({ models: ['vision-1'] });
  server.setHandler(
    reflectModel({
      plan: addressPlan(
        ['Fill in the name {name} and the city {city}, then confirm', 'Nothing else'],
        'Fill in the address dialog and confirm it.',
        'The dialog closed with {name} and {city}.',
      ),
    }),
  );
  const sessionId = await withDialogDesktop({}, async (harness) => {
    const dialog = await openDialog(harness);
    const fields = { name: await fieldCentre(harness, 'Name'), city: await fieldCentre(harness, 'City') };
    const session = await recordByInput(harness, home, 'address dialog', async (recorded) => {
      await fillAddress(harness, fields, recorded);
      const ok = await elementCentre(harness.env, { role: 'push button', name: 'OK', app: 'zenity' });
      // A person's pointer settles on the button, which is held about 100 ms; the dialog closes as it
      // is released.
      await harness.click(ok.x, ok.y, { restMs: 200, holdMs: 120 });
      await recorded(5); // the typing, then the click
    });
    expect((await dialog.process).stdout).toBe('Ann Lee|Paris');
    return session;
  });
  const env = { MIME_BASE_URL: server.url, MIME_MODEL: 'vision-1', MIME_MODEL_MAX_RETRIES: '1' };
  const reflected = await runMime(['reflect', '--session', sessionId, '--home', home], { env });
  expect(reflected.exitCode, reflected.stderr).toBe(0);
  workflowDir = join(home, 'workflows', sessionId);
}, 120_000);

afterAll(async () => {
  await server?.close();
});

describe('a recording of a GTK3 dialog', () => {
  it('knows its nameless entries by the labels beside them', async () => {
    const manifest = (await readFile(join(workflowDir, 'manifest.jsonl'), 'utf8'))
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line))
      .filter((e) => e.action_type !== null);
    expect(
      manifest.map((e) => [e.action_type, e.element?.role, e.element?.label ?? e.element?.name]),
    ).toEqual([
      ['click', 'text', 'Name'],
      ['type', 'text', 'Name'],
      ['click', 'text', 'City'],
      ['type', 'text', 'City'],
      ['click', 'push button', 'OK'],
    ]);
    expect(manifest[1].element.text).toBe('Ann Lee');
    // The last burst's text is read after it ends, as the OK click closes the dialog: there or not, never wrong.
    expect([undefined, 'Paris']).toContain(manifest[3].element.text);
  });
});

const variants: Array<[string, { width?: number; height?: number }, Record<string, string>, boolean]> = [
  ['moved 150 px', {}, {}, true],
  ['in a dark theme', {}, { GTK_THEME: 'Adwaita:dark' }, false],
  ['with fonts 1.25x', {}, { GDK_DPI_SCALE: '1.25' }, false],
  // GTK reports the elements' places in its own unscaled pixels: mime scales them to the screen's.
  ['scaled 2x (GDK_SCALE)', {}, { GDK_SCALE: '2' }, false],
  ['on a 1920x1080 screen', { width: 1920, height: 1080 }, {}, false],
];

describe('auto replay of the dialog with new params', () => {
  it.each(variants)(
    'succeeds %s with 0 model calls',
    async (_, screen, appEnv, move) => {
      await withDialogDesktop(screen, async (harness) => {
        const dialog = await openDialog(harness, appEnv);
        if (move) await harness.xdotool('windowmove', dialog.windowId, '150', '90');
        await sleep(300);
        const result = await runMime(
          [
            'replay',
            workflowDir,
            '--mode',
            'auto',
            '--param',
            'name=Bob Jones',
            '--param',
            'city=Rome',
            '--json',
          ],
          { env: { ...harness.env } },
        );
        // A dialog the replay did not confirm is closed, so the test ends with its answer either way.
        const closed = await Promise.race([dialog.process, sleep(3000).then(() => null)]);
        if (!closed) dialog.process.kill('SIGTERM');
        expect((await dialog.process).stdout, result.stderr).toBe('Bob Jones|Rome');
        const summary = JSON.parse(result.stdout);
        expect(summary.outcome).toBe('success');
        expect(summary.usage.calls).toBe(0);
        expect(result.exitCode).toBe(0);
        const run: any[] = await readEvents(join(workflowDir, '.replay', summary.run_id));
        expect(run.filter((e) => e.type === 'step').map((e) => e.data.rung)).toEqual(
          Array(5).fill('accessibility'),
        );
      });
    },
    90_000,
  );
});
