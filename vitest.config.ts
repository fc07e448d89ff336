import { defineConfig } from 'vitest/config';

/**
 * Test files run two at a time by default (vitest alone would run one on a two-core machine): an e2e
 * file spends most of its time waiting on its own Xvfb desktop, app and CLI processes, so two files
 * share two cores and the suite takes about half the time. `MIME_TEST_WORKERS` sets another count.
 */
const workers = Number.parseInt(process.env.MIME_TEST_WORKERS ?? '', 10);

export default defineConfig({
  test: {
    include: ['packages/*/test/**/*.test.ts', 'tests/**/*.test.ts'],
    pool: 'forks',
    maxWorkers: Number.isInteger(workers) && workers > 0 ? workers : 2,
    // A bound on a test that drives real apps and processes, not a wait: one that passes in 7 s on an
    // idle machine takes 15 s beside another file and more on a busy one.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    reporters: ['default', './tests/support/count-reporter.ts'],
    // Builds the bundled `mime` the tests start (tests/support/run-mime.ts: MIME_BIN).
    globalSetup: ['./tests/support/bundle-setup.ts'],
  },
});
