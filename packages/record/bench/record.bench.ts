/**
 * Recording latency: from the input (its hook timestamp) to its manifest line and PRE screenshot on
 * disk, for key presses (emitted at once) and clicks (held for the double-click window, 400 ms, to
 * tell a click from a double click), without and with the accessibility bus (the element under each
 * click and the focus at each key are looked up beside the hooks). Xvfb 1280x800 with the demo app
 * (Chromium exporting its tree); input from xdotool.
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
const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;

/** One recording of ROUNDS key presses and clicks; the bus given or none. */
async function latencies(
  bus: string | undefined,
): Promise<{ key: number[]; click: number[]; elements: number }> {
  if (bus) process.env.DBUS_SESSION_BUS_ADDRESS = bus;
  else delete process.env.DBUS_SESSION_BUS_ADDRESS;
  const times = { key: [] as number[], click: [] as number[] };
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
        times[event.action_type].push(epochNow() - event.time);
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
  const { dir } = await recording;
  const { readFile } = await import('node:fs/promises');
  const manifest = await readFile(join(dir, 'manifest.jsonl'), 'utf8');
  const elements = manifest.split('\n').filter((line) => line.includes('"element"')).length;
  return { ...times, elements };
}

const lines = ['record: input to manifest line + PRE screenshot on disk (Xvfb 1280x800)'];
for (const [label, bus] of [
  ['without accessibility', undefined],
  ['with accessibility   ', desktop.env.DBUS_SESSION_BUS_ADDRESS],
] as const) {
  const { key, click, elements } = await latencies(bus);
  lines.push(
    `  ${label}: key press ${median(key).toFixed(1)} ms, click ${median(click).toFixed(1)} ms (medians of ${key.length} and ${click.length}; the click includes the 400 ms double-click window); ${elements} events with an element`,
  );
}
process.stdout.write(`${lines.join('\n')}\n\n`);
await desktop.stop();
await rm(home, { recursive: true, force: true });
process.exit(0);
