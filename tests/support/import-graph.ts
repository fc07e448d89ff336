/**
 * A package's import graph, read from its sources: every relative import (static, dynamic,
 * re-export) of every .ts file under a folder, and the cycles in it; and every import of a package
 * (npm, workspace or `node:`), type-only or not. For tests that keep a package's layers, the packages
 * each layer may use, and its files free of cycles.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, posix, sep } from 'node:path';

/** An import from one file to another, both as paths relative to the folder read. */
export interface ImportEdge {
  from: string;
  to: string;
}

/** The .ts files under `srcDir`, as paths relative to it. */
function sourceFiles(srcDir: string): string[] {
  return readdirSync(srcDir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts'))
    .map((f) => f.split(sep).join('/'));
}

/** An import of a package from a file (relative to the folder read). */
export interface PackageImport {
  from: string;
  /** The package: `@scope/name`, `name`, or `node:name` (a subpath import names its package). */
  name: string;
  /** `import type` / `export type`: erased, nothing of the package runs. */
  typeOnly: boolean;
}

/** The package a bare import specifier names: `@mime-desktop/model/usage` -> `@mime-desktop/model`. */
export function packageOf(specifier: string): string {
  if (specifier.startsWith('node:')) return specifier.split('/')[0] as string;
  const parts = specifier.split('/');
  return (specifier.startsWith('@') ? parts.slice(0, 2) : parts.slice(0, 1)).join('/');
}

/** Every package import (static, dynamic, re-export, side effect) of a source text. */
export function packageImportsOf(from: string, text: string): PackageImport[] {
  const statics = [
    ...text.matchAll(/^(?:import|export)(\s+type\b)?(?:[^;'"=()]*?\bfrom\s*|\s+)'([^'./][^']*)'/gm),
  ].map((m) => ({ from, name: packageOf(m[2] as string), typeOnly: m[1] !== undefined }));
  const dynamics = [...text.matchAll(/\bimport\(\s*'([^'./][^']*)'\s*\)/g)].map((m) => ({
    from,
    name: packageOf(m[1] as string),
    typeOnly: false,
  }));
  return [...statics, ...dynamics];
}

/** Every package import of every .ts file under `srcDir`. */
export function packageImports(srcDir: string): PackageImport[] {
  return sourceFiles(srcDir).flatMap((from) =>
    packageImportsOf(from, readFileSync(join(srcDir, from), 'utf8')),
  );
}

/** Every relative import of every .ts file under `srcDir`. */
export function importEdges(srcDir: string): ImportEdge[] {
  return sourceFiles(srcDir).flatMap((from) => {
    const text = readFileSync(join(srcDir, from), 'utf8');
    return [...text.matchAll(/(?:\bfrom|\bimport)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)].map((m) => ({
      from,
      to: posix.normalize(posix.join(posix.dirname(from), m[1] as string)),
    }));
  });
}

/** The cycles of a graph, each as its nodes from its smallest one, e.g. `a.ts -> b.ts -> a.ts`. */
export function findCycles(edges: readonly ImportEdge[]): string[] {
  const next = new Map<string, Set<string>>();
  for (const { from, to } of edges) next.set(from, (next.get(from) ?? new Set()).add(to));
  const cycles = new Set<string>();
  const visit = (path: string[]): void => {
    const node = path.at(-1) as string;
    for (const to of next.get(node) ?? []) {
      const at = path.indexOf(to);
      if (at >= 0) {
        const loop = path.slice(at);
        const start = loop.indexOf([...loop].sort()[0] as string);
        const ordered = [...loop.slice(start), ...loop.slice(0, start)];
        cycles.add([...ordered, ordered[0]].join(' -> '));
      } else visit([...path, to]);
    }
  };
  for (const node of next.keys()) visit([node]);
  return [...cycles].sort();
}
