/**
 * The `mime` the tests start: one esbuild bundle of the CLI, so a start loads plain JavaScript instead
 * of every source file through tsx's hooks (`mime validate` 0.48 -> 0.19 s CPU). vitest builds it once
 * per run (tests/support/bundle-setup.ts, 0.3 s); `tsx scripts/bundle.ts <folder>` builds one by hand.
 *
 * - Code split (ESM chunks): the commands' dynamic imports stay lazy; one file would load everything.
 * - The workspace's sources (`@mime-desktop/*`) are bundled; every other package stays an import of
 *   the file it resolves to from the importing source, by absolute path: pnpm installs each package's
 *   dependencies beside that package only, so the bundle's folder would find none of them by name.
 * - A source's `import.meta.url` / `import.meta.dirname` stay its own (defined as the source file's
 *   URL and folder): assets (replay's probe image, studio's pages, mcp's workflow skill) and
 *   `createRequire` lookups (native modules, OpenCV, tesseract data, package.json) are found where they
 *   are in the checkout. The child processes mime forks are entries of the same bundle, and the file
 *   that starts each keeps its own `import.meta.url` (the chunk it is bundled in): it finds its child's
 *   built `.js` beside itself, as it does in the published `dist/`.
 */
import { readFile, rm } from 'node:fs/promises';
import { dirname, join, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, type Plugin, transform } from 'esbuild';

const root = join(import.meta.dirname, '..');
const packages = join(root, 'packages') + sep;

/** The processes mime forks: each child's entry and the file that starts it. */
const CHILDREN = [
  { entry: 'packages/vision/src/vision-child.ts', launcher: 'packages/vision/src/vision-process.ts' },
  { entry: 'packages/batch/src/row-worker.ts', launcher: 'packages/batch/src/row-job.ts' },
];
const launchers = new Set(CHILDREN.map((child) => join(root, child.launcher)));

/** The bundle's start file in `outdir`. */
export const bundleMain = (outdir: string): string => join(outdir, 'main.js');

/** A bare import that is not the workspace's: external, by the absolute path it resolves to. */
const externalPackages: Plugin = {
  name: 'external-packages',
  setup(on) {
    on.onResolve({ filter: /^[^./]/ }, async (args) => {
      if (args.path.startsWith('@mime-desktop/') || args.pluginData === 'resolving') return undefined;
      const found = await on.resolve(args.path, {
        resolveDir: args.resolveDir,
        kind: args.kind,
        importer: args.importer,
        pluginData: 'resolving',
      });
      if (found.errors.length > 0) return { errors: found.errors };
      return { path: found.path, external: true };
    });
  },
};

/**
 * A workspace source's `import.meta.url` and `import.meta.dirname`, as the source file's own: defined
 * on its syntax tree (esbuild's transform), so code that writes `import.meta.url` into a string (the
 * run script of an exported skill) keeps it.
 */
const sourceLocation: Plugin = {
  name: 'source-location',
  setup(on) {
    on.onLoad({ filter: /\.ts$/ }, async (args) => {
      if (!args.path.startsWith(packages) || launchers.has(args.path)) return undefined;
      const text = await readFile(args.path, 'utf8');
      if (!text.includes('import.meta')) return undefined;
      const { code } = await transform(text, {
        loader: 'ts',
        format: 'esm',
        sourcefile: args.path,
        sourcemap: 'inline',
        tsconfigRaw: { compilerOptions: { verbatimModuleSyntax: true } },
        define: {
          'import.meta.url': JSON.stringify(pathToFileURL(args.path).href),
          'import.meta.dirname': JSON.stringify(dirname(args.path)),
        },
      });
      return { loader: 'js', contents: code };
    });
  },
};

/** Builds the bundle into `outdir` (emptied first); resolves the path of its start file. */
export async function buildBundle(outdir: string): Promise<string> {
  await rm(outdir, { recursive: true, force: true });
  await build({
    absWorkingDir: root,
    entryPoints: ['packages/cli/src/main.ts', ...CHILDREN.map((child) => child.entry)],
    // Every entry and chunk in one folder: a launcher's `./<child>.js` is beside the chunk it is in.
    entryNames: '[name]',
    outdir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    sourcemap: 'linked',
    logLevel: 'warning',
    plugins: [externalPackages, sourceLocation],
  });
  return bundleMain(outdir);
}

if (process.argv[1] && resolve(process.argv[1]) === import.meta.filename) {
  const outdir = resolve(process.argv[2] ?? join(root, 'packages', 'cli', '.bundle', 'manual'));
  process.stderr.write(`built ${await buildBundle(outdir)}\n`);
}
