/**
 * The replay package's layers: every relative import of src must be one src/DEPS.list allows, so the
 * kernel (journal parts, plan cursor, budgets, events, run folder) never imports the agent, the
 * recorded-step executor or heal, and no two parts import each other.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findCycles, type ImportEdge, importEdges } from '@mime-desktop/test-support/import-graph';
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
    expect(rules.get('kernel')).toEqual(new Set(['errors.ts']));
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
