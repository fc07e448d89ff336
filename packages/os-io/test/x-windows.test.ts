/**
 * Window finding on X11 through mime's own X connection, against real app windows on Xvfb: xterms
 * with a given title and class (xterm stores a non-ASCII title as Latin-1 `WM_NAME`), a GTK dialog
 * (zenity: UTF-8 `_NET_WM_NAME`), and an xterm unmapped after it showed. xdotool, which window
 * finding spawned before, is the oracle for which windows are viewable and in what order.
 */
import type { DesktopHarness } from '@mime-desktop/test-support/desktop-harness';
import { useDesktop } from '@mime-desktop/test-support/e2e-rig';
import { waitUntil } from '@mime-desktop/test-support/wait';
import { execa, type ResultPromise } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeApp, DesktopFailureError, findWindows, focusedWindow, listWindows } from '../src/index.ts';
import { XWindowReader } from '../src/x-windows.ts';

const desktopHarness = useDesktop({ app: false, keepDisplayUntilExit: false });
let harness: DesktopHarness;
const apps: ResultPromise[] = [];

const start = (command: string, args: string[]) => {
  const app = execa(command, args, { env: harness.env, reject: false, stdio: 'ignore' });
  apps.push(app);
  return app;
};

/** Waits until a window of class `klass` is viewable; resolves its id, as xdotool finds it. */
const shown = (klass: string) =>
  waitUntil(
    async () =>
      (await harness.xdotool('search', '--onlyvisible', '--class', klass).catch(() => ''))
        .split('\n')
        .find(Boolean),
    { timeoutMs: 20_000, what: `a window of class ${klass}` },
  );

beforeAll(async () => {
  harness = desktopHarness();
  start('xterm', ['-title', 'Grüße', '-class', 'MimeGreeting']);
  start('xterm', ['-title', 'plain', '-class', 'MimePlain']);
  start('zenity', ['--info', '--title', 'Größe 中文', '--text', 'hello']);
  start('xterm', ['-title', 'Hidden', '-class', 'MimeHidden']);
  await Promise.all(['MimeGreeting', 'MimePlain', 'zenity', 'MimeHidden'].map(shown));
  await harness.xdotool('windowunmap', '--sync', await shown('MimeHidden'));
}, 60_000);

afterAll(() => {
  for (const app of apps) app.kill();
});

describe('findWindows on X11', () => {
  it('tells an xterm by its non-ASCII title and its WM_CLASS names', async () => {
    const found = await findWindows({ title: '^Grüße$' }, harness.env);
    expect(found).toHaveLength(1);
    expect(found[0]?.classes).toEqual(['xterm', 'MimeGreeting']);
    expect(found[0]?.id).toMatch(/^\d+$/);
    expect(await findWindows({ class: '^MimeGreeting$' }, harness.env)).toEqual(found);
  });

  it('tells a GTK window by its UTF-8 _NET_WM_NAME and its class', async () => {
    const [zenity] = await findWindows({ class: '^Zenity$' }, harness.env);
    expect(zenity?.title).toBe('Größe 中文');
    expect(zenity?.classes).toEqual(['zenity', 'Zenity']);
    expect(await harness.xdotool('getwindowname', zenity?.id ?? '')).toBe('Größe 中文');
  });

  it('leaves an unmapped window out', async () => {
    expect(await findWindows({ class: '^MimeHidden$' }, harness.env)).toEqual([]);
    expect((await findWindows({ class: '^MimePlain$' }, harness.env)).map((w) => w.title)).toEqual(['plain']);
  });

  it('lists the windows xdotool --onlyvisible lists, in its order', async () => {
    const oracle = (await harness.xdotool('search', '--onlyvisible', '--name', ''))
      .split('\n')
      .filter(Boolean);
    expect((await findWindows({}, harness.env)).map((w) => w.id)).toEqual(oracle);
  });

  it('places the viewable top-level windows, and not the unmapped one', async () => {
    const classes = (await listWindows(harness.env)).map((w) => w.classes.at(-1));
    expect(classes).toEqual(expect.arrayContaining(['MimeGreeting', 'MimePlain', 'Zenity']));
    expect(classes).not.toContain('MimeHidden');
  });

  it('says which display it could not reach, or that none is set', async () => {
    const unset = findWindows({}, { PATH: process.env.PATH });
    await expect(unset).rejects.toBeInstanceOf(DesktopFailureError);
    await expect(unset).rejects.toThrow(/DISPLAY is not set/);
    const absent = findWindows({}, { PATH: process.env.PATH, DISPLAY: ':4242' });
    await expect(absent).rejects.toMatchObject({ code: 'MIME_DESKTOP_FAILED' });
    await expect(absent).rejects.toThrow(/cannot connect to the X display :4242/);
  });

  it('tells the window with the keyboard focus, and the one under the pointer when no app has it', async () => {
    const [plain] = await findWindows({ class: '^MimePlain$' }, harness.env);
    await harness.xdotool('windowfocus', '--sync', plain?.id ?? '');
    expect(await focusedWindow(harness.env)).toEqual({
      id: plain?.id,
      title: 'plain',
      classes: ['xterm', 'MimePlain'],
    });
    // The focus on the root window: no app's, so the window under the pointer is the one.
    await harness.xdotool(
      'windowfocus',
      '--sync',
      await harness.xdotool('search', '--maxdepth', '0', '--name', ''),
    );
    const zenity = (await listWindows(harness.env)).find((w) => w.classes.includes('Zenity'));
    if (!zenity?.box) throw new Error('the zenity window has no box');
    await harness.moveMouse(zenity.box.x + zenity.box.width / 2, zenity.box.y + zenity.box.height / 2);
    expect((await focusedWindow(harness.env))?.title).toBe('Größe 中文');
  });

  it('closes an app by its window class and sees its window gone', async () => {
    start('xterm', ['-title', 'Closing', '-class', 'MimeClosing']);
    await shown('MimeClosing');
    expect(await closeApp({ class: '^MimeClosing$' }, { env: harness.env, graceMs: 5000 })).toBe(1);
    expect(await findWindows({ class: '^MimeClosing$' }, harness.env)).toEqual([]);
  });
});

describe('an X server that goes away', () => {
  const gone = useDesktop({ app: false, keepDisplayUntilExit: false });

  it('fails the reads in flight and after, instead of waiting for replies that never come', async () => {
    const reader = await XWindowReader.open(gone().env);
    expect(await reader.viewableIds()).toHaveLength(1); // the root alone
    const inFlight = reader.viewableIds();
    await gone().stop();
    // Answered before the server went, or failed with it: settled either way.
    const settled = await inFlight.then(
      (ids) => ids.length,
      (error: Error) => error.message,
    );
    expect(settled === 1 || /the X server closed the connection/.test(String(settled))).toBe(true);
    await expect(reader.viewableIds()).rejects.toThrow(/the X server closed the connection/);
    await reader.close();
  });
});
