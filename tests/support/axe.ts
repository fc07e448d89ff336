/// <reference lib="dom" />
/**
 * axe-core in a page of a real browser, injected from the npm package (no network): its source is
 * evaluated through the DevTools protocol, which a page's Content-Security-Policy does not govern, so
 * the studio's strict policy and a report's script hash stay as they are.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { Frame, Page } from 'playwright-core';

const require = createRequire(import.meta.url);
let source: Promise<string> | undefined;

/** What axe reports of one rule, as the page computed it. */
interface AxeResult {
  violations: { id: string; impact: string | null; help: string; nodes: { target: unknown[] }[] }[];
}
type AxeWindow = Window & { axe?: { run(context: Document, options: object): Promise<AxeResult> } };

/**
 * The axe-core violations of `target` (a page or one of its frames), each as a line naming the rule,
 * its impact, what it asks and the elements that break it; empty when it has none.
 */
export async function axeViolations(target: Page | Frame): Promise<string[]> {
  source ??= readFile(require.resolve('axe-core/axe.min.js'), 'utf8');
  if (!(await target.evaluate(() => 'axe' in window))) await target.evaluate(await source);
  const result = await target.evaluate(() => {
    const { axe } = window as AxeWindow;
    if (!axe) throw new Error('axe-core did not load into the page');
    return axe.run(document, { resultTypes: ['violations'] });
  });
  return result.violations.map(
    (v) => `${v.id} (${v.impact}): ${v.help}: ${v.nodes.map((n) => JSON.stringify(n.target)).join(', ')}`,
  );
}
