import { appendFileSync } from 'node:fs';
import type { Reporter, TestModule } from 'vitest/node';

/** Counts of one vitest run, as appended to the `MIME_TEST_COUNTS` file. */
export interface RunCounts {
  node: string;
  passed: number;
  failed: number;
  skipped: number;
  /** The failed tests, as `file > describe > name` (the file alone when it failed to load). */
  failures?: string[];
}

/** The closing line CI reads. */
export function countLine({ passed, failed, skipped }: Omit<RunCounts, 'node'>): string {
  return `${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`;
}

/** The lines naming a run's failed tests, so a CI log's tail says which ones failed. */
export function failureLines({ node, failures = [] }: Pick<RunCounts, 'node' | 'failures'>): string[] {
  return failures.map((name) => `failed on Node ${node}: ${name}`);
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
    const failures: string[] = [];
    for (const module of testModules) {
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') passed += 1;
        else if (state === 'failed') {
          failed += 1;
          failures.push(`${module.moduleId.replace(`${process.cwd()}/`, '')} > ${test.fullName}`);
        } else skipped += 1;
      }
      if (module.state() === 'failed' && module.children.size === 0) {
        failed += 1;
        failures.push(module.moduleId.replace(`${process.cwd()}/`, ''));
      }
    }
    const counts: RunCounts = { node: process.version, passed, failed, skipped, failures };
    const file = process.env.MIME_TEST_COUNTS;
    if (file) appendFileSync(file, `${JSON.stringify(counts)}\n`);
    const named = failureLines(counts);
    process.stdout.write(`\n${named.map((line) => `${line}\n`).join('')}${countLine(counts)}\n`);
  }
}
