import { centerOf, DEMO_LAYOUT, type DesktopHarness } from '@mime-desktop/test-support/desktop-harness';
import { useDesktop } from '@mime-desktop/test-support/e2e-rig';
import { sleep, waitUntil } from '@mime-desktop/test-support/wait';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AbortedError, createDesktop, type Desktop, type DesktopOptions } from '../src/index.ts';

let harness: DesktopHarness;
const desktops: Desktop[] = [];

// The display stays until this process exits: Xlib in the native modules loaded here ends the
// process when its X server goes first.
const desktopHarness = useDesktop({ keepDisplayUntilExit: true });

beforeAll(async () => {
  harness = desktopHarness();
  process.env.DISPLAY = harness.display; // before the first desktop call loads nut-js
});

beforeEach(async () => {
  await harness.resetApp(); // also moves the pointer out of any corner
});

afterEach(async () => {
  await Promise.all(desktops.splice(0).map((desktop) => desktop.close()));
});

/** A fresh desktop per test: an abort is final for the desktop it hit. */
async function newDesktop(options?: DesktopOptions): Promise<Desktop> {
  const desktop = await createDesktop(options);
  desktops.push(desktop);
  return desktop;
}

/** Keys in the long text: at 10 ms a key, 10 s to type it all, so a cut one is told from a finished one. */
const LONG_TEXT = 1000;

/**
 * Starts typing a long text into the echo field; resolves once typing has visibly begun. 10 ms a
 * key: Chromium's own pace, no pause, would type it all before an abort arrives. How soon an abort
 * lands is measured by the fail-safe benchmark (bench/fail-safe.bench.ts), not here.
 */
async function startLongTyping(desktop: Desktop) {
  await desktop.click(centerOf(DEMO_LAYOUT.echo));
  const typing = desktop.typeText('z'.repeat(LONG_TEXT), { keyDelayMs: 10 });
  typing.catch(() => undefined);
  await harness.waitForAppState((s) => s.typed.length >= 5);
  return { typing };
}

/**
 * How much of the text reached the app: what was typed before an abort reaches it when it does
 * (later on a busy machine), so its count is read once two looks 250 ms apart agree.
 */
async function settledTyped(): Promise<number> {
  let seen = -1;
  return waitUntil(
    async () => {
      const now = (await harness.readAppState()).typed.length;
      const settled = now === seen ? now : false;
      seen = now;
      if (settled === false) await sleep(250);
      return settled;
    },
    { what: 'the typed text to settle', intervalMs: 0 },
  );
}

describe('fail-safe', () => {
  it('aborts typing when the pointer is slammed into a corner', async () => {
    const desktop = await newDesktop();
    const { typing } = await startLongTyping(desktop);
    await harness.moveMouse(0, 0);
    const error = await typing.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AbortedError);
    expect(error).toMatchObject({ code: 'MIME_ABORTED', reason: 'corner' });
    expect((error as Error).message).toContain('top-left corner');
    expect(desktop.signal.aborted).toBe(true);
    expect(desktop.signal.reason).toBe(error);
    const typed = await settledTyped();
    expect(typed).toBeGreaterThanOrEqual(5);
    expect(typed).toBeLessThan(LONG_TEXT);

    // Final: the next input rejects at once and nothing more arrives.
    await harness.moveMouse(640, 400);
    await expect(desktop.click(centerOf(DEMO_LAYOUT.clickPad))).rejects.toBe(error);
    await expect(desktop.typeText('more')).rejects.toBe(error);
    await sleep(200); // a window in which nothing may arrive
    expect((await harness.readAppState()).typed.length).toBe(typed);
    expect((await harness.readAppState()).padClicks).toBe(0);
  });

  it('aborts typing on the hotkey', async () => {
    const desktop = await newDesktop();
    expect(desktop.abortHotkey).toBe('ctrl+alt+shift+escape');
    const { typing } = await startLongTyping(desktop);
    await harness.pressKeys('ctrl+alt+shift+Escape');
    const error = await typing.catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'MIME_ABORTED', reason: 'hotkey' });
    expect(await settledTyped()).toBeLessThan(LONG_TEXT);
  });

  it('fires between operations too: the next input rejects', async () => {
    const desktop = await newDesktop();
    await desktop.movePointer({ x: 600, y: 400 }); // arms the fail-safe
    await harness.moveMouse(1279, 799);
    await harness.moveMouse(640, 400); // back out before the next call
    await expect(desktop.pressKey('enter')).rejects.toMatchObject({ code: 'MIME_ABORTED', reason: 'corner' });
  });

  it('does not fire for corners mime moves to itself', async () => {
    const desktop = await newDesktop();
    await desktop.click({ x: 0, y: 799 }); // its own click in the bottom-left corner
    await desktop.movePointer({ x: 1279, y: 0 });
    await desktop.click(centerOf(DEMO_LAYOUT.clickPad));
    await harness.waitForAppState((s) => s.padClicks === 1);
    expect(desktop.signal.aborted).toBe(false);
  });

  it('catches a pointer already resting in a corner at the first input', async () => {
    const desktop = await newDesktop({ failSafe: { hotkey: null } });
    await harness.moveMouse(1279, 0);
    await expect(desktop.click(centerOf(DEMO_LAYOUT.clickPad))).rejects.toMatchObject({ reason: 'corner' });
    expect((await harness.readAppState()).padClicks).toBe(0);
  });

  it("aborts on the caller's signal", async () => {
    const controller = new AbortController();
    const desktop = await newDesktop({ signal: controller.signal });
    const { typing } = await startLongTyping(desktop);
    controller.abort(new Error('user pressed stop'));
    await expect(typing).rejects.toMatchObject({ code: 'MIME_ABORTED', reason: 'signal' });
    expect(desktop.signal.reason.message).toContain('user pressed stop');
  });

  it('can be turned off', async () => {
    const desktop = await newDesktop({ failSafe: false });
    expect(desktop.abortHotkey).toBeNull();
    await harness.moveMouse(0, 0);
    await desktop.typeText('a'); // the pointer sits in a corner: no abort without a fail-safe
    expect(desktop.signal.aborted).toBe(false);
  });
});
