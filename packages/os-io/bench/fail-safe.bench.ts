/**
 * Fail-safe latency: from the pointer slammed into a corner, or the abort hotkey pressed (both with
 * xdotool, timed from when xdotool is started: the abort often lands before xdotool has exited, so
 * the figure includes starting it), to the long typing it interrupts settling with MIME_ABORTED;
 * medians and worst of ROUNDS each. Xvfb 1280x800 with the demo app. The README's
 * promise is 100 ms. Run from the repository root: `pnpm exec tsx packages/os-io/bench/fail-safe.bench.ts`.
 */
import { centerOf, DEMO_LAYOUT, startDesktopHarness } from '@mime-desktop/test-support/desktop-harness';

const ROUNDS = 10;
const harness = await startDesktopHarness();
process.env.DISPLAY = harness.display; // before the first desktop call loads nut-js
const { createDesktop } = await import('../src/index.ts');

/** One round: typing under way, then `trigger`; ms from the trigger started to the typing settled. */
async function latency(trigger: () => Promise<void>): Promise<number> {
  await harness.resetApp(); // also moves the pointer out of any corner
  const desktop = await createDesktop();
  try {
    await desktop.click(centerOf(DEMO_LAYOUT.echo));
    let settledAt = 0;
    const typing = desktop.typeText('z'.repeat(400), { keyDelayMs: 10 }).finally(() => {
      settledAt = performance.now();
    });
    typing.catch(() => undefined);
    await harness.waitForAppState((s) => s.typed.length >= 5);
    const triggered = performance.now();
    await trigger();
    const error = await typing.then(
      () => null,
      (e: unknown) => e,
    );
    if ((error as { code?: string } | null)?.code !== 'MIME_ABORTED')
      throw new Error('the typing was not aborted');
    return settledAt - triggered;
  } finally {
    await desktop.close();
  }
}

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;
const lines = [
  `fail-safe: trigger (xdotool started) to typing aborted (Xvfb 1280x800, ${ROUNDS} rounds each)`,
];
for (const [label, trigger] of [
  ['pointer into a corner', () => harness.moveMouse(0, 0)],
  ['ctrl+alt+shift+escape', () => harness.pressKeys('ctrl+alt+shift+Escape')],
] as const) {
  const times: number[] = [];
  for (let round = 0; round < ROUNDS; round += 1) times.push(await latency(trigger));
  lines.push(`  ${label}: median ${median(times).toFixed(1)} ms, worst ${Math.max(...times).toFixed(1)} ms`);
}
process.stdout.write(`${lines.join('\n')}\n`);
await harness.stop();
process.exit(0);
