/**
 * Test helpers on the accessibility tree of a harness display: where an element is now, so a test
 * can click it as a person would without hard-coding where a toolkit laid it out.
 */
import { ACCESSIBLE_CHROMIUM_FLAG, accessibleAppEnv, openAccessibility } from '@mime-desktop/os-io';
import type { AccessibleElement } from '@mime-desktop/schema';
import { sleep } from './wait.ts';

export { ACCESSIBLE_CHROMIUM_FLAG, accessibleAppEnv };

/** What identifies an element in a test: the rest of an {@link AccessibleElement} is left open. */
export type ElementQuery = Pick<AccessibleElement, 'role' | 'app'> & Partial<AccessibleElement>;

/** The centre of the one element matching `query` on the display of `env`, waited for (default 10 s). */
export async function elementCentre(
  env: NodeJS.ProcessEnv,
  query: ElementQuery,
  timeoutMs = 10_000,
): Promise<{ x: number; y: number }> {
  const opened = await openAccessibility(env);
  if (!opened.ok) throw new Error(opened.reason);
  const identity: AccessibleElement = {
    name: '',
    label: null,
    window: { role: '', name: '' },
    path: [],
    states: [],
    extents: null,
    ...query,
  };
  try {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = await opened.accessibility.find(identity);
      const box = found.length === 1 ? found[0]?.extents : null;
      if (box && box.width > 0) {
        return { x: Math.round(box.x + box.width / 2), y: Math.round(box.y + box.height / 2) };
      }
      if (Date.now() > deadline)
        throw new Error(`no element ${JSON.stringify(query)} within ${timeoutMs} ms`);
      await sleep(100);
    }
  } finally {
    await opened.accessibility.close();
  }
}

/**
 * Polls the element with the keyboard focus on the display of `env` until `matches` holds for it;
 * resolves it. The error names `what` and the last element focused, so a lost key reads as such.
 */
export async function waitForFocused(
  env: NodeJS.ProcessEnv,
  matches: (element: AccessibleElement) => boolean,
  { what, timeoutMs = 10_000 }: { what: string; timeoutMs?: number },
): Promise<AccessibleElement> {
  const opened = await openAccessibility(env);
  if (!opened.ok) throw new Error(opened.reason);
  try {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const element = await opened.accessibility.focused();
      if (element && matches(element)) return element;
      if (Date.now() > deadline) {
        const seen = element && {
          role: element.role,
          name: element.name,
          window: element.window,
          text: element.text,
        };
        throw new Error(`${what} did not happen within ${timeoutMs} ms (focused: ${JSON.stringify(seen)})`);
      }
      await sleep(100);
    }
  } finally {
    await opened.accessibility.close();
  }
}
