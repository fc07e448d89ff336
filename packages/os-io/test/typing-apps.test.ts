/**
 * Typing into real GTK apps, and a Qt one, at the default speed. galculator animates the on-screen
 * button of every key it takes and ignores the same key pressed again within about 100 ms: typed as
 * fast as other keys, `1.0777` arrived as `1.077` (and `xdotool type --delay 100` still loses it).
 * Mousepad takes any speed, and so does FeatherPad (Qt 5: exact at 0 ms a key with no pause between
 * repeats, measured). Characters the layout lacks are typed through spare keys, not pasted: Gnumeric
 * turned a pasted `É` into `ze`, and GTK lost the first character typed right after a keymap change.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { DesktopHarness } from '@mime-desktop/test-support/desktop-harness';
import { tempDir, useDesktop } from '@mime-desktop/test-support/e2e-rig';
import { gtkAppEnv, waitForWindowTitle, windowGeometry } from '@mime-desktop/test-support/gtk-apps';
import { sleep } from '@mime-desktop/test-support/wait';
import { execa, type ResultPromise } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDesktop, type Desktop } from '../src/index.ts';
import { XKeyboard } from '../src/x-keyboard.ts';
import { type Toolkit, toolkitOf } from '../src/x-toolkit.ts';

let harness: DesktopHarness;
let desktop: Desktop;
let env: NodeJS.ProcessEnv;
const apps: ResultPromise[] = [];

// The display stays until this process exits: Xlib in the native modules loaded here ends the
// process when its X server goes first.
const desktopHarness = useDesktop({ app: false, windowManager: true, keepDisplayUntilExit: true });

beforeAll(async () => {
  harness = desktopHarness();
  process.env.DISPLAY = harness.display;
  env = await gtkAppEnv(harness);
  desktop = await createDesktop();
}, 60_000);

afterAll(async () => {
  for (const app of apps) app.kill();
  await desktop?.close();
});

/** Starts an app and resolves its window's geometry and the app's process. */
const start = async (command: string, args: string[], title: string) => {
  const app = execa(command, args, { env, reject: false, detached: true, stdio: 'ignore' });
  apps.push(app);
  const id = await waitForWindowTitle(harness, title);
  await harness.xdotool('windowactivate', '--sync', id).catch(() => '');
  await sleep(800);
  return { ...(await windowGeometry(harness, id)), app };
};

/** The toolkit of the window that has the focus now, as typing tells it. */
const focusedToolkit = async (): Promise<Toolkit | null> => {
  const keyboard = await XKeyboard.open(harness.display);
  try {
    const window = await keyboard.focusedWindow();
    return window === null ? null : toolkitOf(window.traits);
  } finally {
    await keyboard.close();
  }
};

/**
 * Stops the app's process for `ms` from now, as a machine too busy to run it does: the keys typed
 * meanwhile wait in its queue, and it handles them late, all at once. Resolves once it runs again.
 */
const stall = (app: ResultPromise, ms: number): Promise<void> => {
  const pid = app.pid;
  if (pid === undefined) throw new Error('the app has no process to stop');
  process.kill(pid, 'SIGSTOP');
  return new Promise((resolve) =>
    setTimeout(() => {
      process.kill(pid, 'SIGCONT');
      resolve();
    }, ms),
  );
};

/** Whether the window that has the focus answers mime's ping within 5 s: what typing waits on. */
const focusedAnswersPing = async (): Promise<boolean> => {
  const keyboard = await XKeyboard.open(harness.display);
  try {
    const window = await keyboard.focusedWindow();
    return window?.answersPing === true && (await keyboard.ping(window.id, 5000));
  } finally {
    await keyboard.close();
  }
};

const clipboard = async () =>
  (await execa('xclip', ['-o', '-selection', 'clipboard'], { env, reject: false })).stdout.trim();

/**
 * galculator's number, copied until the clipboard holds what is awaited (the last one copied was
 * another): a digit galculator dropped never arrives, and the poll fails.
 */
const copied = () =>
  expect.poll(
    async () => {
      await desktop.pressKey('ctrl+c');
      return clipboard();
    },
    { timeout: 5000, interval: 100 },
  );

