/**
 * A package's import graph, read from its sources: every relative import (static, dynamic,
 * re-export) of every .ts file under a folder, and the cycles in it. For tests that keep a
 * package's layers and its files free of cycles.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, posix, sep } from 'node:path';

/** An import from one file to another, both as paths relative to the folder read. */
export interface ImportEdge {
  from: string;
  to: string;
}

/** Every relative import of every .ts file under `srcDir`. */
export function importEdges(srcDir: string): ImportEdge[] {
  const files = readdirSync(srcDir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts'))
    .map((f) => f.split(sep).join('/'));
  return files.flatMap((from) => {
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
