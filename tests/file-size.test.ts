/**
 * No source, test, script or support file over 500 lines (STYLE.md: one job a file): a file that
 * grows past the limit fails here, naming it and its length, and is to be split along its seams.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..');
const MAX_LINES = 500;
/** Folders whose code is checked; node_modules and build output (the tests' CLI bundle too) are not the project's code. */
const CHECKED = ['packages', 'tests', 'scripts'];
const SKIPPED = new Set(['node_modules', 'dist', 'coverage', '.bundle']);
const CODE = /\.(ts|tsx|mts|cts|js|mjs|cjs)$/;

/** A file's length as `wc -l` counts it: its newlines, plus a last line without one. */
function lineCount(text: string): number {
  if (text === '') return 0;
  const newlines = text.split('\n').length - 1;
  return text.endsWith('\n') ? newlines : newlines + 1;
}

/** The files of `files` (path and text) longer than `limit` lines, as `path: n lines`. */
function overLimit(files: ReadonlyArray<{ path: string; text: string }>, limit: number): string[] {
  return files
    .map(({ path, text }) => ({ path, lines: lineCount(text) }))
    .filter(({ lines }) => lines > limit)
    .map(({ path, lines }) => `${path}: ${lines} lines`);
}

/** The code files under `dir` (a path from the repository root), skipping dependencies and builds. */
function codeFilesUnder(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return SKIPPED.has(entry.name) ? [] : codeFilesUnder(path);
    return entry.isFile() && CODE.test(entry.name) ? [path] : [];
  });
}

describe('file size', () => {
  it(`holds every file of ${CHECKED.join(', ')} to ${MAX_LINES} lines`, () => {
    const files = CHECKED.flatMap(codeFilesUnder);
    expect(files.length).toBeGreaterThan(100);
    const read = files.map((path) => ({ path, text: readFileSync(join(ROOT, path), 'utf8') }));
    expect(overLimit(read, MAX_LINES)).toEqual([]);
  });

  it('names a file one line over the limit, and lets one at the limit pass', () => {
    const lines = (n: number) => 'x\n'.repeat(n);
    const files = [
      { path: 'at-limit.ts', text: lines(MAX_LINES) },
      { path: 'over.ts', text: lines(MAX_LINES + 1) },
      { path: 'over-no-newline.ts', text: `${lines(MAX_LINES)}x` },
    ];
    expect(overLimit(files, MAX_LINES)).toEqual(['over.ts: 501 lines', 'over-no-newline.ts: 501 lines']);
  });
});
