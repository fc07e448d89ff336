import { parseKeyChord } from '@mime-desktop/schema';
import { describe, expect, it } from 'vitest';
import { windowsOfApps } from '../src/atspi-windows.ts';
import { findWindows, probeDisplay } from '../src/index.ts';
import { charKeysym, chordKeysyms, mutterKeyboard } from '../src/mutter-keyboard.ts';
import { firstMonitor } from '../src/mutter-remote-desktop.ts';
import { FrameCutter, pipelineArgs } from '../src/pipewire-frames.ts';
import { windowMatches } from '../src/windows.ts';

describe('keys on GNOME (mutter keysyms)', () => {
  it('maps characters to keysyms: Latin-1 by code, the rest as Unicode keysyms, newline and tab as keys', () => {
    expect(['a', 'Z', '~', 'é', '€', '\n', '\t'].map(charKeysym)).toEqual([
      0x61, 0x5a, 0x7e, 0xe9, 0x0100_20ac, 0xff0d, 0xff09,
    ]);
  });

  it('presses modifiers first and the key last, for named keys, letters and symbols', () => {
    expect(chordKeysyms(parseKeyChord('ctrl+s'))).toEqual([0xffe3, 0x73]);
    expect(chordKeysyms(parseKeyChord('ctrl+shift+t'))).toEqual([0xffe3, 0xffe1, 0x74]);
    expect(chordKeysyms(parseKeyChord('alt+f4'))).toEqual([0xffe9, 0xffc1]);
    expect(chordKeysyms(parseKeyChord('enter'))).toEqual([0xff0d]);
    expect(chordKeysyms(parseKeyChord('backspace'))).toEqual([0xff08]);
    expect(chordKeysyms(parseKeyChord('pagedown'))).toEqual([0xff56]);
    expect(chordKeysyms(parseKeyChord('meta+-'))).toEqual([0xffeb, 0x2d]);
  });

  it('releases a chord in reverse and types text key by key, pausing between keys only', async () => {
    const sent: string[] = [];
    const pauses: number[] = [];
    const keyboard = mutterKeyboard(
      { keysym: async (keysym, down) => void sent.push(`${keysym.toString(16)}${down ? 'v' : '^'}`) },
      async (ms) => void pauses.push(ms),
    );
    await keyboard.pressChord(parseKeyChord('ctrl+a'));
    expect(sent.splice(0)).toEqual(['ffe3v', '61v', '61^', 'ffe3^']);
    await keyboard.typeText('Hi\n', 7);
    expect(sent).toEqual(['48v', '48^', '69v', '69^', 'ff0dv', 'ff0d^']);
    expect(pauses).toEqual([7, 7]);
  });

  it("sends a key's release right behind its press, not once mutter answered the press (the app repeats a held key)", async () => {
    const sent: string[] = [];
    const answers: Array<() => void> = [];
    const keyboard = mutterKeyboard(
      {
        keysym: (keysym, down) => {
          sent.push(`${keysym.toString(16)}${down ? 'v' : '^'}`);
          return new Promise<void>((answer) => answers.push(answer));
        },
      },
      async () => undefined,
    );
    // Nothing answered yet: the key and the chord are already pressed and released, in order.
    const typing = keyboard.typeText('i', 0);
    expect(sent.splice(0)).toEqual(['69v', '69^']);
    for (const answer of answers.splice(0)) answer();
    await typing;
    const chord = keyboard.pressChord(parseKeyChord('ctrl+shift+t'));
    expect(sent).toEqual(['ffe3v', 'ffe1v', '74v', '74^', 'ffe1^', 'ffe3^']);
    for (const answer of answers.splice(0)) answer();
    await chord;
  });
});

describe('frames from a PipeWire stream', () => {
  it('cuts the byte stream into whole frames across chunk borders and keeps the last one', () => {
    const cutter = new FrameCutter(4);
    expect(cutter.push(Buffer.from([1, 2, 3]))).toBe(false);
    expect(cutter.latest).toBeNull();
    expect(cutter.push(Buffer.from([4, 5, 6, 7, 8, 9, 10, 11, 12, 13]))).toBe(true);
    expect(cutter.count).toBe(3);
    expect([...(cutter.latest ?? [])]).toEqual([9, 10, 11, 12]);
    const kept = cutter.latest;
    cutter.push(Buffer.from([14, 15, 16]));
    expect([...(kept ?? [])]).toEqual([9, 10, 11, 12]);
  });

  it('asks GStreamer for opaque RGBA of the monitor size on stdout', () => {
    const args = pipelineArgs(36, { width: 1280, height: 800 });
    expect(args.slice(0, 3)).toEqual(['-q', 'pipewiresrc', 'path=36']);
    expect(args).toContain('video/x-raw,format=RGBA,width=1280,height=800');
    expect(args.slice(-3)).toEqual(['fdsink', 'fd=1', 'sync=false']);
  });
});

