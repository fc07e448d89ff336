/**
 * A run folder without a summary, as listHome lists it for `mime list`, the MCP server and the studio
 * (its `state`, and `runStatus`'s word): going on while the process its journal
 * names lives, interrupted once that process is gone or its pid belongs to another process, unknown
 * for a run of another machine or an older mime; a folder with no journal yet is starting for a moment.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { useTestDir } from '@mime-desktop/test-support/e2e-rig';
import {
  endedProcess,
  journalLine,
  liveProcess,
  runStartLine,
  writeUnfinishedRun,
} from '@mime-desktop/test-support/unfinished-run';
import { describe, expect, it } from 'vitest';
import { RUN_STARTING_MS, readWorkflowEntry, runStatus, unfinishedRunState } from '../src/index.ts';

const testDir = useTestDir('mime-run-state-');

/** The state of a run whose journal holds `lines` (null: no journal yet), as listed from its workflow folder. */
async function stateOf(lines: string[] | null) {
  const home = testDir();
  const run = join(home, '.replay', 'run-1');
  if (lines) await writeUnfinishedRun(run, lines);
  else await mkdir(run, { recursive: true });
  const [entry] = (await readWorkflowEntry(home, 'w')).runs;
  if (!entry) throw new Error('the run is not listed');
  return { entry, state: entry.state };
}

describe('the state of a run', () => {
  it('says a run whose process lives running, with its mode and last step', async () => {
    const step = journalLine(
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
    const { entry, state } = await stateOf([runStartLine(liveProcess()), step]);
    expect(state).toBe('running');
    expect(runStatus(entry)).toBe('running');
    expect(entry).toMatchObject({
      mode: 'trace',
      started_at: '2026-11-26T19:00:00.000Z',
      last_step: { subtask_i: 0, step_i: 2, description: 'press enter' },
    });
  });

  it('says a run interrupted once its process is gone, or its pid is now another process', async () => {
    const killed = await stateOf([runStartLine(endedProcess())]);
    expect(killed.state).toBe('interrupted');
    expect(runStatus(killed.entry)).toBe('interrupted');
    const reused = { ...liveProcess(), started: `${liveProcess().started ?? 'boot'}-earlier` };
    expect((await stateOf([runStartLine(reused)])).state).toBe(
      process.platform === 'linux' ? 'interrupted' : 'running',
    );
  });

  it('cannot tell a run of another machine, or of an older mime that did not record its process', async () => {
    expect((await stateOf([runStartLine({ ...liveProcess(), host: `not-${hostname()}` })])).state).toBe(
      'unknown',
    );
    const older = await stateOf([runStartLine()]);
    expect(older.state).toBe('unknown');
    expect(runStatus(older.entry)).toBe('unfinished');
  });

  it('says a run with its summary ended, by its outcome', async () => {
    const home = testDir();
    const run = join(home, '.replay', 'run-1');
    await mkdir(run, { recursive: true });
    const summary = {
      run_id: 'run-1',
      task_name: 'play song',
      workflow: home,
      mode: 'trace',
      dry_run: false,
      outcome: 'failed',
      code: 'MIME_DIVERGED',
      reason: 'the screen differs',
      started_at: '2026-11-26T19:00:00.000Z',
      ended_at: '2026-11-26T19:00:01.200Z',
      duration_ms: 1200,
      params: {},
      subtasks: [],
      extracts: {},
      usage: { calls: 0, requests: 0, input_tokens: 0, output_tokens: 0, duration_ms: 0 },
      budgets: {},
    };
    await writeFile(join(run, 'summary.json'), JSON.stringify(summary));
    const [entry] = (await readWorkflowEntry(home, 'w')).runs;
    expect(entry?.problem).toBeNull();
    expect(entry?.state).toBe('ended');
    expect(entry && runStatus(entry)).toBe('failed');
  });

  it('says a folder with no journal starting for a moment, then interrupted', async () => {
    const { entry, state } = await stateOf(null);
    expect(state).toBe('running');
    const made = Date.parse(entry.started_at ?? '');
    expect(unfinishedRunState(null, entry.started_at, made + 1_000)).toBe('running');
    expect(unfinishedRunState(null, entry.started_at, made + RUN_STARTING_MS + 1)).toBe('interrupted');
    expect(unfinishedRunState(null, null)).toBe('interrupted');
  });
});
