/**
 * The typing pace policy on its own: the toolkit's pauses for the window typed into, the caller's
 * pauses winning whatever the toolkit, and the help text made from the table.
 */
import { describe, expect, it } from 'vitest';
import { describeToolkitTyping, TOOLKIT_TYPING, TypingPacing } from '../src/input-pacing.ts';

/** A window with the traits of a toolkit (no process to look at). */
const windowOf = (id: number, traits: { gtk?: boolean; role?: string | null }) => ({
  id,
  traits: { gtk: false, role: null, pid: null, machine: null, ...traits },
});

describe('TypingPacing', () => {
  it("gives each window its toolkit's typing pauses, and an unknown or missing window the slowest", async () => {
    const pacing = new TypingPacing();
    expect(await pacing.forWindow(windowOf(1, { role: 'browser' }))).toEqual(TOOLKIT_TYPING.chromium);
    expect(await pacing.forWindow(windowOf(3, { gtk: true }))).toEqual(TOOLKIT_TYPING.gtk);
    expect(await pacing.forWindow(null)).toEqual(TOOLKIT_TYPING.unknown);
    expect(TOOLKIT_TYPING.unknown.keyDelayMs).toBeGreaterThan(TOOLKIT_TYPING.chromium.keyDelayMs);
  });

  it('lets the pauses the caller set win over the toolkit', async () => {
    const pacing = new TypingPacing({ keyDelayMs: 33, afterActionMs: 5 });
    expect(await pacing.forWindow(windowOf(2, { role: 'browser' }))).toEqual({
      ...TOOLKIT_TYPING.chromium,
      keyDelayMs: 33,
    });
    expect(await pacing.forWindow(null)).toEqual({ ...TOOLKIT_TYPING.unknown, keyDelayMs: 33 });
  });

  it('says the default key pause by toolkit from the table', () => {
    expect(describeToolkitTyping()).toBe('10 ms for GTK and unknown apps, 0 for Qt and Chromium');
  });
});
