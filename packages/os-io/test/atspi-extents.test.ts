import { describe, expect, it } from 'vitest';
import type { AtspiCalls } from '../src/atspi-calls.ts';
import { AtspiExtents } from '../src/atspi-extents.ts';

/** An app's answers to the Application properties, given by `answer` at each read. */
function app(answer: (property: string) => Promise<unknown>): { calls: AtspiCalls; reads: string[] } {
  const reads: string[] = [];
  const calls = {
    prop: (_ref: unknown, _iface: string, property: string) => {
      reads.push(property);
      return answer(property);
    },
  };
  // Only its properties are read to tell how an app counts its extents.
  return { calls: calls as unknown as AtspiCalls, reads };
}

const gtk4 = async (property: string) => (property === 'ToolkitName' ? 'GTK' : '4.8.3');

describe('whether an app counts its extents from its windows', () => {
  it('is told by the toolkit: GTK 4 does, and is asked once', async () => {
    const { calls, reads } = app(gtk4);
    const extents = new AtspiExtents(calls, {}, null);
    expect(await extents.windowRelative(':1.5')).toBe(true);
    expect(await extents.windowRelative(':1.5')).toBe(true);
    expect(reads).toEqual(['ToolkitName', 'Version']);
  });

  it('is asked again of an app that did not answer in time (a GTK 4 app busy starting)', async () => {
    let busy = true;
    const { calls } = app(async (property) => {
      if (busy) throw new Error('Get took over 1000 ms');
      return gtk4(property);
    });
    const extents = new AtspiExtents(calls, {}, null);
    expect(await extents.windowRelative(':1.5')).toBe(false);
    busy = false;
    expect(await extents.windowRelative(':1.5')).toBe(true);
  });
});
