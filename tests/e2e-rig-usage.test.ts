/**
 * Every e2e file takes its desktop, temp folders and fixture copies from the one rig
 * (tests/support/e2e-rig.ts): none starts its own harness, makes a temp folder in the system's temp
 * directory itself (the rig removes its folders after the test or block), or copies a fixture
 * folder by path.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const E2E = join(import.meta.dirname, 'e2e');

/** Files with a reason to do it themselves: full-disk mounts a tmpfs on its folder and unmounts it. */
const OWN_TEMP_FOLDER = new Set(['full-disk.test.ts']);

const files = readdirSync(E2E).filter((f) => f.endsWith('.test.ts'));

const OWN_HARNESS = /\bstartDesktopHarness\b/;
const OWN_TEMP = /mkdtemp\(join\(tmpdir\(\)/;
const OWN_COPY = /await cp\(\s*(join\(REPO_ROOT, 'fixtures'|FIXTURE\b|PLAY_SONG\b|RECORDING\b|WORKFLOW\b)/;

describe('the e2e files', () => {
  it('are checked by patterns that catch the old ways', () => {
    expect(OWN_HARNESS.test('const desktop = await startDesktopHarness({});')).toBe(true);
    expect(OWN_TEMP.test("home = await mkdtemp(join(tmpdir(), 'mime-x-'));")).toBe(true);
    expect(OWN_COPY.test("await cp(join(REPO_ROOT, 'fixtures', 'workflows', 'x'), dir);")).toBe(true);
    expect(OWN_COPY.test('await cp(FIXTURE, dir, { recursive: true });')).toBe(true);
    expect(OWN_COPY.test('await cp(base, workflow, { recursive: true });')).toBe(false);
  });

  it('start no desktop harness of their own', () => {
    expect(files.filter((f) => OWN_HARNESS.test(readFileSync(join(E2E, f), 'utf8')))).toEqual([]);
  });

  it('make their temp folders through the rig', () => {
    const own = files.filter(
      (f) => !OWN_TEMP_FOLDER.has(f) && OWN_TEMP.test(readFileSync(join(E2E, f), 'utf8')),
    );
    expect(own).toEqual([]);
    expect(files.length).toBeGreaterThan(20);
  });

  it('copy fixture workflows and recordings through the rig', () => {
    const own = files.filter((f) => OWN_COPY.test(readFileSync(join(E2E, f), 'utf8')));
    expect(own).toEqual([]);
  });
});
