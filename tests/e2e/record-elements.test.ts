/**
 * The element each recorded action is about is the one the input met when it went down, recorded by
 * real input with `mime record` on real apps: a key that opens a dialog keeps the element focused
 * before it (Mousepad's Ctrl+S), a click that closes its window in a quick press still gets its
 * button (a zenity dialog's OK held 20 ms), and the first click into a browser page gets its field
 * (Firefox builds a page's tree only when first asked for it), or no element where the browser keeps
 * no tree of its page, never the window.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  ACCESSIBLE_CHROMIUM_FLAG,
  accessibleAppEnv,
  elementCentre,
  waitForFocused,
} from '@mime-desktop/test-support/accessible-element';
import {
  CHROMIUM_FLAGS,
  centerOf,
  DEMO_LAYOUT,
  type DesktopHarness,
  FORM_APP_PATH,
} from '@mime-desktop/test-support/desktop-harness';
import { tempDir, withDesktop } from '@mime-desktop/test-support/e2e-rig';
import { gtkAppEnv, waitForWindowTitle, windowGeometry } from '@mime-desktop/test-support/gtk-apps';
import { type Recorded, recordByInput } from '@mime-desktop/test-support/record-by-input';
import { sleep, waitUntil } from '@mime-desktop/test-support/wait';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';

/** The recorded actions of a session (the end marker left out). */
async function actionsOf(home: string, session: string): Promise<any[]> {
  return (await readFile(join(home, 'recordings', session, 'manifest.jsonl'), 'utf8'))
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line))
    .filter((e) => e.action_type !== null);
}

/**
 * Longest wait for a browser's window with a fresh profile: Firefox's first start on a new machine,
 * beside record.test on two cores, once took over 30 s.
 */
const BROWSER_START_MS = 60_000;

describe('elements taken at the moment of input', () => {
  it('stores a key that opens a dialog with the element focused before it (Ctrl+S in Mousepad)', async () => {
    const home = await tempDir('mime-rec-key-');
    await withDesktop({ app: false, windowManager: true }, async (harness) => {
      const { GTK_A11Y: _, ...appEnv } = await gtkAppEnv(harness);
      const app = execa('mousepad', [], {
        env: accessibleAppEnv(appEnv),
        reject: false,
        detached: true,
        stdio: 'ignore',
      });
      try {
        const window = await waitForWindowTitle(harness, 'Mousepad');
        const box = await windowGeometry(harness, window);
        const session = await recordByInput(harness, home, 'save a note', async (recorded) => {
          await harness.click(box.x + Math.round(box.width / 2), box.y + Math.round(box.height / 2));
          await recorded(1);
          await harness.typeText('hello');
          await sleep(300); // a person's pause before the chord
          await harness.pressKeys('ctrl+s');
          await recorded(3);
          await waitForWindowTitle(harness, '^Save As');
          // A person presses Escape once the dialog shows its focused field: on a busy machine GTK
          // maps the window before it moves the focus into it.
          await waitForFocused(harness.env, (e) => /^Save As/.test(e.window.name), {
            what: "the Save dialog's focus",
          });
          await harness.pressKeys('Escape');
          await recorded(4);
        });
        const actions = await actionsOf(home, session);
        expect(actions.map((a) => [a.action_type, a.action_details.key ?? a.action_details.text])).toEqual([
          ['click', undefined],
          ['type', 'hello'],
          ['key', 'ctrl+s'],
          ['key', 'escape'],
        ]);
        const [, typed, save, cancel] = actions;
        expect(typed.element).toMatchObject({ role: 'text', app: expect.stringMatching(/mousepad/i) });
        // The chord went to the editor's text, as the typing did; the Save dialog opened after it.
        expect(save.element).toMatchObject({
          role: typed.element.role,
          name: typed.element.name,
          window: typed.element.window,
          path: typed.element.path,
        });
        // Escape went to the dialog, which had the focus by then.
        expect(cancel.element?.window.name).toMatch(/^Save As/);
      } finally {
        if (app.pid !== undefined) process.kill(-app.pid, 'SIGTERM');
        await app;
      }
    });
  }, 90_000);

  it('stores the button of a click that closes its window, pressed for 20 ms (OK in a zenity dialog)', async () => {
    const home = await tempDir('mime-rec-click-');
    await withDesktop({ windowManager: true }, async (harness) => {
      const dialog = execa('zenity', ['--info', '--title', 'Done', '--text', 'All saved'], {
        env: accessibleAppEnv(harness.env),
        reject: false,
      });
      // The dialog moved so that its OK lies over the demo page's track list: a lookup made once the
      // dialog is gone would name a track.
      const id = await waitForWindowTitle(harness, '^Done$');
      const okQuery = { role: 'push button', name: 'OK', app: 'zenity' };
      const placed = await elementCentre(harness.env, okQuery);
      const window = await windowGeometry(harness, id);
      // The window manager puts a moved window's frame, not its content, where it is told.
      const frame = await moveWindow(harness, id, { x: window.x + 10, y: window.y + 10 });
      const to = { x: window.x + TRACKS.x - placed.x - frame.x, y: window.y + TRACKS.y - placed.y - frame.y };
      await moveWindow(harness, id, to);
      const ok = await elementCentre(harness.env, okQuery);
      expect(Math.abs(ok.x - TRACKS.x) + Math.abs(ok.y - TRACKS.y)).toBeLessThan(4);
      const session = await recordByInput(harness, home, 'confirm', async (recorded) => {
        // A person's pointer comes to rest on the button, then a quick press.
        await harness.moveMouse(ok.x, ok.y);
        await sleep(300);
        await harness.click(ok.x, ok.y, { holdMs: 20 });
        expect((await dialog).exitCode).toBe(0);
        await recorded(1);
      });
      const [click] = await actionsOf(home, session);
      expect(click).toMatchObject({
        action_type: 'click',
        element: { role: 'push button', name: 'OK', app: 'zenity', window: { name: 'Done' } },
      });
    });
  }, 90_000);

  it('stores the field of the first click into a Firefox page, whose tree Firefox builds once asked', async () => {
    const home = await tempDir('mime-rec-page-');
    const profile = await firefoxProfile();
    const session = await recordFirstClick(home, 'firefox-esr', [
      '--no-remote',
      '--kiosk',
      '--profile',
      profile,
    ]);
    const [click, typed] = await actionsOf(home, session);
    expect(click).toMatchObject({
      action_type: 'click',
      element: { role: 'entry', name: 'Name', app: 'Firefox' },
    });
    expect(typed.element).toMatchObject({ role: 'entry', name: 'Name', text: 'Ann' });
  }, 90_000);

  it('stores the field of the first click into a Firefox page that `mime record --launch` started', async () => {
    const home = await tempDir('mime-rec-page-');
    const profile = await firefoxProfile();
    const url = pathToFileURL(FORM_APP_PATH).href;
    // The window shows after the recorder's start: its wake found no page to wake.
    const launch = `firefox-esr --no-remote --kiosk --profile ${profile} ${url}`;
    const session = await withDesktop({ app: false }, (harness) =>
      recordByInput(
        harness,
        home,
        'first click',
        async (recorded) => {
          await waitForWindowTitle(harness, '^mime-form ', BROWSER_START_MS);
          await intoTheNameField(harness, recorded);
        },
        { launch, env: accessibleAppEnv(harness.env) },
      ),
    );
    const [click] = await actionsOf(home, session);
    expect(click).toMatchObject({ action_type: 'click', element: { role: 'entry', name: 'Name' } });
  }, 90_000);

  it('stores no element, rather than the window, for a click into a Chromium page it keeps no tree of', async () => {
    const home = await tempDir('mime-rec-page-');
    const profile = await tempDir('mime-rec-chromium-');
    // Chromium started without the flag that makes it build its pages' trees: it shows an empty frame.
    const flags = CHROMIUM_FLAGS.filter((flag) => flag !== ACCESSIBLE_CHROMIUM_FLAG);
    const session = await recordFirstClick(home, 'chromium', [...flags, `--user-data-dir=${profile}`]);
    const [click] = await actionsOf(home, session);
    expect(click.action_type).toBe('click');
    expect(click.element).toBeUndefined();
  }, 90_000);
});

