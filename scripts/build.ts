/**
 * `pnpm build`: the JavaScript and `.d.ts` files each package publishes, in `packages/<name>/dist/`.
 * One tsc run compiles every package's `src/` (relative `.ts` imports rewritten to `.js`); the output
 * is then moved into each package, with the licence beside it. Development, tests and `pnpm mime` run
 * the sources directly and never need this.
 */
import { chmod, cp, readdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';

const root = join(import.meta.dirname, '..');
const staging = join(root, '.build');
await rm(staging, { recursive: true, force: true });
await execa('tsc', ['-p', 'tsconfig.build.json'], { cwd: root, preferLocal: true, stdio: 'inherit' });
const packages = await readdir(staging);
for (const name of packages) {
  const dir = join(root, 'packages', name);
  await rm(join(dir, 'dist'), { recursive: true, force: true });
  await rename(join(staging, name, 'src'), join(dir, 'dist'));
  await cp(join(root, 'LICENSE'), join(dir, 'LICENSE'));
}
await chmod(join(root, 'packages', 'cli', 'dist', 'main.js'), 0o755);
await rm(staging, { recursive: true, force: true });
process.stderr.write(`built ${packages.length} packages into packages/*/dist\n`);
