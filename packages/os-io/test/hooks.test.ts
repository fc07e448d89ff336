import { centerOf, DEMO_LAYOUT, type DesktopHarness } from '@mime-desktop/test-support/desktop-harness';
import { useDesktop } from '@mime-desktop/test-support/e2e-rig';
import { sleep } from '@mime-desktop/test-support/wait';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createDesktop,
  epochNow,
  type HookEvent,
  type HookKeyEvent,
  type HookSubscription,
  startHooks,
  typedChar,
} from '../src/index.ts';
import { buildKeycodeNames } from '../src/keymap.ts';

let harness: DesktopHarness;
let hooks: HookSubscription;
const events: HookEvent[] = [];

// The display stays until this process exits: Xlib in the native modules loaded here ends the
// process when its X server goes first.
const desktopHarness = useDesktop({ keepDisplayUntilExit: true });

beforeAll(async () => {
  harness = desktopHarness();
  process.env.DISPLAY = harness.display; // before the first hook call loads uiohook
  hooks = await startHooks((event) => events.push(event));
});

afterAll(async () => {
  await hooks?.stop();
});

/** Clears the log, runs `act`, then waits until `done` holds for the events seen since. */
async function capture(act: () => Promise<void>, done: (seen: HookEvent[]) => boolean): Promise<HookEvent[]> {
  events.length = 0;
  await act();
  const deadline = Date.now() + 3000;
  while (!done(events) && Date.now() < deadline) await sleep(20);
  return [...events];
}

const keyEvents = (seen: HookEvent[]) =>
  seen.filter((e): e is HookKeyEvent => e.type === 'keydown' || e.type === 'keyup');

