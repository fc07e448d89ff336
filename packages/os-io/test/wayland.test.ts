import { chmod, readFile, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { parseKeyChord } from '@mime-desktop/schema';
import { tempDir } from '@mime-desktop/test-support/e2e-rig';
import { waitUntil } from '@mime-desktop/test-support/wait';
import { afterEach, describe, expect, it } from 'vitest';
import { decodePpm } from '../src/grim-capture.ts';
import { chooseAdapter, compositorOf, probeDisplay } from '../src/index.ts';
import { swayChord } from '../src/sway-hotkey.ts';
import { appIdNames, flattenWindows } from '../src/sway-ipc.ts';
import { textArgs } from '../src/wayland-input.ts';
import { windowMatches } from '../src/windows.ts';
import { chordArgs, keepKeyboard } from '../src/wtype-keyboard.ts';

describe('the adapter a session gets', () => {
  it('is wlroots for a sway (or other wlroots) Wayland session, gnome for GNOME on Wayland, else x11', () => {
    expect(chooseAdapter({ WAYLAND_DISPLAY: 'wayland-1', SWAYSOCK: '/run/sway.sock' })).toBe('wlroots');
    expect(chooseAdapter({ WAYLAND_DISPLAY: 'wayland-1', XDG_CURRENT_DESKTOP: 'Hyprland' })).toBe('wlroots');
    expect(
      chooseAdapter({ WAYLAND_DISPLAY: 'wayland-0', XDG_CURRENT_DESKTOP: 'ubuntu:GNOME', DISPLAY: ':0' }),
    ).toBe('gnome');
    expect(chooseAdapter({ XDG_CURRENT_DESKTOP: 'GNOME', DISPLAY: ':0' })).toBe('x11');
    expect(chooseAdapter({ WAYLAND_DISPLAY: 'wayland-0', XDG_CURRENT_DESKTOP: 'KDE', DISPLAY: ':0' })).toBe(
      'x11',
    );
    expect(
      chooseAdapter({ WAYLAND_DISPLAY: 'wayland-0', XDG_CURRENT_DESKTOP: 'GNOME', MIME_DESKTOP: 'x11' }),
    ).toBe('x11');
    expect(chooseAdapter({ DISPLAY: ':0', MIME_DESKTOP: 'gnome' })).toBe('gnome');
    expect(chooseAdapter({ DISPLAY: ':0', SWAYSOCK: '/run/sway.sock' })).toBe('x11');
    expect(chooseAdapter({ WAYLAND_DISPLAY: 'wayland-1', SWAYSOCK: '/s', MIME_DESKTOP: 'x11' })).toBe('x11');
    expect(compositorOf({ WAYLAND_DISPLAY: 'wayland-0', XDG_CURRENT_DESKTOP: 'ubuntu:GNOME' })).toBe(
      'ubuntu',
    );
    expect(compositorOf({ DISPLAY: ':0', XDG_CURRENT_DESKTOP: 'XFCE' })).toBeNull();
  });
});

describe('probing a wlroots session', () => {
  let server: Server | undefined;
  afterEach(async () => {
    await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
    server = undefined;
  });

  it('reaches the compositor socket under XDG_RUNTIME_DIR, and says where it looked when it cannot', async () => {
    const dir = await tempDir('mime-wl-probe-');
    const env = { WAYLAND_DISPLAY: 'wayland-7', XDG_RUNTIME_DIR: dir, SWAYSOCK: join(dir, 'sway.sock') };
    const missing = await probeDisplay({ env, platform: 'linux' });
    expect(missing).toMatchObject({
      sessionType: 'wayland',
      adapter: 'wlroots',
      compositor: 'sway',
      reachable: false,
    });
    expect(missing.problem).toContain(`at ${join(dir, 'wayland-7')} (ENOENT)`);

    const listening = createServer();
    server = listening;
    await new Promise<void>((resolve) => listening.listen(join(dir, 'wayland-7'), resolve));
    const facts = await probeDisplay({ env, platform: 'linux' });
    expect(facts).toMatchObject({ adapter: 'wlroots', reachable: true, endpoint: join(dir, 'wayland-7') });
    expect(facts.limitations.join(' ')).toContain('cannot record here');
  });
});

describe('grim frames', () => {
  it('decodes binary PPM (comments in the header) into opaque RGBA', () => {
    const header = Buffer.from('P6\n# grim\n2 1\n255\n', 'ascii');
    const { width, height, rgba } = decodePpm(Buffer.concat([header, Buffer.from([1, 2, 3, 250, 251, 252])]));
    expect({ width, height }).toEqual({ width: 2, height: 1 });
    expect([...rgba]).toEqual([1, 2, 3, 255, 250, 251, 252, 255]);
  });

  it('refuses a cut-short or non-PPM image, saying what it got', () => {
    expect(() => decodePpm(Buffer.from('P6\n2 2\n255\n\x01\x02\x03', 'latin1'))).toThrow(
      /cut short \(3 of 12 bytes\)/,
    );
    expect(() => decodePpm(Buffer.from('\x89PNG\r\n', 'latin1'))).toThrow(/no 8-bit binary PPM/);
  });
});

describe('keys on wlroots', () => {
  it('presses chords through wtype with the modifiers held around the key', () => {
    expect(chordArgs(parseKeyChord('ctrl+a'))).toEqual(['-M', 'ctrl', '-k', 'a', '-m', 'ctrl']);
    expect(chordArgs(parseKeyChord('ctrl+@'))).toEqual(['-M', 'ctrl', '@', '-m', 'ctrl']);
    expect(chordArgs(parseKeyChord('enter'))).toEqual(['-k', 'Return']);
    expect(chordArgs(parseKeyChord('ctrl+shift+pagedown'))).toEqual([
      '-M',
      'ctrl',
      '-M',
      'shift',
      '-k',
      'Next',
      '-m',
      'shift',
      '-m',
      'ctrl',
    ]);
    expect(chordArgs(parseKeyChord('meta+-'))).toEqual(['-M', 'logo', '-k', 'minus', '-m', 'logo']);
  });

  it('types newlines and tabs as keys and keeps a leading dash as text', () => {
    expect(textArgs('a\nb\tc', 0)).toEqual(['a', '-k', 'Return', 'b', '-k', 'Tab', 'c']);
    expect(textArgs('--x', 12)).toEqual(['-d', '12', '-k', 'minus', '-k', 'minus', 'x']);
    expect(textArgs('日本 é', 0)).toEqual(['日本 é']);
  });

  it("keeps a keyboard on the seat with an idle `wtype -` that ends when released, or with mime's input", async () => {
    const dir = await tempDir('mime-kept-keyboard-');
    const log = join(dir, 'log');
    // A wtype that says when it starts, with what, and when its input closes.
    await writeFile(
      join(dir, 'wtype'),
      `#!/bin/sh\necho "start $*" >> "${log}"\ncat > /dev/null\necho end >> "${log}"\n`,
    );
    await chmod(join(dir, 'wtype'), 0o755);
    const kept = await keepKeyboard({ ...process.env, PATH: `${dir}:${process.env.PATH}` });
    if (!kept) throw new Error('the stand-in wtype did not start');
    await waitUntil(async () => (await readFile(log, 'utf8').catch(() => '')) === 'start -\n', {
      what: 'the kept wtype reading its input',
    });
    await kept.release();
    expect(await readFile(log, 'utf8')).toBe('start -\nend\n');
    // No wtype installed: nothing kept, nothing thrown (the first typing says what is missing).
    expect(await keepKeyboard({ ...process.env, PATH: `${dir}-none` })).toBeNull();
  });

  it('binds hotkeys in sway syntax', () => {
    expect(swayChord(parseKeyChord('ctrl+alt+shift+escape'))).toBe('Ctrl+Mod1+Shift+Escape');
    expect(swayChord(parseKeyChord('meta+f5'))).toBe('Mod4+F5');
  });
});

describe('windows from the sway tree', () => {
  it('lists tiled and floating views with their content box, app id or X11 class, and pid', () => {
    const tree = {
      id: 1,
      type: 'root',
      rect: { x: 0, y: 0, width: 1280, height: 800 },
      nodes: [
        {
          id: 2,
          type: 'workspace',
          rect: { x: 0, y: 0, width: 1280, height: 800 },
          nodes: [
            {
              id: 5,
              type: 'con',
              name: 'mime-demo',
              app_id: 'chromium',
              pid: 42,
              focused: true,
              shell: 'xdg_shell',
              rect: { x: 0, y: 0, width: 1280, height: 800 },
              window_rect: { x: 0, y: 0, width: 1280, height: 800 },
            },
          ],
          floating_nodes: [
            {
              id: 7,
              type: 'floating_con',
              name: 'Calculator',
              app_id: null,
              pid: 43,
              shell: 'xwayland',
              window_properties: { class: 'Galculator', instance: 'galculator' },
              rect: { x: 300, y: 200, width: 400, height: 330 },
              window_rect: { x: 2, y: 28, width: 396, height: 300 },
            },
          ],
        },
      ],
    };
    expect(flattenWindows(tree)).toEqual([
      {
        id: 5,
        title: 'mime-demo',
        appId: 'chromium',
        classes: ['chromium'],
        pid: 42,
        rect: { x: 0, y: 0, width: 1280, height: 800 },
        focused: true,
        visible: true,
        shell: 'xdg_shell',
      },
      {
        id: 7,
        title: 'Calculator',
        appId: null,
        classes: ['galculator', 'Galculator'],
        pid: 43,
        rect: { x: 302, y: 228, width: 396, height: 300 },
        focused: false,
        visible: true,
        shell: 'xwayland',
      },
    ]);
  });
});

describe('a workflow recorded under X11 finding its app on Wayland', () => {
  const window = (title: string, classes: string[], native: boolean) => ({ id: '1', title, classes, native });

  it('names a native window by its app id and, for a reverse-DNS one, its last part', () => {
    expect(appIdNames('org.xfce.mousepad')).toEqual(['org.xfce.mousepad', 'mousepad']);
    expect(appIdNames('featherpad')).toEqual(['featherpad']);
  });

  it("matches a recorded X11 class against a native app id without case, an X11 window's with it", () => {
    const mousepad = window('note.txt - Mousepad', appIdNames('org.xfce.mousepad'), true);
    expect(windowMatches({ class: '^Mousepad$' }, mousepad)).toBe(true);
    expect(windowMatches({ class: '^FeatherPad$' }, window('fp', ['featherpad'], true))).toBe(true);
    expect(windowMatches({ class: '^Mousepad$', title: 'note' }, mousepad)).toBe(true);
    expect(windowMatches({ class: '^Mousepad$', title: '^Other' }, mousepad)).toBe(false);
    expect(windowMatches({ class: '^Gedit$' }, mousepad)).toBe(false);
    // XWayland windows keep their WM_CLASS: matched as on X11, with case.
    expect(windowMatches({ class: '^Galculator$' }, window('c', ['galculator', 'Galculator'], false))).toBe(
      true,
    );
    expect(windowMatches({ class: '^GALCULATOR$' }, window('c', ['galculator', 'Galculator'], false))).toBe(
      false,
    );
  });
});
