/**
 * The unit tests that share worker processes (vitest.config.ts's `unit` project) change nothing the
 * whole process shares: a file that mocks a module, spies, fakes timers, sets the environment or
 * listens on the process is in ISOLATED_UNIT_TESTS, which runs each file in a process of its own.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ISOLATED_UNIT_TESTS } from '../vitest.config.ts';
import { packageTestFiles } from './support/test-files.ts';

const ROOT = join(import.meta.dirname, '..');

/** Every package's unit test files. */
const unitTests = packageTestFiles().filter((f) => f.endsWith('.test.ts'));

/** A file's own process: a listed path, or under a listed folder's `**`. */
const isolated = (file: string) =>
  ISOLATED_UNIT_TESTS.some((entry) =>
    entry.endsWith('/**/*.test.ts')
      ? file.startsWith(entry.slice(0, -'**/*.test.ts'.length))
      : entry === file,
  );

/** What changes the state of the whole process, for every file after it in the same worker. */
const PROCESS_STATE =
  /\bvi\.(mock|doMock|stubEnv|stubGlobal|useFakeTimers|spyOn)\(|process\.env(\.\w+|\[[^\]]+\]) =(?!=)|delete process\.env|Object\.assign\(process\.env|process\.(chdir|on|once)\(/;

describe('the unit tests that share processes', () => {
  it('are told apart by a pattern that catches each way of changing the process', () => {
    for (const line of [
      "vi.mock('@mime-desktop/replay', () => ({}));",
      "vi.stubEnv('MIME_HOME', home);",
      'vi.useFakeTimers();',
      "const spy = vi.spyOn(ocr, 'readWords');",
      'process.env.DISPLAY = desktop.display;',
      "process.env['TMPDIR'] = dir;",
      'delete process.env.DISPLAY;',
      "process.on('exit', stop);",
    ])
      expect(PROCESS_STATE.test(line), line).toBe(true);
    expect(PROCESS_STATE.test("if (process.env.DISPLAY === ':1') return;")).toBe(false);
    expect(isolated('packages/os-io/test/input.test.ts')).toBe(true);
    expect(isolated('packages/replay/test/screen-settle.test.ts')).toBe(true);
    expect(isolated('packages/replay/test/plan.test.ts')).toBe(false);
  });

  it('change nothing the whole process shares', () => {
    expect(unitTests.length).toBeGreaterThan(100);
    const changing = unitTests.filter(
      (file) => !isolated(file) && PROCESS_STATE.test(readFileSync(join(ROOT, file), 'utf8')),
    );
    expect(changing, 'add these to ISOLATED_UNIT_TESTS in vitest.config.ts').toEqual([]);
  });

  it('list only files that exist', () => {
    const missing = ISOLATED_UNIT_TESTS.filter((entry) => !entry.includes('*') && !unitTests.includes(entry));
    expect(missing).toEqual([]);
  });
});
