/**
 * Window finding's cost on X11: the CPU one `findWindows` and one `listWindows` call take in this
 * process and in the processes it waits for (median of ROUNDS), with three app windows open (two
 * xterms and a zenity dialog) on Xvfb 1280x800 with openbox. Run from the repository root:
 * `pnpm exec tsx packages/os-io/bench/windows.bench.ts`.
 */
import { readFileSync } from 'node:fs';
import { startDesktopHarness } from '@mime-desktop/test-support/desktop-harness';
import { waitForWindowTitle } from '@mime-desktop/test-support/gtk-apps';
import { execa } from 'execa';
import { findWindows, listWindows } from '../src/index.ts';

const ROUNDS = 10;
const harness = await startDesktopHarness({ app: false, windowManager: true });
const apps = [
  execa('xterm', ['-title', 'first', '-class', 'BenchFirst'], { env: harness.env, reject: false }),
  execa('xterm', ['-title', 'second', '-class', 'BenchSecond'], { env: harness.env, reject: false }),
  execa('zenity', ['--info', '--title', 'third', '--text', 'bench'], { env: harness.env, reject: false }),
];
for (const title of ['^first$', '^second$', '^third$']) await waitForWindowTitle(harness, title);

/** CPU of the waited-for child processes so far, ms (`/proc/self/stat` cutime + cstime, 10 ms ticks). */
const childrenMs = () => {
  const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[13]) + Number(fields[14])) * 10;
};
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return (
    ((sorted[Math.floor((sorted.length - 1) / 2)] ?? 0) + (sorted[Math.ceil((sorted.length - 1) / 2)] ?? 0)) /
    2
  );
};

const lines = [`windows: CPU a call, 3 app windows open (Xvfb 1280x800, openbox, median of ${ROUNDS})`];
for (const [label, call] of [
  ['findWindows({ class })', () => findWindows({ class: '^BenchSecond$' }, harness.env)],
  ['listWindows()', () => listWindows(harness.env)],
] as const) {
  await call();
  const own: number[] = [];
  const wall: number[] = [];
  const children = childrenMs();
  for (let round = 0; round < ROUNDS; round += 1) {
    const cpu = process.cpuUsage();
    const started = performance.now();
    await call();
    wall.push(performance.now() - started);
    const used = process.cpuUsage(cpu);
    own.push((used.user + used.system) / 1000);
  }
  lines.push(
    `  ${label}: ${median(own).toFixed(1)} ms in this process, ${((childrenMs() - children) / ROUNDS).toFixed(1)} ms in child processes (mean), wall ${median(wall).toFixed(1)} ms`,
  );
}
process.stdout.write(`${lines.join('\n')}\n`);
for (const app of apps) app.kill();
await harness.stop();
