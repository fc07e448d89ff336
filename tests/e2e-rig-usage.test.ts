/**
 * Every test file, e2e (tests/e2e) and unit (packages/<name>/test, helpers included), takes its
 * desktop, temp folders and fixture copies from the one rig (tests/support/e2e-rig.ts), and waits
 * with the one helper (tests/support/wait.ts): none starts its own harness, makes a temp folder in
 * the system's temp directory itself (the rig removes its folders after the test or block), copies
 * a fixture folder by path, or writes a sleep of its own.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageTestFiles, typeScriptFilesUnder } from './support/test-files.ts';

const ROOT = join(import.meta.dirname, '..');

/** Files with a reason to do it themselves: full-disk mounts a tmpfs on its folder and unmounts it. */
const OWN_TEMP_FOLDER = new Set(['tests/e2e/full-disk.test.ts']);

const e2eFiles = typeScriptFilesUnder('tests/e2e').filter((f) => f.endsWith('.test.ts'));
const unitFiles = packageTestFiles();
const files = [...e2eFiles, ...unitFiles];
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');

const OWN_HARNESS = /\bstartDesktopHarness\b/;
const OWN_TEMP = /mkdtemp\(join\(tmpdir\(\)/;
const OWN_COPY =
  /await cp\(\s*(join\(REPO_ROOT, 'fixtures'|FIXTURE\b|PLAY_SONG\b|RECORDING\b|WORKFLOW\b|new URL\('(\.\.\/)+fixtures\/)/;
const OWN_SLEEP = /new Promise\(\(?\w*\)? => setTimeout\(|from 'node:timers\/promises'/;

describe('the test files', () => {
  it('are checked by patterns that catch the old ways', () => {
    expect(OWN_HARNESS.test('const desktop = await startDesktopHarness({});')).toBe(true);
    expect(OWN_TEMP.test("home = await mkdtemp(join(tmpdir(), 'mime-x-'));")).toBe(true);
    expect(OWN_COPY.test("await cp(join(REPO_ROOT, 'fixtures', 'workflows', 'x'), dir);")).toBe(true);
    expect(OWN_COPY.test('await cp(FIXTURE, dir, { recursive: true });')).toBe(true);
    expect(
      OWN_COPY.test("await cp(\n  new URL('../../../fixtures/compat/x.json', import.meta.url).pathname,"),
    ).toBe(true);
    expect(OWN_COPY.test('await cp(base, workflow, { recursive: true });')).toBe(false);
    expect(
      OWN_SLEEP.test('const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));'),
    ).toBe(true);
    expect(OWN_SLEEP.test('await new Promise((r) => setTimeout(r, 100));')).toBe(true);
    expect(OWN_SLEEP.test("import { setTimeout as delay } from 'node:timers/promises';")).toBe(true);
    expect(OWN_SLEEP.test('setTimeout(() => controller.abort(), 100);')).toBe(false);
  });

  it('are found: the e2e files and every package test folder', () => {
    expect(e2eFiles.length).toBeGreaterThan(20);
    expect(unitFiles.length).toBeGreaterThan(60);
    expect(new Set(unitFiles.map((f) => f.split('/')[1])).size).toBeGreaterThanOrEqual(10);
  });

  it('start no desktop harness of their own', () => {
    expect(files.filter((f) => OWN_HARNESS.test(read(f)))).toEqual([]);
  });

  it('make their temp folders through the rig', () => {
    expect(files.filter((f) => !OWN_TEMP_FOLDER.has(f) && OWN_TEMP.test(read(f)))).toEqual([]);
  });

  it('copy fixture workflows and recordings through the rig', () => {
    expect(files.filter((f) => OWN_COPY.test(read(f)))).toEqual([]);
  });

  it('wait with the one sleep helper, and its helpers too', () => {
    const support = typeScriptFilesUnder('tests/support').filter((f) => !f.endsWith('/wait.ts'));
    expect([...files, ...support].filter((f) => OWN_SLEEP.test(read(f)))).toEqual([]);
  });
});
