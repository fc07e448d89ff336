/**
 * A command's life as the CLI runs it, for tests/e2e/stop-signals.test.ts: it listens for a stop
 * signal, then starts a child process that is still running when the signal comes (execa's clean-up
 * has signal-exit listening since), then ends that child itself and exits 0. `once` listens as the
 * CLI did before (`process.once`).
 */
import { execa } from 'execa';
import { onStopSignals } from '../../packages/cli/src/stop-signals.ts';

let stop = () => {};
const stopped = new Promise<void>((resolve) => {
  stop = resolve;
});
if (process.argv[2] === 'once') process.once('SIGTERM', () => stop());
else onStopSignals(() => stop());
const child = execa('sleep', ['30'], { reject: false });
process.stdout.write('ready\n');
await stopped;
child.kill();
await child;
process.exitCode = 0;