describe("mutter's display state", () => {
  const mode = (id: string, width: number, height: number, current: boolean) => [
    id,
    width,
    height,
    60,
    1,
    [1],
    current ? { 'is-current': { value: true } } : {},
  ];
  it('finds the primary monitor and its current mode', () => {
    const state = [
      1,
      [
        [
          ['Meta-0', 'MetaProducts Inc.', 'MetaMonitor', '0x000000'],
          [mode('a', 800, 600, false), mode('b', 1280, 800, true)],
          {},
        ],
        [['Meta-1', 'MetaProducts Inc.', 'MetaMonitor', '0x000001'], [mode('c', 1920, 1080, true)], {}],
      ],
      [
        [0, 0, 1, 0, false, [['Meta-0', '', '', '']], {}],
        [1280, 0, 2, 0, true, [['Meta-1', '', '', '']], {}],
      ],
      {},
    ];
    expect(firstMonitor(state)).toEqual({ connector: 'Meta-1', width: 1920, height: 1080, scale: 2 });
    expect(firstMonitor([1, [], [], {}])).toBeNull();
  });
});

describe('probing a GNOME Wayland session', () => {
  it('uses the gnome adapter and names what mutter does not tell', async () => {
    const facts = await probeDisplay({
      env: {
        WAYLAND_DISPLAY: 'wayland-9',
        XDG_RUNTIME_DIR: '/nonexistent',
        XDG_CURRENT_DESKTOP: 'ubuntu:GNOME',
      },
      platform: 'linux',
    });
    expect(facts).toMatchObject({
      sessionType: 'wayland',
      adapter: 'gnome',
      compositor: 'ubuntu',
      reachable: false,
    });
    expect(facts.problem).toContain('/nonexistent/wayland-9 (ENOENT)');
  });
});

describe("a setup's window on GNOME, from the accessibility trees", () => {
  const top = (title: string, role = 'frame', states = ['visible', 'showing']) => ({
    id: `:1.${title}/org/a11y/atspi/accessible/1`,
    role,
    title,
    states,
  });
  const apps = [
    { name: 'zenity', pid: 41, topLevels: [top('Address', 'dialog')] },
    {
      name: 'org.xfce.mousepad',
      pid: 42,
      topLevels: [top('note.txt - Mousepad'), top('hidden', 'frame', [])],
    },
    { name: 'FeatherPad', pid: null, topLevels: [top('Untitled', 'frame'), top('menu', 'menu')] },
  ];

  it("lists the frames and dialogs on screen with their title, the app's name as class and its pid", () => {
    expect(windowsOfApps(apps).map(({ title, classes, pid }) => ({ title, classes, pid }))).toEqual([
      { title: 'Address', classes: ['zenity'], pid: 41 },
      { title: 'note.txt - Mousepad', classes: ['org.xfce.mousepad', 'mousepad'], pid: 42 },
      { title: 'Untitled', classes: ['FeatherPad'], pid: null },
    ]);
  });

  it('matches the X11 rules: title pattern and class, the class without case as for a native window', () => {
    const [zenity, mousepad, featherpad] = windowsOfApps(apps);
    if (!zenity || !mousepad || !featherpad) throw new Error('three windows expected');
    expect(windowMatches({ title: '^Address$', class: 'zenity' }, zenity)).toBe(true);
    expect(windowMatches({ title: '^Address$', class: '^Zenity$' }, zenity)).toBe(true);
    expect(windowMatches({ title: '^Other$', class: 'zenity' }, zenity)).toBe(false);
    expect(windowMatches({ class: '^Mousepad$' }, mousepad)).toBe(true);
    expect(windowMatches({ class: '^featherpad$' }, featherpad)).toBe(true);
    expect(windowMatches({ class: '^Gedit$' }, mousepad)).toBe(false);
  });

  it('says what is missing when the session has no bus to ask', async () => {
    await expect(
      findWindows({ title: '^Address$' }, { WAYLAND_DISPLAY: 'wayland-9', XDG_CURRENT_DESKTOP: 'GNOME' }),
    ).rejects.toMatchObject({
      code: 'MIME_UNSUPPORTED_PLATFORM',
      message: expect.stringMatching(/accessibility trees.*DBUS_SESSION_BUS_ADDRESS is not set/),
    });
  });
});
