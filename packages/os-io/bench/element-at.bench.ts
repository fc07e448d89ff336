/**
 * The element under a point: how long one `elementAt` takes on a GTK 3 dialog's OK button (zenity
 * --forms under openbox, Xvfb 1280x800), idle and beside 2 and 4 busy processes, median of ROUNDS. The
 * recorder's lookup at a press races the app: a dialog the press closes takes its elements with it
 * once the button is released (about 100 ms later), so every answer waited for one after another
 * counts. Run from the repository root: `pnpm exec tsx packages/os-io/bench/element-at.bench.ts`.
 */
import { spawn } from 'node:child_process';
import { accessibleAppEnv, elementCentre } from '@mime-desktop/test-support/accessible-element';
import { startDesktopHarness } from '@mime-desktop/test-support/desktop-harness';
import { execa } from 'execa';
import { openAccessibility } from '../src/index.ts';

const ROUNDS = 30;
const harness = await startDesktopHarness({ app: false, windowManager: true });
const dialog = execa(
  'zenity',
  ['--forms', '--title', 'Address', '--text', 'Where to', '--add-entry', 'Name', '--add-entry', 'City'],
  { env: accessibleAppEnv(harness.env), reject: false },
);
const ok = await elementCentre(harness.env, { role: 'push button', name: 'OK', app: 'zenity' });
const opened = await openAccessibility(harness.env);
if (!opened.ok) throw new Error(`no accessibility: ${opened.reason}`);
const a11y = opened.accessibility;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

/** Median wall time of one lookup, ms; throws where the lookup names anything but the button. */
async function lookups(): Promise<number> {
  await a11y.elementAt(ok);
  const times: number[] = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    const started = performance.now();
    const element = await a11y.elementAt(ok);
    times.push(performance.now() - started);
    if (element?.name !== 'OK') throw new Error(`the lookup named ${JSON.stringify(element)}`);
  }
  return median(times);
}

const lines = [
  `element-at: elementAt on a zenity dialog's OK button (Xvfb 1280x800, openbox, median of ${ROUNDS})`,
];
for (const busy of [0, 2, 4]) {
  const loops = Array.from({ length: busy }, () =>
    spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }),
  );
  lines.push(`  ${busy} busy processes beside it: ${(await lookups()).toFixed(1)} ms`);
  for (const loop of loops) loop.kill('SIGKILL');
}
process.stdout.write(`${lines.join('\n')}\n`);
await a11y.close();
dialog.kill();
await harness.stop();
