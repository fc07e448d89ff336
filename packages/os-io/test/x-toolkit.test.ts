import { hostname } from 'node:os';
import { describe, expect, it } from 'vitest';
import { toolkitOf, type WindowTraits } from '../src/x-toolkit.ts';

const traits = (over: Partial<WindowTraits>): WindowTraits => ({
  gtk: false,
  role: null,
  pid: null,
  machine: null,
  ...over,
});
/** `/proc/<pid>/maps` lines as Linux writes them. */
const QT_MAPS =
  '7f2a1c000000-7f2a1c2a0000 r--p 00000000 08:01 1311 /usr/lib/x86_64-linux-gnu/libQt5Gui.so.5.15.8\n';
const GTK_MAPS =
  '7f2a1c000000-7f2a1c2a0000 r--p 00000000 08:01 1312 /usr/lib/x86_64-linux-gnu/libgtk-3.so.0.2406.32\n';

describe('toolkitOf', () => {
  it('takes a window with a GTK theme variant for GTK, even a GTK dialog in a browser process', async () => {
    expect(await toolkitOf(traits({ gtk: true, role: 'GtkFileChooserDialog', pid: 7 }), async () => '')).toBe(
      'gtk',
    );
    expect(await toolkitOf(traits({ gtk: true, role: 'browser' }))).toBe('gtk');
  });

  it("takes Chromium's browser and pop-up roles for Chromium", async () => {
    expect(await toolkitOf(traits({ role: 'browser' }))).toBe('chromium');
    expect(await toolkitOf(traits({ role: 'pop-up' }))).toBe('chromium');
  });

  it('tells Qt by the library mapped into a local process, and nothing by a remote one', async () => {
    const local = hostname();
    expect(await toolkitOf(traits({ pid: 42, machine: local }), async () => QT_MAPS)).toBe('qt');
    expect(await toolkitOf(traits({ pid: 42, machine: local }), async () => GTK_MAPS)).toBe('unknown');
    expect(await toolkitOf(traits({ pid: 42, machine: 'elsewhere' }), async () => QT_MAPS)).toBe('unknown');
    expect(await toolkitOf(traits({ pid: 42 }), async () => null)).toBe('unknown');
    expect(await toolkitOf(traits({}))).toBe('unknown');
  });
});
