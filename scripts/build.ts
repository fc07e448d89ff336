/**
 * `pnpm build`: the JavaScript and `.d.ts` files each package publishes, in `packages/<name>/dist/`,
 * with source and declaration maps to the package's `src/` (published beside it). One tsc run
 * compiles every package's `src/` (relative `.ts` imports rewritten to `.js`); the output is then
 * moved into each package, its maps pointed at the sources from there, with the licence beside it.
 * Development, tests and `pnpm mime` run the sources directly and never need this.
 */
import { chmod, cp, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { execa } from 'execa';

/** Rewrites the `sources` of every map moved from `from` to `to` so they point at the same files. */
async function relocateMaps(from: string, to: string): Promise<void> {
  for (const entry of await readdir(to, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.map')) continue;
    const file = join(entry.parentPath, entry.name);
    const map = JSON.parse(await readFile(file, 'utf8')) as { sources: string[] };
    const before = dirname(join(from, relative(to, file)));
    map.sources = map.sources.map((source) => relative(dirname(file), resolve(before, source)));
    await writeFile(file, JSON.stringify(map));
  }
}

const root = join(import.meta.dirname, '..');
const staging = join(root, '.build');
await rm(staging, { recursive: true, force: true });
await execa('tsc', ['-p', 'tsconfig.build.json'], { cwd: root, preferLocal: true, stdio: 'inherit' });
const packages = await readdir(staging);
for (const name of packages) {
  const dir = join(root, 'packages', name);
  await rm(join(dir, 'dist'), { recursive: true, force: true });
  await rename(join(staging, name, 'src'), join(dir, 'dist'));
  await relocateMaps(join(staging, name, 'src'), join(dir, 'dist'));
  await cp(join(root, 'LICENSE'), join(dir, 'LICENSE'));
}
await chmod(join(root, 'packages', 'cli', 'dist', 'main.js'), 0o755);
await rm(staging, { recursive: true, force: true });
process.stderr.write(`built ${packages.length} packages into packages/*/dist\n`);