/** The centre of the demo page's scrolling track list. */
const TRACKS = centerOf(DEMO_LAYOUT.scrollList);
/** The centre of the form page's Name field on the screen (fixtures/apps/form: main at 40,40, kiosk at 0,0). */
const NAME_FIELD = { x: 280, y: 114 };

/** A person's first input into the form page: a click into Name, "Ann" typed, Tab (3 actions). */
async function intoTheNameField(harness: DesktopHarness, recorded: Recorded): Promise<void> {
  await harness.click(NAME_FIELD.x, NAME_FIELD.y, { holdMs: 100 });
  await recorded(1);
  await harness.typeText('Ann');
  await sleep(300);
  await harness.pressKeys('Tab');
  await recorded(3);
}

/**
 * Moves window `id` to `to` and waits until it moved; how far from `to` its content ended (the
 * window manager's frame around it).
 */
async function moveWindow(
  harness: DesktopHarness,
  id: string,
  to: { x: number; y: number },
): Promise<{ x: number; y: number }> {
  const before = await windowGeometry(harness, id);
  await harness.xdotool('windowmove', id, String(to.x), String(to.y));
  const after = await waitUntil(
    async () => {
      const now = await windowGeometry(harness, id);
      return now.x !== before.x || now.y !== before.y ? now : null;
    },
    { what: `window ${id} moved` },
  );
  return { x: after.x - to.x, y: after.y - to.y };
}

/** Firefox preferences for a fresh profile that opens the page alone. */
const FIREFOX_PREFS: Array<[string, string]> = [
  ['browser.aboutwelcome.enabled', 'false'],
  ['browser.shell.checkDefaultBrowser', 'false'],
  ['browser.startup.homepage_override.mstone', '"ignore"'],
  ['datareporting.policy.dataSubmissionEnabled', 'false'],
  ['toolkit.telemetry.reportingpolicy.firstRun', 'false'],
];

/** A fresh Firefox profile; a first start as a person's: no welcome page, no notices over the page. */
async function firefoxProfile(): Promise<string> {
  const profile = await tempDir('mime-rec-firefox-');
  await writeFile(
    join(profile, 'user.js'),
    FIREFOX_PREFS.map(([k, v]) => `user_pref("${k}", ${v});`).join('\n'),
  );
  return profile;
}

/**
 * Records on a desktop of its own: the form page in `browser` (kiosk, at 0,0), started before the
 * recording; nothing asks it for the page's tree before. A click into the Name field, "Ann", Tab.
 */
async function recordFirstClick(home: string, browser: string, args: string[]): Promise<string> {
  return withDesktop({ app: false }, async (harness) => {
    const app = execa(browser, [...args, pathToFileURL(FORM_APP_PATH).href], {
      env: accessibleAppEnv(harness.env),
      reject: false,
      detached: true,
      stdio: 'ignore',
    });
    try {
      await waitForWindowTitle(harness, '^mime-form ', BROWSER_START_MS);
      return await recordByInput(harness, home, 'first click', (recorded) =>
        intoTheNameField(harness, recorded),
      );
    } finally {
      // Its profile is thrown away: ended at once, not asked to save a session (3.5 s on SIGTERM).
      if (app.pid !== undefined) process.kill(-app.pid, 'SIGKILL');
      await app;
    }
  });
}
