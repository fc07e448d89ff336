/**
 * The Runs list's stream (`/api/workflows/:id/runs/live`) over real HTTP and real run folders: with
 * 200 finished runs and one going on in another process, the runs are read whole once, then only the
 * run going on is read again (every moment), however many runs there were; its step moving on, its
 * process killed (interrupted) and a new run made are each sent without a reload; the stream holds two
 * inotify watches (the workflow's folder and its `.replay/`), not one per run folder.
 */

import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { copyWorkflow, useTempDirs } from '@mime-desktop/test-support/e2e-rig';
import {
  endedProcess,
  journalLine,
  liveProcess,
  runStartLine,
  writeUnfinishedRun,
} from '@mime-desktop/test-support/unfinished-run';
import { waitUntil } from '@mime-desktop/test-support/wait';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type Studio, startStudio } from '../src/server.ts';
import { type RunListing, WorkflowStore } from '../src/workflow-store.ts';
import { rawRequest } from './raw-request.ts';

const FINISHED = 200;

let studio: Studio;
let cookie: string;
let runsDir: string;

const tempDirs = useTempDirs();

/** A finished run's summary, started `i` minutes after the first. */
function summaryOf(run_id: string, i: number) {
  const started = new Date(Date.UTC(2026, 10, 1) + i * 60_000).toISOString();
  return {
    run_id,
    workflow: 'play-song',
    task_name: 'play song',
    mode: 'trace',
    outcome: 'success',
    code: null,
    reason: null,
    started_at: started,
    ended_at: started,
    duration_ms: 1000,
    params: {},
    subtasks: [],
    usage: { calls: 0, requests: 0, input_tokens: 0, output_tokens: 0, duration_ms: 0 },
    dry_run: false,
    budgets: {},
    extracts: {},
  };
}

beforeAll(async () => {
  const home = await tempDirs('mime-studio-runs-live-');
  const dir = await copyWorkflow('play-song-recorded', undefined, {
    as: 'play-song',
    into: join(home, 'workflows'),
  });
  runsDir = join(dir, '.replay');
  for (let i = 0; i < FINISHED; i += 1) {
    const run = `run-${String(i).padStart(3, '0')}`;
    await mkdir(join(runsDir, run), { recursive: true });
    await writeFile(join(runsDir, run, 'summary.json'), JSON.stringify(summaryOf(run, i)));
  }
  studio = await startStudio({ home });
  const login = await rawRequest(new URL(studio.origin).port, `/?token=${studio.token}`);
  cookie = String(login.headers['set-cookie']).split(';')[0] as string;
});

afterAll(async () => {
  await studio?.close();
});

/** The `runs` messages of the workflow's runs stream as they come, and how to close it. */
function followRuns(): { listings: RunListing[][]; close: () => void } {
  const listings: RunListing[][] = [];
  const req = httpRequest(`${studio.origin}/api/workflows/play-song/runs/live`, { headers: { cookie } });
  req.on('response', (res) => {
    let buffered = '';
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      buffered += chunk;
      const messages = buffered.split('\n\n');
      buffered = messages.pop() ?? '';
      for (const message of messages) {
        const data = message.split('\n').find((line) => line.startsWith('data: '));
        const parsed = data && JSON.parse(data.slice('data: '.length));
        if (parsed?.kind === 'runs') listings.push(parsed.runs);
      }
    });
  });
  req.on('error', () => undefined);
  req.end();
  return { listings, close: () => req.destroy() };
}

/** A journal's `step` line: step `step_i` of subtask 0 begun, with nothing executed. */
const stepLine = (step_i: number, description: string) =>
  journalLine(
    'step',
    {
      step_i,
      executed_by: 'trace',
      reason: 'recorded',
      action: null,
      description,
      screenshot: 'x.png',
      score: null,
    },
    0,
  );

/** The inotify watches this process holds (each `inotify wd:` line of its file descriptors' info). */
async function inotifyWatches(): Promise<number> {
  const fds = await readdir('/proc/self/fdinfo');
  const infos = await Promise.all(
    fds.map((fd) => readFile(`/proc/self/fdinfo/${fd}`, 'utf8').catch(() => '')),
  );
  return infos.join('\n').match(/^inotify wd:/gm)?.length ?? 0;
}

const runOf = (listing: RunListing[] | undefined, id: string) => listing?.find((r) => r.run_id === id);

describe('the Runs list while a run of another process goes on', () => {
  it('reads the whole list once, then only the run going on, and sends its step, its end and a new run', async () => {
    const whole = vi.spyOn(WorkflowStore.prototype, 'runs');
    const some = vi.spyOn(WorkflowStore.prototype, 'someRuns');
    const going = await writeUnfinishedRun(join(runsDir, 'run-going'), [
      runStartLine(liveProcess(), new Date().toISOString()),
      stepLine(0, 'open the search'),
    ]);
    const watchesBefore = await inotifyWatches();
    const { listings, close } = followRuns();
    try {
      const first = await waitUntil(() => listings[0], { what: 'the first listing' });
      // The workflow's folder and its .replay/ only, not one watch per run folder.
      expect((await inotifyWatches()) - watchesBefore).toBeLessThanOrEqual(2);
      expect(first).toHaveLength(FINISHED + 1);
      expect(runOf(first, 'run-going')).toMatchObject({ state: 'running', step: { step_i: 0 } });
      // Read again every moment: three times, each of them the run going on only.
      await waitUntil(() => some.mock.calls.length >= 3, { what: 'three reads of the run going on' });
      expect(whole).toHaveBeenCalledTimes(1);
      for (const [, runIds] of some.mock.calls) expect([...runIds]).toEqual(['run-going']);

      // Its step moves on: sent.
      await writeFile(
        join(going, 'events.jsonl'),
        `${[runStartLine(liveProcess(), new Date().toISOString()), stepLine(1, 'type the song')].join(
          '\n',
        )}\n`,
      );
      await waitUntil(() => runOf(listings.at(-1), 'run-going')?.step?.step_i === 1, {
        what: 'the step moved on',
      });
      // Its process gone without a summary: interrupted, and no longer read again.
      await writeFile(join(going, 'events.jsonl'), `${runStartLine(endedProcess())}\n`);
      await waitUntil(() => runOf(listings.at(-1), 'run-going')?.state === 'interrupted', {
        what: 'the run said interrupted',
      });
      // A run made in another process: read by its name alone, listed, read again while it goes on.
      await writeUnfinishedRun(join(runsDir, 'run-new'), [
        runStartLine(liveProcess(), new Date().toISOString()),
      ]);
      await waitUntil(() => runOf(listings.at(-1), 'run-new')?.state === 'running', { what: 'the new run' });
      const ended = summaryOf('run-new', FINISHED + 10);
      await writeFile(join(runsDir, 'run-new', 'summary.json'), JSON.stringify(ended));
      await waitUntil(() => runOf(listings.at(-1), 'run-new')?.state === 'ended', {
        what: 'the new run ended',
      });
      expect(listings.at(-1)).toHaveLength(FINISHED + 2);
      expect(whole).toHaveBeenCalledTimes(1);
      const named = new Set(some.mock.calls.flatMap(([, runIds]) => [...runIds]));
      expect([...named].sort()).toEqual(['run-going', 'run-new']);
    } finally {
      close();
      whole.mockRestore();
      some.mockRestore();
    }
  });
});
