import { describe, expect, it } from 'vitest';
import type { Accessibility, OpenedAccessibility } from '../src/accessibility.ts';
import { accessibilityOnce, RETRY_AFTER_MS } from '../src/accessibility-once.ts';

/** An adapter that answers with each of `answers` in turn, counting the asks; the clock is the test's. */
function adapter(answers: OpenedAccessibility[]) {
  let clock = 0;
  let asked = 0;
  const once = accessibilityOnce(
    async () => {
      asked += 1;
      const answer = answers.shift();
      if (!answer) throw new Error('asked once too often');
      return answer;
    },
    () => clock,
  );
  const wait = (ms: number) => {
    clock += ms;
  };
  return { once, asked: () => asked, wait };
}

const tree: Accessibility = {
  elementAt: async () => null,
  lineAt: async () => null,
  focused: async () => null,
  wake: async () => undefined,
  find: async () => [],
  apps: async () => [],
  close: async () => undefined,
};
const late: OpenedAccessibility = { ok: false, reason: 'the accessibility bus does not answer', retry: true };

describe('the desktop’s accessibility, opened once', () => {
  it('asks a bus that did not answer in time again at a later ask, once the retry time has passed', async () => {
    const { once, asked, wait } = adapter([late, { ok: true, accessibility: tree }]);
    expect(await once.get()).toBeNull();
    // Asked again at once: the failure stands, the bus is left alone.
    expect(await once.get()).toBeNull();
    expect(asked()).toBe(1);
    wait(RETRY_AFTER_MS);
    const [first, second] = await Promise.all([once.get(), once.get()]);
    expect(first).toBe(tree);
    expect(second).toBe(tree);
    expect(asked()).toBe(2);
    wait(RETRY_AFTER_MS);
    expect(await once.get()).toBe(tree);
    expect(asked()).toBe(2);
  });

  it('keeps a missing bus as missing', async () => {
    const missing = adapter([{ ok: false, reason: 'no D-Bus session bus' }]);
    expect(await missing.once.get()).toBeNull();
    missing.wait(10 * RETRY_AFTER_MS);
    expect(await missing.once.get()).toBeNull();
    expect(missing.asked()).toBe(1);
  });
});
