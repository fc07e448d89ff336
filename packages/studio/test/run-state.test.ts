/**
 * A run folder without a summary, read as the studio lists it: going on while the process its journal
 * names lives, interrupted once that process is gone or its pid belongs to another process, unknown
 * for a run of another machine or an older mime; a folder with no journal yet is starting for a moment.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { processStartIdentity } from '@mime-desktop/os-io/process-identity';
import { readWorkflowEntry } from '@mime-desktop/schema';
import { useTestDir } from '@mime-desktop/test-support/e2e-rig';
import { describe, expect, it } from 'vitest';
import { runStateOf } from '../src/run-state.ts';

const testDir = useTestDir('mime-run-state-');

const event = (type: string, data: object, subtask_i: number | null = null) =>
  JSON.stringify({ time: '2026-11-26T19:00:00.000Z', type, subtask_i, iteration: null, data });

const runStart = (process?: object) =>
  event('run_start', {
    run_id: 'r',
    mode: 'trace',
    task_name: 'play song',
    params: {},
    budgets: {},
    dry_run: false,
    ...(process ? { process } : {}),
  });

/** The state of a run whose journal holds `lines`, as listed from its workflow folder. */
async function stateOf(lines: string[] | null) {
  const home = testDir();
  const run = join(home, '.replay', 'run-1');
  await mkdir(run, { recursive: true });
  if (lines) await writeFile(join(run, 'events.jsonl'), `${lines.join('\n')}\n`);
  const [entry] = (await readWorkflowEntry(home, 'w')).runs;
  if (!entry) throw new Error('the run is not listed');
  return { entry, state: runStateOf(entry) };
}

const me = () => ({ pid: process.pid, started: processStartIdentity(process.pid), host: hostname() });

describe('runStateOf', () => {
  it('says a run whose process lives running, with its mode and last step', async () => {
    const step = event(
      'step',
      {
        step_i: 2,
        executed_by: 'trace',
        reason: 'as recorded',
        action: null,
        description: 'press enter',
        screenshot: 'a.png',
        score: null,
      },
      0,
    );
    const { entry, state } = await stateOf([runStart(me()), step]);
    expect(state).toBe('running');
    expect(entry).toMatchObject({
      mode: 'trace',
      started_at: '2026-11-26T19:00:00.000Z',
      last_step: { subtask_i: 0, step_i: 2, description: 'press enter' },
    });
  });

  it('says a run interrupted once its process is gone, or its pid is now another process', async () => {
    const gone = Number(
      execFileSync(process.execPath, ['-e', 'console.log(process.pid)'], { encoding: 'utf8' }),
    );
    expect((await stateOf([runStart({ pid: gone, started: 'boot:1', host: hostname() })])).state).toBe(
      'interrupted',
    );
    const reused = { ...me(), started: `${me().started ?? 'boot'}-earlier` };
    expect((await stateOf([runStart(reused)])).state).toBe(
      process.platform === 'linux' ? 'interrupted' : 'running',
    );
  });

  it('cannot tell a run of another machine, or of an older mime that did not record its process', async () => {
    expect((await stateOf([runStart({ ...me(), host: `not-${hostname()}` })])).state).toBe('unknown');
    expect((await stateOf([runStart()])).state).toBe('unknown');
  });

  it('says a folder with no journal starting for a moment, then interrupted', async () => {
    const { entry } = await stateOf(null);
    const made = Date.parse(entry.started_at ?? '');
    expect(runStateOf(entry, made + 1_000)).toBe('running');
    expect(runStateOf(entry, made + 60_000)).toBe('interrupted');
    expect(runStateOf({ ...entry, outcome: 'success' }, made + 60_000)).toBe('ended');
  });
});
