/**
 * The replay package's layers: every relative and package import of src must be one src/DEPS.list
 * allows, so the kernel (journal parts, plan cursor, budgets, events, run folder) never imports the
 * agent, the recorded-step executor or heal, runs nothing of a package but the schema (the devices'
 * types aside), and no two parts import each other.
 */

import { readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tempDir } from '@mime-desktop/test-support/e2e-rig';
import {
  findCycles,
  type ImportEdge,
  importEdges,
  type PackageImport,
  packageImports,
  packageImportsOf,
} from '@mime-desktop/test-support/import-graph';
import { describe, expect, it } from 'vitest';

const SRC = join(dirname(fileURLToPath(import.meta.url)), '..', 'src');

/** The sections of a DEPS.list: part -> the parts it may import (`*`: any). */
function parseDepsList(text: string): Map<string, Set<string>> {
  const rules = new Map<string, Set<string>>();
  let current: Set<string> | null = null;
  for (const raw of text.split('\n')) {
    const line = raw.replace(/#.*/, '').trim();
    if (line === '') continue;
    const section = /^\[(.+)\]$/.exec(line);
    if (section) {
      current = new Set();
      rules.set(section[1] as string, current);
    } else if (current) current.add(line);
    else throw new Error(`DEPS.list: "${line}" is outside a [section]`);
  }
  return rules;
}

/** The part of src a file belongs to: its top folder, or the file itself at the top. */
const partOf = (file: string) => file.split('/')[0] as string;

/** The imports a DEPS.list does not allow, as `from -> to`. */
function violations(rules: Map<string, Set<string>>, edges: ImportEdge[]): string[] {
  return edges
    .filter(({ from, to }) => {
      const [a, b] = [partOf(from), partOf(to)];
      const allowed = rules.get(a);
      return a !== b && !(allowed?.has('*') || allowed?.has(b));
    })
    .map(({ from, to }) => `${from} -> ${to}`);
}

/** Whether a DEPS.list entry allows package `name` (`node:*`: any name that starts `node:`). */
const allows = (entry: string, name: string) =>
  entry === name || (entry.endsWith('*') && name.startsWith(entry.slice(0, -1)));

/** The package imports a DEPS.list does not allow, as `from -> name` (`type name`: a type-only one). */
function packageViolations(rules: Map<string, Set<string>>, imports: PackageImport[]): string[] {
  return imports
    .filter(({ from, name, typeOnly }) => {
      const allowed = [...(rules.get(partOf(from)) ?? [])];
      if (allowed.includes('*') || allowed.some((entry) => allows(entry, name))) return false;
      return !(
        typeOnly && allowed.some((entry) => entry.startsWith('type ') && allows(entry.slice(5), name))
      );
    })
    .map(({ from, name, typeOnly }) => `${from} -> ${typeOnly ? 'type ' : ''}${name}`);
}

/** The parts of src a section lists (its packages left out). */
const partsIn = (entries: Set<string> | undefined, parts: Set<string>) =>
  new Set([...(entries ?? [])].filter((entry) => parts.has(entry)));

const rules = parseDepsList(readFileSync(join(SRC, 'DEPS.list'), 'utf8'));

describe('the import graph of @mime-desktop/replay', () => {
  it('has a DEPS.list section for every part of src', () => {
    const parts = new Set(importEdges(SRC).map((e) => partOf(e.from)));
    expect([...parts].filter((p) => !rules.has(p))).toEqual([]);
  });

  it('imports only what DEPS.list allows: the kernel imports no agent, recorded or heal', () => {
    const edges = importEdges(SRC);
    expect(edges.length).toBeGreaterThan(100);
    expect(violations(rules, edges)).toEqual([]);
    const parts = new Set(rules.keys());
    expect(partsIn(rules.get('kernel'), parts)).toEqual(new Set(['errors.ts']));
  });

  it('imports only the packages DEPS.list allows: the kernel runs nothing of a package but the schema', () => {
    const imports = packageImports(SRC);
    expect(imports.length).toBeGreaterThan(50);
    expect(packageViolations(rules, imports)).toEqual([]);
    const kernel = [...(rules.get('kernel') ?? [])].filter((e) => e.startsWith('@'));
    expect(kernel).toEqual(['@mime-desktop/schema']);
  });

  it('names a kernel file that imports a package but the schema, as a fixture folder shows', async () => {
    const fixture = await tempDir('mime-deps-');
    await mkdir(join(fixture, 'kernel'));
    await writeFile(
      join(fixture, 'kernel', 'frames.ts'),
      [
        "import { encodePng } from '@mime-desktop/os-io';",
        "import type { RawFrame } from '@mime-desktop/os-io';",
        "import { RUN_FILES } from '@mime-desktop/schema';",
        "export { writeReport } from '@mime-desktop/report';",
        "const model = () => import('@mime-desktop/model');",
        "import type { Html } from '@mime-desktop/report/html';",
        '',
      ].join('\n'),
    );
    expect(packageViolations(rules, packageImports(fixture))).toEqual([
      'kernel/frames.ts -> @mime-desktop/os-io',
      'kernel/frames.ts -> @mime-desktop/report',
      'kernel/frames.ts -> type @mime-desktop/report',
      'kernel/frames.ts -> @mime-desktop/model',
    ]);
    // The same imports from run/ are allowed.
    const fromRun = packageImportsOf('run/frames.ts', "import { encodePng } from '@mime-desktop/os-io';\n");
    expect(packageViolations(rules, fromRun)).toEqual([]);
  });

  it('has no cycle between its files', () => {
    expect(findCycles(importEdges(SRC))).toEqual([]);
  });

  it('has no cycle between parts', () => {
    const allowed = [...rules].filter(([, to]) => !to.has('*'));
    for (const [a, to] of allowed)
      for (const b of to) expect(rules.get(b)?.has(a) ?? false, `${a} <-> ${b}`).toBe(false);
  });

  it('names an import the list forbids', () => {
    const edges = [
      { from: 'kernel/plan-cursor.ts', to: 'agent/agent-executor.ts' },
      { from: 'agent/agent-executor.ts', to: 'kernel/plan-cursor.ts' },
      { from: 'recorded/step-executor.ts', to: 'agent/prompt.ts' },
    ];
    expect(violations(rules, edges)).toEqual([
      'kernel/plan-cursor.ts -> agent/agent-executor.ts',
      'recorded/step-executor.ts -> agent/prompt.ts',
    ]);
  });
});
