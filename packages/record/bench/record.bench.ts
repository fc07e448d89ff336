/**
 * Recording latency: from the input (its hook timestamp) to its manifest line and PRE screenshot on
 * disk, for key presses (emitted at once) and clicks (held for the double-click window, 400 ms, to
 * tell a click from a double click). Xvfb 1280x800 with the demo app; input from xdotool.
 * Run from the repository root: `pnpm exec tsx packages/record/bench/record.bench.ts`.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { centerOf, DEMO_LAYOUT, startDesktopHarness } from '@mime-desktop/test-support/desktop-harness';

const ROUNDS = 20;
const desktop = await startDesktopHarness();
process.env.DISPLAY = desktop.display;
const { epochNow } = await import('@mime-desktop/os-io');
const { record } = await import('../src/index.ts');
const home = await mkdtemp(join(tmpdir(), 'mime-bench-record-'));
const latencies: Record<string, number[]> = { key: [], click: [] };
const controller = new AbortController();
let ready: () => void = () => undefined;
const started = new Promise<void>((resolve) => {
  ready = resolve;
});
const recording = record({
  name: 'bench',
  home,
  signal: controller.signal,
  onEvent: (event) => {
    if (event.type === 'started') ready();
    if (event.type === 'event' && (event.action_type === 'key' || event.action_type === 'click')) {
      latencies[event.action_type]?.push(epochNow() - event.time);
    }
  },
});
await started;
const pad = centerOf(DEMO_LAYOUT.clickPad);
for (let i = 0; i < ROUNDS; i += 1) {
  await desktop.pressKeys('F2');
  await new Promise((resolve) => setTimeout(resolve, 150));
  await desktop.click(pad.x + (i % 5) * 30, pad.y);
  await new Promise((resolve) => setTimeout(resolve, 700));
}
controller.abort();
await recording;
const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;
process.stdout.write(
  [
    'record: input to manifest line + PRE screenshot on disk (Xvfb 1280x800)',
    `  key press: ${median(latencies.key ?? []).toFixed(1)} ms median of ${latencies.key?.length}`,
    `  click:     ${median(latencies.click ?? []).toFixed(1)} ms median of ${latencies.click?.length} (includes the 400 ms double-click window)`,
    '',
  ].join('\n'),
);
await desktop.stop();
await rm(home, { recursive: true, force: true });
process.exit(0);
