import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';

const CHILD = join(import.meta.dirname, '..', 'support', 'stop-signals-child.ts');

/** Runs the child script, sends SIGTERM once it listens, and resolves how it ended. */
async function stoppedBySigterm(mode: 'on' | 'once') {
  const run = execa(process.execPath, ['--import', 'tsx', CHILD, mode], { reject: false });
  await new Promise<void>((resolve) => run.stdout?.once('data', () => resolve()));
  run.kill('SIGTERM');
  const { exitCode, signal } = await run;
  return { exitCode, signal };
}

describe('a command stopped by SIGTERM while a child process of it runs', () => {
  it('cleans up and exits 0 (its listener stays registered while the signal is handled)', async () => {
    expect(await stoppedBySigterm('on')).toEqual({ exitCode: 0, signal: undefined });
  });

  it('is killed by the signal re-raised by signal-exit when its only listener was a `once` (the old way)', async () => {
    expect(await stoppedBySigterm('once')).toMatchObject({ signal: 'SIGTERM' });
  });
});
