import { configDefaults, defineConfig } from 'vitest/config';

/**
 * Test files run two at a time by default (vitest alone would run one on a two-core machine): an e2e
 * file spends most of its time waiting on its own Xvfb desktop, app and CLI processes, so two files
 * share two cores and the suite takes about half the time. `MIME_TEST_WORKERS` sets another count.
 */
const workers = Number.parseInt(process.env.MIME_TEST_WORKERS ?? '', 10);

const OS_IO_TESTS = 'packages/os-io/test/**/*.test.ts';

/**
 * Unit tests that get a process of their own: os-io's (native input, capture and hook modules bound
 * to the display they were loaded on, buses, desktops) and those that change what the whole process
 * shares: module mocks, spies, fake timers, environment variables (tests/test-isolation.test.ts
 * finds any other).
 */
export const ISOLATED_UNIT_TESTS = [
  OS_IO_TESTS,
  'packages/batch/test/row-job.test.ts',
  'packages/batch/test/run-batch.test.ts',
  'packages/mcp/test/replay-tool.test.ts',
  'packages/record/test/session-control.test.ts',
  'packages/replay/test/recorded-loop.test.ts',
  'packages/replay/test/recorded-ocr.test.ts',
  'packages/replay/test/screen-settle.test.ts',
  'packages/studio/test/run-manager.test.ts',
  'packages/studio/test/runs-live.test.ts',
];

const UNIT_TESTS = 'packages/*/test/**/*.test.ts';

export default defineConfig({
  test: {
    pool: 'forks',
    maxWorkers: Number.isInteger(workers) && workers > 0 ? workers : 2,
    // A bound on a test that drives real apps and processes, not a wait: one that passes in 7 s on an
    // idle machine takes 15 s beside another file and more on a busy one.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    reporters: ['default', './tests/support/count-reporter.ts'],
    // Builds the bundled `mime` the tests start (tests/support/run-mime.ts: MIME_BIN).
    globalSetup: ['./tests/support/bundle-setup.ts'],
    projects: [
      {
        // The other unit tests share their worker processes: a file no longer pays for a process and
        // for loading the same modules again (the unit tests' import time 107 -> 14 s on one worker).
        extends: true,
        test: {
          name: 'unit',
          include: [UNIT_TESTS],
          exclude: [...configDefaults.exclude, ...ISOLATED_UNIT_TESTS],
          isolate: false,
        },
      },
      {
        extends: true,
        test: { name: 'isolated', include: [...ISOLATED_UNIT_TESTS, 'tests/**/*.test.ts'] },
      },
    ],
  },
});