describe('typing into GTK apps', () => {
  it('galculator takes numbers with repeated digits exactly', async () => {
    const window = await start('galculator', [], 'galculator');
    expect(await focusedToolkit()).toBe('gtk');
    expect(await focusedAnswersPing()).toBe(true);
    for (const number of ['1.0777', '5.5', '1122', '0.5050']) {
      await desktop.click({ x: window.x + window.width / 2, y: window.y + 40 });
      await desktop.pressKey('escape');
      await desktop.typeText(number);
      await copied().toBe(number);
    }
    // Gone before the next test looks for a window titled galculator.
    window.app.kill();
    await window.app;
  }, 60_000);

  it('galculator takes a repeated digit it handles late (its process stopped while typing)', async () => {
    const window = await start('galculator', [], 'galculator');
    await desktop.click({ x: window.x + window.width / 2, y: window.y + 40 });
    await desktop.pressKey('escape');
    // Typed at the pace galculator needs, but it handles every key at once when it runs again:
    // the 7s come within its 100 ms, and it drops them unless mime waits for it to have handled each.
    const resumed = stall(window.app, 1500);
    await desktop.typeText('1.0777');
    await resumed;
    await copied().toBe('1.0777');
    window.app.kill();
  }, 60_000);

  /**
   * Types `text` into a new Mousepad file, saves it and resolves what the file holds; with `stallMs`,
   * Mousepad is stopped that long from the start of the typing ({@link stall}).
   */
  const typeInMousepad = async (name: string, text: string, { stallMs = 0 } = {}) => {
    const dir = await tempDir('mime-typing-');
    const file = join(dir, name);
    await writeFile(file, '');
    const window = await start('mousepad', [file], name);
    expect(await focusedAnswersPing()).toBe(true);
    await desktop.click({ x: window.x + window.width / 2, y: window.y + window.height / 2 });
    const resumed = stallMs > 0 ? stall(window.app, stallMs) : Promise.resolve();
    await desktop.typeText(text);
    await resumed;
    await desktop.pressKey('ctrl+s');
    await expect
      .poll(async () => (await readFile(file, 'utf8')).length, { timeout: 5000 })
      .toBeGreaterThan(0);
    await desktop.pressKey('ctrl+q');
    // Mousepad is one instance a session: a Mousepad started while this one is still quitting
    // hands its file to it, and no window opens.
    await window.app;
    return (await readFile(file, 'utf8')).trim();
  };

  it('mousepad takes a sentence with doubled letters exactly', async () => {
    const text = 'Eeeek! A bookkeeper, 1.0777 mm; all good.';
    expect(await typeInMousepad('typed.txt', text)).toBe(text);
  }, 60_000);

  it('mousepad takes non-ASCII typed by key, right after other keys, and the clipboard stays', async () => {
    await execa('xclip', ['-i', '-selection', 'clipboard'], {
      env,
      input: 'mine',
      stdout: 'ignore',
      stderr: 'ignore',
    });
    const text = 'Zürich — 50% off! É ß € 中文 日本語 x日本語';
    expect(await typeInMousepad('unicode.txt', text)).toBe(text);
    expect(await clipboard()).toBe('mine');
  }, 60_000);

  it('mousepad takes characters typed through spare keys when it handles them late', async () => {
    // GTK reads the keymap from the server at the first key it handles after the change: stopped
    // while mime binds the spare keys, types and unbinds them, it would read them unbound.
    const text = 'Zürich — É ß € 中文 x日本語';
    expect(await typeInMousepad('late.txt', text, { stallMs: 1500 })).toBe(text);
  }, 60_000);

  it('types exactly on a German layout (AltGr symbols, umlauts, y/z swapped)', async () => {
    await execa('setxkbmap', ['de'], { env });
    try {
      const keyboard = await XKeyboard.open(harness.display);
      // The layout really is German: `@` is AltGr+Q (keycode 24, level 3).
      expect(keyboard.keymap.placeOf('@')).toEqual({ keycode: 24, level: 2 });
      await keyboard.close();
      const text = 'äöü ß € @ é Zürich: 50% & y=z {[]}|<>~\\ Ä';
      expect(await typeInMousepad('deutsch.txt', text)).toBe(text);
    } finally {
      await execa('setxkbmap', ['us'], { env });
    }
  }, 60_000);

  it('gnumeric takes É ß € 中文 in a cell', async () => {
    const text = 'É café ß € 中文';
    const window = await start('gnumeric', [], 'Gnumeric');
    await desktop.click({ x: window.x + window.width / 2, y: window.y + window.height / 2 });
    await desktop.typeText(text);
    await desktop.pressKey('enter');
    await desktop.pressKey('up');
    await desktop.pressKey('ctrl+c');
    await expect.poll(clipboard, { timeout: 5000 }).toBe(text);
  }, 60_000);
});

describe('typing into a Qt app', () => {
  it('featherpad (Qt 5) takes doubled letters and non-ASCII at the default speed', async () => {
    const dir = await tempDir('mime-typing-qt-');
    const file = join(dir, 'qt.txt');
    await writeFile(file, '');
    const window = await start('featherpad', [file], 'qt.txt');
    expect(await focusedToolkit()).toBe('qt');
    expect(await focusedAnswersPing()).toBe(true);
    await desktop.click({ x: window.x + window.width / 2, y: window.y + window.height / 2 });
    const text = 'Eeeek! A bookkeeper, 1.0777 mm. Grüße, É ß € — 中文 😀 Zürich: 50% & y=z';
    await desktop.typeText(text);
    await desktop.pressKey('ctrl+s');
    await expect
      .poll(async () => (await readFile(file, 'utf8')).replace(/\n$/, ''), { timeout: 5000 })
      .toBe(text);
    await desktop.pressKey('ctrl+q');
    // FeatherPad is one instance a session, like Mousepad.
    await window.app;
  }, 60_000);

  it('featherpad takes characters typed through spare keys when it handles them late', async () => {
    const dir = await tempDir('mime-typing-qt-');
    const file = join(dir, 'late.txt');
    await writeFile(file, '');
    const window = await start('featherpad', [file], 'late.txt');
    await desktop.click({ x: window.x + window.width / 2, y: window.y + window.height / 2 });
    // Qt reads the keymap from the server when it handles the change: stopped while mime binds the
    // spare keys, types and unbinds them, it would read the keymap unbound and lose every character.
    const text = 'Grüße, É ß € — 中文 😀 Zürich';
    const resumed = stall(window.app, 1500);
    await desktop.typeText(text);
    await resumed;
    await desktop.pressKey('ctrl+s');
    await expect
      .poll(async () => (await readFile(file, 'utf8')).replace(/\n$/, ''), { timeout: 5000 })
      .toBe(text);
    await desktop.pressKey('ctrl+q');
  }, 60_000);
});
