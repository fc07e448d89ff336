/**
 * `prepack` of every published package: refuses to pack a package whose `dist/` is missing or older
 * than a source file (a tarball of `package.json` alone, or of stale code). Run in the package's folder.
 */
import { readdir, stat } from 'node:fs/promises';
import { join, relative } from 'node:path';

const dir = process.cwd();

/** Every file under `folder`, with its modification time. */
async function files(folder: string): Promise<Map<string, number>> {
  const found = new Map<string, number>();
  for (const entry of await readdir(folder, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) {
      const file = join(entry.parentPath, entry.name);
      found.set(relative(folder, file), (await stat(file)).mtimeMs);
    }
  }
  return found;
}

function refuse(reason: string): never {
  process.stderr.write(
    `error: ${relative(join(dir, '..', '..'), dir)}: ${reason}: run \`pnpm build\` at the repository root, then pack again\n`,
  );
  process.exit(1);
}

const sources = await files(join(dir, 'src'));
const built = await files(join(dir, 'dist')).catch(() => refuse('dist/ is missing'));
for (const [source, changed] of sources) {
  if (!source.endsWith('.ts')) continue;
  const js = source.replace(/\.ts$/, '.js');
  const time = built.get(js);
  if (time === undefined) refuse(`dist/${js} is missing`);
  if (time < changed) refuse(`dist/${js} is older than src/${source}`);
}
