/** The repository's own test files, as paths from its root: for the tests that check them all. */
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';

const ROOT = join(import.meta.dirname, '..', '..');

/** The TypeScript files under `dir` (from the repository root), node_modules left out. */
export function typeScriptFilesUnder(dir: string): string[] {
  return (readdirSync(join(ROOT, dir), { recursive: true, encoding: 'utf8' }) as string[])
    .filter((f) => f.endsWith('.ts') && !f.split('/').includes('node_modules'))
    .map((f) => relative(ROOT, join(ROOT, dir, f)));
}

/** Every package's test folder's TypeScript files: its tests and their helpers. */
export function packageTestFiles(): string[] {
  return readdirSync(join(ROOT, 'packages')).flatMap((name) => {
    try {
      return typeScriptFilesUnder(join('packages', name, 'test'));
    } catch {
      return []; // a package without tests
    }
  });
}
