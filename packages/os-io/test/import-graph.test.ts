/**
 * os-io's files import each other without a cycle: shared unit types live in units.ts, the input
 * pacing policy apart from the raw adapters, the accessibility interface apart from its adapters.
 */
import { fileURLToPath } from 'node:url';
import { findCycles, importEdges } from '@mime-desktop/test-support/import-graph';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../src', import.meta.url));

describe('the import graph of @mime-desktop/os-io', () => {
  it('has no cycle', () => {
    const edges = importEdges(SRC);
    expect(edges.length).toBeGreaterThan(50);
    expect(findCycles(edges)).toEqual([]);
  });

  it('finds a cycle when there is one', () => {
    const edges = [
      { from: 'input.ts', to: 'fail-safe.ts' },
      { from: 'fail-safe.ts', to: 'hooks.ts' },
      { from: 'hooks.ts', to: 'input.ts' },
      { from: 'hooks.ts', to: 'units.ts' },
    ];
    expect(findCycles(edges)).toEqual(['fail-safe.ts -> hooks.ts -> input.ts -> fail-safe.ts']);
  });

  it('keeps the input layers apart: raw adapters import no pacing, pacing imports no adapter', () => {
    const edges = importEdges(SRC);
    const from = (file: string) => edges.filter((e) => e.from === file).map((e) => e.to);
    expect(from('raw-input.ts')).not.toContain('input-pacing.ts');
    expect(from('raw-input.ts')).not.toContain('input.ts');
    expect(from('input-pacing.ts').filter((f) => f !== 'x-toolkit.ts')).toEqual([]);
  });
});
