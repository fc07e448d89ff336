import { centerOf, DEMO_LAYOUT, type DesktopHarness } from '@mime-desktop/test-support/desktop-harness';
import { useDesktop } from '@mime-desktop/test-support/e2e-rig';
import { sleep } from '@mime-desktop/test-support/wait';
import { execa } from 'execa';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createDesktop, type Desktop } from '../src/index.ts';
import { XKeyboard } from '../src/x-keyboard.ts';
import { toolkitOf } from '../src/x-toolkit.ts';

let harness: DesktopHarness;
let desktop: Desktop;

// The display stays until this process exits: Xlib in the native modules loaded here ends the
// process when its X server goes first.
const desktopHarness = useDesktop({ keepDisplayUntilExit: true });

beforeAll(async () => {
  harness = desktopHarness();
  process.env.DISPLAY = harness.display; // before the first desktop call loads nut-js
  desktop = await createDesktop();
});

afterAll(async () => {
  await desktop?.close();
});

beforeEach(async () => {
  await harness.resetApp();
});

const setClipboard = async (text: string) => {
  // xclip forks a child that owns the selection until another program takes it.
  await execa('xclip', ['-i', '-selection', 'clipboard'], {
    env: harness.env,
    input: text,
    stdout: 'ignore',
    stderr: 'ignore',
  });
  await expect.poll(readClipboard).toBe(text);
};
const readClipboard = async () =>
  (await execa('xclip', ['-o', '-selection', 'clipboard'], { env: harness.env, reject: false })).stdout;

const spareKeycodes = async () => {
  const keyboard = await XKeyboard.open(harness.display);
  try {
    return keyboard.keymap.spareKeycodes();
  } finally {
    await keyboard.close();
  }
};

const PRINTABLE_ASCII = Array.from({ length: 0x7e - 0x20 + 1 }, (_, i) => String.fromCharCode(0x20 + i)).join(
  '',
);

describe('typeText', () => {
  it('types every printable ASCII character exactly', async () => {
    await desktop.click(centerOf(DEMO_LAYOUT.echo));
    await desktop.typeText(PRINTABLE_ASCII);
    const state = await harness.waitForAppState((s) => s.typed.length >= PRINTABLE_ASCII.length);
    expect(state.typed).toBe(PRINTABLE_ASCII);
  });

  it('types non-ASCII by key (É ß € 中文, emoji) mixed with ASCII and newlines, leaving the clipboard alone', async () => {
    const text = 'Grüße, É ß € à ñ — 中文 日本語 😀 ok\nline 2';
    await setClipboard('the user’s clipboard');
    const spareBefore = await spareKeycodes();
    await desktop.click(centerOf(DEMO_LAYOUT.echo));
    await desktop.typeText(text);
    const state = await harness.waitForAppState((s) => s.typed.endsWith('line 2'));
    expect(state.typed).toBe(text);
    expect(await readClipboard()).toBe('the user’s clipboard');
    // The spare keys bound for the typing are free again.
    expect(await spareKeycodes()).toEqual(spareBefore);
  });

  it('tells Chromium by its window with no window manager (keys follow the pointer) and types into it without pauses', async () => {
    const keyboard = await XKeyboard.open(harness.display);
    try {
      await desktop.movePointer(centerOf(DEMO_LAYOUT.echo));
      const window = await keyboard.focusedWindow();
      expect(window?.traits).toMatchObject({ gtk: false, role: 'browser' });
      expect(await toolkitOf(window?.traits as NonNullable<typeof window>['traits'])).toBe('chromium');
    } finally {
      await keyboard.close();
    }
    // Doubled letters and digits at 0 ms a key with no pause between repeats, then an Enter at once.
    const text = 'Eeeek! A bookkeeper, 1.0777 mm; aa bb 112233 zz';
    await desktop.click(centerOf(DEMO_LAYOUT.echo));
    await desktop.typeText(text);
    expect((await harness.waitForAppState((s) => s.typed.length >= text.length)).typed).toBe(text);
  });

  it('refuses control characters before typing anything', async () => {
    await desktop.click(centerOf(DEMO_LAYOUT.echo));
    await expect(desktop.typeText('ab\u0007c')).rejects.toMatchObject({ code: 'MIME_BAD_INPUT' });
    expect((await harness.readAppState()).typed).toBe('');
  });
});

