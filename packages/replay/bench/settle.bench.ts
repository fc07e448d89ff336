/**
 * The screen-settle wait on a real clock: how long after the screen stops changing waitForSettle
 * returns, beyond the stable window it must see (the unit test checks the waits on the test's
 * clock, this bench what the timers and captures add on this machine). Frames in memory, 1280x800,
 * that change for the first captures and then stay; the default settings (a capture every 16 ms, a
 * 50 ms stable window). Median and worst of ROUNDS. No display needed.
 * Run from the repository root: `pnpm bench settle`.
 */
import type { RawFrame } from '@mime-desktop/os-io';
import { waitForSettle } from '../src/actions/screen-settle.ts';
import { DEFAULT_SETTLE } from '../src/kernel/settings.ts';

const ROUNDS = 30;
/** Captures that show a new screen before it stays. */
const CHANGES = 3;
const WIDTH = 1280;
const HEIGHT = 800;

const frameOf = (shade: number): RawFrame => ({
  data: Buffer.alloc(WIDTH * HEIGHT * 4, shade),
  channelOrder: 'bgra',
  stride: WIDTH * 4,
  physical: { width: WIDTH, height: HEIGHT },
  logical: { width: WIDTH, height: HEIGHT },
  scale: 1,
  time: 0,
});
const frames = Array.from({ length: CHANGES + 1 }, (_, i) => frameOf(40 + i * 40));

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;

/** One wait: ms from the capture that saw the last change to waitForSettle's return, less the stable window. */
async function beyondTheWindow(): Promise<number> {
  let n = 0;
  let lastChange = 0;
  const settled = await waitForSettle(async () => {
    const at = performance.now();
    if (n <= CHANGES) lastChange = at;
    return frames[Math.min(n++, CHANGES)] as RawFrame;
  });
  if (!settled.settled) throw new Error('the screen did not settle');
  return performance.now() - lastChange - DEFAULT_SETTLE.stableMs;
}

await beyondTheWindow(); // warm-up
const extra: number[] = [];
for (let round = 0; round < ROUNDS; round += 1) extra.push(await beyondTheWindow());
process.stdout.write(
  [
    `settle: ${WIDTH}x${HEIGHT} frames in memory, ${CHANGES} changes then still, a capture every ${DEFAULT_SETTLE.intervalMs} ms, a ${DEFAULT_SETTLE.stableMs} ms stable window`,
    `  returned ${median(extra).toFixed(1)} ms median after the stable window ended (worst ${Math.max(...extra).toFixed(1)} ms), ${ROUNDS} rounds`,
    '',
  ].join('\n'),
);
