/**
 * `pnpm bench`: runs every `packages/<name>/bench/*.bench.ts` one after the other, each in its own
 * process (native modules keep their first X connection for the life of a process), and prints
 * their medians. Optionally only the packages or the benches named on the command line: `pnpm bench
 * reflect` runs every bench of that package, `pnpm bench mcp-memory` the one `mcp-memory.bench.ts`.
 */
import { spawnSync } from 'node:child_process';
import { readdir } from 'node:fs/promises';
import { cpus } from 'node:os';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');
const only = process.argv.slice(2);
const packages = await readdir(join(root, 'packages'));
/** Whether `file` of package `name` is to run. */
const chosen = (name: string, file: string) =>
  only.length === 0 || only.includes(name) || only.includes(file.replace(/\.bench\.ts$/, ''));
process.stdout.write(
  `machine: ${cpus().length} x ${cpus()[0]?.model ?? 'unknown CPU'}, Node ${process.versions.node}\n\n`,
);
let failed = 0;
for (const name of packages.sort()) {
  const dir = join(root, 'packages', name, 'bench');
  const files = await readdir(dir).catch(() => [] as string[]);
  for (const file of files.filter((f) => f.endsWith('.bench.ts') && chosen(name, f)).sort()) {
    const result = spawnSync(process.execPath, ['--import', 'tsx', join(dir, file)], {
      cwd: root,
      stdio: 'inherit',
    });
    if (result.status !== 0) failed += 1;
    process.stdout.write('\n');
  }
}
process.exitCode = failed > 0 ? 1 : 0;