describe('pressKey', () => {
  it('ctrl+a then backspace clears a field', async () => {
    await desktop.click(centerOf(DEMO_LAYOUT.echo));
    await desktop.typeText('some text');
    await harness.waitForAppState((s) => s.typed === 'some text');
    await desktop.pressKey('ctrl+a');
    await desktop.pressKey('backspace');
    expect((await harness.waitForAppState((s) => s.typed === '')).key).toBe('backspace');
  });

  it('enter submits the search; home and end move the caret', async () => {
    await desktop.click(centerOf(DEMO_LAYOUT.search));
    await desktop.typeText('umb');
    await desktop.pressKey('home');
    await desktop.typeText('N');
    await desktop.pressKey('end');
    await desktop.pressKey('enter');
    const state = await harness.waitForAppState((s) => s.action.startsWith('search:'));
    expect(state).toMatchObject({ action: 'search:Numb', results: ['Numb'], key: 'enter' });
  });

  it('presses arrows, F-keys, shifted keys and modifier chords', async () => {
    await desktop.click(centerOf(DEMO_LAYOUT.echo));
    await desktop.typeText('abc');
    await desktop.pressKey('left');
    await desktop.pressKey('left');
    await desktop.pressKey('ctrl+!'); // `!` needs Shift: pressed as ctrl+shift+1
    expect((await harness.waitForAppState((s) => s.key === 'ctrl+!')).typed).toBe('abc');
    await desktop.pressKey('shift+right');
    await desktop.typeText('X');
    expect((await harness.waitForAppState((s) => s.typed !== 'abc')).typed).toBe('aXc');
    for (const chord of ['f2', 'ctrl+alt+x', 'up', 'escape']) {
      await desktop.pressKey(chord);
      await harness.waitForAppState((s) => s.key === chord, 2000);
    }
  });

  it('refuses unknown keys and the fail-safe hotkey', async () => {
    await expect(desktop.pressKey('ctrl+nosuchkey')).rejects.toMatchObject({ code: 'MIME_BAD_KEY' });
    await expect(desktop.pressKey(desktop.abortHotkey ?? '')).rejects.toMatchObject({
      code: 'MIME_BAD_INPUT',
    });
  });
});

describe('click', () => {
  it('plays a song: search, then click its Play button', async () => {
    await desktop.click(centerOf(DEMO_LAYOUT.search));
    await desktop.typeText('faint');
    await desktop.click(centerOf(DEMO_LAYOUT.searchButton));
    await harness.waitForAppState((s) => s.results.length === 1);
    await desktop.click(centerOf(DEMO_LAYOUT.result(0)));
    expect((await harness.waitForAppState((s) => s.selected !== '')).selected).toBe('Faint');
    await desktop.click(centerOf(DEMO_LAYOUT.playButton(0)));
    expect((await harness.waitForAppState((s) => s.playing !== '')).playing).toBe('Faint');
  });

  it('clicks with the left, right and middle buttons, and double-clicks', async () => {
    const pad = centerOf(DEMO_LAYOUT.clickPad);
    await desktop.click(pad, { button: 'right' });
    await harness.waitForAppState((s) => s.pad === 'right' && s.padClicks === 1);
    await desktop.click(pad, { button: 'middle' });
    await harness.waitForAppState((s) => s.pad === 'middle' && s.padClicks === 2);
    await desktop.click(pad);
    await harness.waitForAppState((s) => s.pad === 'left' && s.padClicks === 3);
    await sleep(600); // not a double click with the previous one
    await desktop.click(pad, { clicks: 2 });
    await harness.waitForAppState((s) => s.pad === 'double' && s.padClicks === 5);
  });

  it('moves the pointer where asked and refuses points off the screen', async () => {
    await desktop.movePointer({ x: 321, y: 234 });
    expect(await desktop.pointerPosition()).toEqual({ x: 321, y: 234 });
    expect(await harness.xdotool('getmouselocation', '--shell')).toMatch(/^X=321\nY=234\n/);
    await expect(desktop.click({ x: 1280, y: 10 })).rejects.toMatchObject({ code: 'MIME_BAD_INPUT' });
    await expect(desktop.click({ x: 10, y: Number.NaN })).rejects.toMatchObject({ code: 'MIME_BAD_INPUT' });
  });
});

describe('drag', () => {
  it('drags the item onto the drop zone', async () => {
    await desktop.drag(centerOf(DEMO_LAYOUT.dragItem), centerOf(DEMO_LAYOUT.dropZone));
    expect((await harness.waitForAppState((s) => s.drop !== 'none' && s.drop !== 'dragging')).drop).toBe(
      'ok',
    );
  });

  it('a drag that ends elsewhere misses', async () => {
    await desktop.drag(centerOf(DEMO_LAYOUT.dragItem), { x: 900, y: 700 });
    expect((await harness.waitForAppState((s) => s.drop !== 'none' && s.drop !== 'dragging')).drop).toBe(
      'missed',
    );
  });
});

describe('scroll', () => {
  it('scrolls down, up, right and left by wheel notches', async () => {
    const list = { at: centerOf(DEMO_LAYOUT.scrollList) };
    // Chromium applies wheel events a frame or two later: wait for the offset to settle.
    const settled = async (predicate: (scroll: number) => boolean) => {
      let scroll = (await harness.waitForAppState((s) => predicate(s.scroll))).scroll;
      for (;;) {
        await sleep(250);
        const again = (await harness.readAppState()).scroll;
        if (again === scroll) return scroll;
        scroll = again;
      }
    };
    await desktop.scroll('down', 1, list);
    const notch = await settled((scroll) => scroll > 0);
    await desktop.scroll('down', 3, list);
    expect(await settled((scroll) => scroll > notch)).toBe(4 * notch);
    await desktop.scroll('up', 4, list);
    await harness.waitForAppState((s) => s.scroll === 0);
    await desktop.scroll('right', 2, list);
    await harness.waitForAppState((s) => s.scrollX > 0);
    await desktop.scroll('left', 2, list);
    await harness.waitForAppState((s) => s.scrollX === 0);
    await expect(desktop.scroll('down', 0)).rejects.toMatchObject({ code: 'MIME_BAD_INPUT' });
  });
});
