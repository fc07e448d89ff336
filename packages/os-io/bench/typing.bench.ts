/**
 * Typing speed: how long `typeText` takes into real apps on X11 (median and worst of ROUNDS), for a
 * text of plain keys, one with characters typed through spare keys (the wait for the app around
 * them), and a number with repeated digits (the pause before a repeated key). Xvfb 1280x800 with
 * openbox. Run from the repository root: `pnpm exec tsx packages/os-io/bench/typing.bench.ts`.
 */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDesktopHarness } from '@mime-desktop/test-support/desktop-harness';
import { gtkAppEnv, waitForWindowTitle, windowGeometry } from '@mime-desktop/test-support/gtk-apps';
import { execa } from 'execa';

const ROUNDS = 5;
const TEXTS = {
  plain: 'A bookkeeper typed this line.',
  'spare keys': 'Grüße, É ß € — 中文 😀 Zürich',
  'repeated digits': '1.0777',
};

const harness = await startDesktopHarness({ app: false, windowManager: true });
process.env.DISPLAY = harness.display; // before the first desktop call loads nut-js
const { createDesktop } = await import('../src/index.ts');
const env = await gtkAppEnv(harness);
const desktop = await createDesktop();
const dir = await mkdtemp(join(tmpdir(), 'mime-typing-bench-'));

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;
const lines = [`typing: typeText duration (Xvfb 1280x800, openbox, ${ROUNDS} rounds each)`];
for (const [app, args, title] of [
  ['featherpad', [join(dir, 'qt.txt')], 'qt.txt'],
  ['mousepad', [join(dir, 'gtk.txt')], 'gtk.txt'],
  ['galculator', [], 'galculator'],
] as const) {
  for (const file of args) await writeFile(file, '');
  const child = execa(app, args, { env, reject: false, detached: true, stdio: 'ignore' });
  const id = await waitForWindowTitle(harness, title);
  await harness.xdotool('windowactivate', '--sync', id);
  const window = await windowGeometry(harness, id);
  await desktop.click({ x: window.x + window.width / 2, y: window.y + window.height / 2 });
  for (const [label, text] of Object.entries(TEXTS)) {
    if (app === 'galculator' && label !== 'repeated digits') continue;
    const times: number[] = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      const started = performance.now();
      await desktop.typeText(text);
      times.push(performance.now() - started);
      await desktop.pressKey(app === 'galculator' ? 'escape' : 'enter');
    }
    lines.push(
      `  ${app}, ${label} (${[...text].length} characters): median ${median(times).toFixed(0)} ms, worst ${Math.max(...times).toFixed(0)} ms`,
    );
  }
  child.kill();
  await child;
}
process.stdout.write(`${lines.join('\n')}\n`);
await desktop.close();
await harness.stop();
process.exit(0);