describe('startHooks', () => {
  it('names mouse buttons and reports logical positions', async () => {
    const pad = centerOf(DEMO_LAYOUT.clickPad);
    const seen = await capture(
      async () => {
        await harness.click(pad.x, pad.y, { button: 1 });
        await harness.click(pad.x + 10, pad.y, { button: 3 });
        await harness.click(pad.x + 20, pad.y, { button: 2 });
      },
      (s) => s.filter((e) => e.type === 'mouseup').length >= 3,
    );
    const buttons = seen.filter((e) => e.type === 'mousedown' || e.type === 'mouseup');
    expect(buttons.map((e) => [e.type, 'button' in e && e.button, 'x' in e && e.x, 'y' in e && e.y])).toEqual(
      [
        ['mousedown', 'left', pad.x, pad.y],
        ['mouseup', 'left', pad.x, pad.y],
        ['mousedown', 'right', pad.x + 10, pad.y],
        ['mouseup', 'right', pad.x + 10, pad.y],
        ['mousedown', 'middle', pad.x + 20, pad.y],
        ['mouseup', 'middle', pad.x + 20, pad.y],
      ],
    );
    expect(seen.some((e) => e.type === 'mousemove' && e.x === pad.x + 10 && e.y === pad.y)).toBe(true);
  });

  it('gives epoch times on the epochNow clock, in order', async () => {
    const before = epochNow();
    const seen = await capture(
      () => harness.moveMouse(300, 300),
      (s) => s.some((e) => e.type === 'mousemove'),
    );
    const after = epochNow();
    const move = seen.find((e) => e.type === 'mousemove');
    expect(move?.time).toBeGreaterThanOrEqual(before - 5);
    expect(move?.time).toBeLessThanOrEqual(after);
  });

  it('reports wheel direction and amount', async () => {
    const list = centerOf(DEMO_LAYOUT.scrollList);
    const seen = await capture(
      async () => {
        for (const button of [4, 5, 6, 7]) await harness.click(list.x, list.y, { button });
      },
      (s) => s.filter((e) => e.type === 'wheel').length >= 4,
    );
    const wheels = seen.filter((e) => e.type === 'wheel');
    expect(wheels.map((e) => [e.direction, e.amount, e.x, e.y])).toEqual([
      ['up', 1, list.x, list.y],
      ['down', 1, list.x, list.y],
      ['left', 1, list.x, list.y],
      ['right', 1, list.x, list.y],
    ]);
  });

  it('names keys from keycodes, with the modifiers held', async () => {
    const echo = centerOf(DEMO_LAYOUT.echo);
    await harness.click(echo.x, echo.y);
    const seen = await capture(
      () =>
        harness.pressKeys('a', 'shift+1', 'ctrl+shift+k', 'Return', 'F2', 'Home', 'Up', 'BackSpace', 'space'),
      (s) => keyEvents(s).filter((e) => e.type === 'keyup' && e.key === 'space').length >= 1,
    );
    const downs = keyEvents(seen)
      .filter((e) => e.type === 'keydown')
      .map((e) => [e.key, ...e.modifiers].join(' '));
    expect(downs).toEqual([
      'a',
      'shift shift',
      '1 shift',
      'ctrl ctrl',
      'shift ctrl shift',
      'k ctrl shift',
      'enter',
      'f2',
      'home',
      'up',
      'backspace',
      'space',
    ]);
    const shifted = keyEvents(seen).find((e) => e.key === '1');
    expect(typedChar(shifted?.key ?? '', shifted?.modifiers.includes('shift') ?? false)).toBe('!');
  });

  it('reports keys mime has no name for with key null and their keycode', async () => {
    const seen = await capture(
      () => harness.pressKeys('Num_Lock', 'Num_Lock'),
      (s) => keyEvents(s).filter((e) => e.type === 'keyup').length >= 2,
    );
    const first = keyEvents(seen)[0];
    expect(first).toMatchObject({ type: 'keydown', key: null });
    expect(first?.keycode).toBeGreaterThan(0);
  });

  it("sees mime's own (synthetic) input like a person's", async () => {
    const desktop = await createDesktop({ failSafe: false });
    try {
      const pad = centerOf(DEMO_LAYOUT.clickPad);
      const seen = await capture(
        async () => {
          await desktop.click(pad, { button: 'right' });
          await desktop.click(centerOf(DEMO_LAYOUT.echo));
          await desktop.typeText('A!');
          await desktop.pressKey('meta+f3');
          await desktop.pressKey('ctrl+alt+end');
        },
        (s) => keyEvents(s).some((e) => e.type === 'keyup' && e.key === 'end'),
      );
      expect(seen.find((e) => e.type === 'mousedown')).toMatchObject({ button: 'right', x: pad.x, y: pad.y });
      const downs = keyEvents(seen)
        .filter((e) => e.type === 'keydown')
        .map((e) => [e.key, ...e.modifiers].join(' '));
      expect(downs).toEqual([
        'shift shift',
        'a shift',
        'shift shift',
        '1 shift',
        'meta meta',
        'f3 meta',
        'ctrl ctrl',
        'alt ctrl alt',
        'end ctrl alt',
      ]);
    } finally {
      await desktop.close();
    }
  });

  it('shares the one hook between subscriptions', async () => {
    const second: HookEvent[] = [];
    const extra = await startHooks((event) => second.push(event));
    await capture(
      () => harness.moveMouse(400, 410),
      () => second.some((e) => e.type === 'mousemove' && e.x === 400),
    );
    await extra.stop();
    await extra.stop(); // idempotent
    const seen = await capture(
      () => harness.moveMouse(420, 430),
      (s) => s.some((e) => e.type === 'mousemove' && e.x === 420),
    );
    expect(seen.some((e) => e.type === 'mousemove' && e.x === 420)).toBe(true); // the first still listens
    expect(second.some((e) => e.type === 'mousemove' && e.x === 420)).toBe(false);
  });

  it('refuses a Wayland session unless XWayland is accepted', async () => {
    process.env.WAYLAND_DISPLAY = 'wayland-test';
    try {
      await expect(startHooks(() => undefined)).rejects.toMatchObject({ code: 'MIME_UNSUPPORTED_PLATFORM' });
      const accepted = await startHooks(() => undefined, { allowXWayland: true });
      await accepted.stop();
    } finally {
      delete process.env.WAYLAND_DISPLAY;
    }
  });
});

describe('buildKeycodeNames', () => {
  it("names uiohook's keycodes in mime's vocabulary", async () => {
    const { UiohookKey } = await import('uiohook-napi'); // safe now: DISPLAY points at the harness
    const names = buildKeycodeNames(UiohookKey);
    const of = (member: keyof typeof UiohookKey) => names.get(UiohookKey[member]);
    expect([of('A'), of('Z'), of(0), of(9), of('F1'), of('F24')]).toEqual(['a', 'z', '0', '9', 'f1', 'f24']);
    expect([of('Enter'), of('NumpadEnter'), of('ArrowLeft'), of('PageDown'), of('Escape')]).toEqual([
      'enter',
      'enter',
      'left',
      'pagedown',
      'escape',
    ]);
    expect([of('Backquote'), of('BracketLeft'), of('Backslash'), of('Quote'), of('Numpad7')]).toEqual([
      '`',
      '[',
      '\\',
      "'",
      '7',
    ]);
    expect([of('Ctrl'), of('CtrlRight'), of('AltRight'), of('ShiftRight'), of('Meta')]).toEqual([
      'ctrl',
      'ctrl',
      'alt',
      'shift',
      'meta',
    ]);
    expect(of('NumLock')).toBeUndefined();
  });
});
