import { appendFileSync } from 'node:fs';
import type { Reporter, TestModule } from 'vitest/node';

/** Counts of one vitest run, as appended to the `MIME_TEST_COUNTS` file. */
export interface RunCounts {
  node: string;
  passed: number;
  failed: number;
  skipped: number;
}

/** The closing line CI reads. */
export function countLine({ passed, failed, skipped }: Omit<RunCounts, 'node'>): string {
  return `${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`;
}

/**
 * Prints the closing `N passed, N failed` line that CI reads. With `MIME_TEST_COUNTS` set to a
 * file, it also appends the run's counts to it as a JSON line, for a sum over runs on several Node
 * versions (scripts/test-nodes.ts prints that sum last).
 */
export default class CountReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    for (const module of testModules) {
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') passed += 1;
        else if (state === 'failed') failed += 1;
        else skipped += 1;
      }
      if (module.state() === 'failed' && module.children.size === 0) failed += 1;
    }
    const file = process.env.MIME_TEST_COUNTS;
    if (file) {
      const counts: RunCounts = { node: process.version, passed, failed, skipped };
      appendFileSync(file, `${JSON.stringify(counts)}\n`);
    }
    process.stdout.write(`\n${countLine({ passed, failed, skipped })}\n`);
  }
}
