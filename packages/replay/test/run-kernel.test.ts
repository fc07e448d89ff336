/**
 * The run kernel's parts, each on its own: the event log (the only writer, everything redacted),
 * the run memory (extracts, task memory, completed-step lines) and the plan cursor (current, pending,
 * replace, ids, positions); and `prepareReplay`, which checks and resolves a run with no display.
 */
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { encodePng } from '@mime-desktop/os-io';
import { loadWorkflow, RUN_FILES, type WorkflowStep } from '@mime-desktop/schema';
import { copyWorkflow, tempDir } from '@mime-desktop/test-support/e2e-rig';
import { countReads } from '@mime-desktop/test-support/read-count';
import { describe, expect, it, onTestFinished } from 'vitest';
import { ParamsError, ReplayOptionError } from '../src/errors.ts';
import { EventLog } from '../src/kernel/event-log.ts';
import type { ReplayEvent } from '../src/kernel/events.ts';
import { manifestSha256, sha256 } from '../src/kernel/fingerprint.ts';
import { checkParams } from '../src/kernel/materialize.ts';
import type { PlannedSubtask } from '../src/kernel/plan.ts';
import { PlanCursor } from '../src/kernel/plan-cursor.ts';
import { createRedactor } from '../src/kernel/redact.ts';
import { RunFolder } from '../src/kernel/run-folder.ts';
import { RunMemory } from '../src/kernel/run-memory.ts';
import { prepareReplay } from '../src/run/replay.ts';

const PLAY_SONG = new URL('../../../fixtures/workflows/play-song-recorded', import.meta.url).pathname;

/** A log over a fresh run folder of the current test, redacting `hunter2` as `{password}`, and the events it told. */
async function openLog() {
  const folder = await RunFolder.create(await tempDir('mime-kernel-'));
  onTestFinished(() => folder.flush().catch(() => undefined));
  const told: ReplayEvent[] = [];
  const log = new EventLog({
    folder,
    redact: createRedactor(new Map([['password', 'hunter2']])),
    onEvent: (event) => told.push(event),
    encodePng,
  });
  // Its writes end before the test's folder is removed (after hooks run newest first); a write that
  // failed is a test's own to check.
  onTestFinished(() => log.flush().catch(() => undefined));
  const read = async (name: string) => readFile(join(folder.dir, name), 'utf8');
  return { log, folder, told, read };
}

const subtask = (subtask_i: number, text = `subtask ${subtask_i}`): PlannedSubtask => ({
  subtask_i,
  text,
  dependencies: [],
  steps: [],
  extracts: [],
  origin: 'workflow',
});

/** A cursor whose events are kept in a list, and how many subtask budgets it started. */
function cursorOver(plan: PlannedSubtask[]) {
  const events: ReplayEvent[] = [];
  let budgetsStarted = 0;
  const cursor = new PlanCursor({
    plan,
    events: { emit: (event) => events.push(event) },
    budgets: {
      startSubtask: () => {
        budgetsStarted += 1;
      },
    },
  });
  const starts = () =>
    events.flatMap((e) => (e.type === 'subtask_start' ? [`${e.subtask_i}:${e.position}/${e.count}`] : []));
  return { cursor, events, starts, budgetsStarted: () => budgetsStarted };
}

describe('EventLog', () => {
  it('writes every event and file redacted, tells the listener, and never reuses a file name', async () => {
    const { log, folder, told, read } = await openLog();
    log.emit({ type: 'done', subtask_i: 0, iteration: 1, observation: 'typed hunter2', result: null });
    log.writeJson('x.json', { note: 'hunter2 and {password}' });
    log.writeText('x.txt', 'pw=hunter2');
    const first = log.saveImage('crop.png', Buffer.from('a'));
    const second = log.saveImage('crop.png', Buffer.from('b'));
    expect([first, second, log.nextReplanFrame(), log.nextReplanFrame()]).toEqual([
      'crop.png',
      'crop_2.png',
      'replan_1.png',
      'replan_2.png',
    ]);
    await log.flush();
    const lines = (await read(RUN_FILES.events)).trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] as string)).toMatchObject({
      type: 'done',
      subtask_i: 0,
      iteration: 1,
      data: { observation: 'typed {password}' },
    });
    expect(told).toEqual([expect.objectContaining({ observation: 'typed {password}' })]);
    expect(log.events).toHaveLength(1);
    // Redacting what is already redacted changes nothing: no `{pass{password}}`.
    expect(JSON.parse(await read('x.json'))).toEqual({ note: '{password} and {password}' });
    expect(await read('x.txt')).toBe('pw={password}');
    expect((await readdir(folder.dir)).sort()).toEqual([
      'crop.png',
      'crop_2.png',
      'events.jsonl',
      'x.json',
      'x.txt',
    ]);
  });

  it('reports a write that failed at flush', async () => {
    const { log, folder } = await openLog();
    await mkdir(join(folder.dir, 'taken.json'));
    log.writeJson('taken.json', {});
    await expect(log.flush()).rejects.toThrow(/EISDIR|EEXIST|ENOTEMPTY|EPERM/);
  });
});

describe('RunMemory', () => {
  it('starts the run with empty memory files, then keeps extracts and task memory on disk, redacted', async () => {
    const { log, told, read } = await openLog();
    const memory = RunMemory.start(log);
    await log.flush();
    expect(JSON.parse(await read(RUN_FILES.extracts))).toEqual({});
    expect(JSON.parse(await read(RUN_FILES.taskMemory))).toMatchObject({ task_memory: '', subtask_i: null });
    memory.storeExtract('now_playing', 'the song playing', 'Numb', { subtask_i: 1, iteration: 2 });
    memory.remember('password is hunter2', { subtask_i: 1, iteration: 3 });
    memory.remember(null, { subtask_i: 1, iteration: 4 });
    await log.flush();
    expect(memory.extracts.get('now_playing')).toBe('Numb');
    expect(memory.taskMemory).toBe('password is hunter2');
    expect(JSON.parse(await read(RUN_FILES.extracts))).toEqual({ now_playing: 'Numb' });
    expect(JSON.parse(await read(RUN_FILES.taskMemory))).toMatchObject({
      task_memory: 'password is {password}',
      subtask_i: 1,
      iteration: 3,
    });
    expect(told).toEqual([
      expect.objectContaining({ type: 'extract', variable: 'now_playing', value: 'Numb', subtask_i: 1 }),
    ]);
  });

  it('keeps the completed-step lines a replan is given, newest last, up to a limit', async () => {
    const { log } = await openLog();
    const memory = new RunMemory(log);
    memory.noteCompleted('step 1: click Search');
    memory.noteSubtaskDone('Search for Numb');
    memory.noteSubtaskDone('Play Numb', 'Numb is playing');
    expect(memory.doneSubtasks).toEqual(['Search for Numb', 'Play Numb (result: Numb is playing)']);
    expect(memory.completed()).toEqual([
      'step 1: click Search',
      'Subtask done: Search for Numb',
      'Subtask done: Play Numb (result: Numb is playing)',
    ]);
    expect(memory.completed(1)).toEqual(['Subtask done: Play Numb (result: Numb is playing)']);
    // Its writes end before the folder is removed (else the removal may find it not empty).
    await log.flush();
  });
});

describe('PlanCursor', () => {
  it('starts subtasks in order with their plan position and a fresh budget, then runs out', () => {
    const { cursor, starts, budgetsStarted } = cursorOver([subtask(0), subtask(1), subtask(2)]);
    expect(cursor.current).toBeNull();
    expect(cursor.next()?.subtask_i).toBe(0);
    expect(cursor.pending.map((s) => s.subtask_i)).toEqual([1, 2]);
    expect(cursor.next()?.subtask_i).toBe(1);
    expect(cursor.next()?.subtask_i).toBe(2);
    expect(cursor.next()).toBeNull();
    expect(starts()).toEqual(['0:1/3', '1:2/3', '2:3/3']);
    expect(budgetsStarted()).toBe(3);
  });

  it('replaces the current subtask and the pending ones a replan covers, with new run-wide ids', () => {
    const { cursor, starts } = cursorOver([subtask(0), subtask(1), subtask(2)]);
    cursor.next();
    const stuck = cursor.next();
    expect(stuck?.subtask_i).toBe(1);
    // Agent mode: the stuck subtask and everything pending are planned again.
    const ids = cursor.allocateIds(2);
    expect(ids).toEqual([3, 4]);
    cursor.replace(
      cursor.pending.length,
      ids.map((id) => ({ ...subtask(id), origin: 'replan' as const })),
    );
    expect(cursor.pending.map((s) => s.subtask_i)).toEqual([3, 4]);
    cursor.next();
    cursor.next();
    // The replaced subtask does not count: subtask 3 takes its place as the 2nd of 3.
    expect(starts()).toEqual(['0:1/3', '1:2/3', '3:2/3', '4:3/3']);
    expect(cursor.allocateIds(1)).toEqual([5]);
  });

  it('puts what replaces a handed-over subtask before the pending ones of auto', () => {
    const { cursor, starts } = cursorOver([subtask(0), subtask(1)]);
    cursor.next();
    cursor.replace(0, [subtask(2), subtask(3)]);
    expect(cursor.pending.map((s) => s.subtask_i)).toEqual([2, 3, 1]);
    cursor.next();
    cursor.next();
    cursor.next();
    expect(starts()).toEqual(['0:1/2', '2:1/3', '3:2/3', '1:3/3']);
  });

  it('ends open subtasks as failed and reports those never reached as not run', () => {
    const step = { i: 0 } as WorkflowStep;
    const { cursor, events } = cursorOver([subtask(0), { ...subtask(1), steps: [step] }]);
    const entry = cursor.next();
    entry?.recordStep({ i: 7, executed_by: 'trace', reason: 'as recorded' });
    cursor.endOpen();
    cursor.endOpen();
    expect(events.filter((e) => e.type === 'subtask_end')).toEqual([
      expect.objectContaining({ subtask_i: 0, outcome: 'failed' }),
    ]);
    expect(cursor.outcomes().map((r) => [r.subtask_i, r.outcome, r.executions.length])).toEqual([
      [0, 'failed', 1],
      [1, 'not_run', 0],
    ]);
  });
});

describe('prepareReplay', () => {
  it('loads, fingerprints and resolves a run with no display and no model', async () => {
    const prepared = await prepareReplay(PLAY_SONG, { mode: 'trace', params: { song_name: 'Faint' } });
    expect(prepared.workflowDir).toBe(PLAY_SONG);
    expect(prepared.runsDir).toBe(join(PLAY_SONG, '.replay'));
    expect(prepared.fingerprint).toEqual({
      workflowSha256: sha256(await readFile(join(PLAY_SONG, 'schema.json'))),
      manifestSha256: await manifestSha256(PLAY_SONG),
    });
    expect(prepared.materialized.params).toEqual([
      expect.objectContaining({ name: 'song_name', display: 'Faint', source: 'override' }),
    ]);
    expect(prepared.materialized.workflow.plan.subtasks[0]?.text).toContain('Faint');
    expect(prepared.settings).toMatchObject({ dryRun: false, stepTimeoutMs: 5000, typeDelayMs: null });
    expect(prepared.agent).toMatchObject({ historyLimit: 8, noProgressRepeats: 3, maxUnusableReplies: 3 });
    expect(prepared.pauseHotkey).toBe('ctrl+alt+shift+p');
  });

  it('resolves each param once: the value given is read once, and rendered where the run shows it', async () => {
    const { values: params, reads } = countReads<Record<string, string>>({ song_name: 'Faint' });
    const prepared = await prepareReplay(PLAY_SONG, { mode: 'trace', params });
    expect(reads).toEqual(['song_name']);
    expect(prepared.materialized.workflow.plan.subtasks[0]?.text).toContain('Faint');
  });

  it('takes params resolved already as they are, checked against the very workflow it replays', async () => {
    const loaded = await loadWorkflow(PLAY_SONG);
    const checkedParams = checkParams(loaded.workflow, { song_name: 'Faint' });
    const prepared = await prepareReplay(loaded, { mode: 'trace', checkedParams });
    expect(prepared.materialized.workflow.plan.subtasks[0]?.text).toContain('Faint');
    await expect(
      prepareReplay(loaded, { mode: 'trace', checkedParams, params: { song_name: 'Numb' } }),
    ).rejects.toThrow(/checkedParams are params resolved already: give them, or params/);
    await expect(prepareReplay(loaded, { mode: 'trace', checkedParams, useExamples: true })).rejects.toThrow(
      ReplayOptionError,
    );
    // The folder is read again: another copy of the workflow, maybe changed since the params were checked.
    await expect(prepareReplay(PLAY_SONG, { mode: 'trace', checkedParams })).rejects.toThrow(
      /checkedParams were checked against another workflow than .*schema\.json: pass replay the LoadedWorkflow/,
    );
  });

  it('refuses bad input before anything runs', async () => {
    await expect(prepareReplay(PLAY_SONG, { mode: 'nope' as 'auto' })).rejects.toThrow(ReplayOptionError);
    await expect(prepareReplay(PLAY_SONG, { mode: 'trace', params: { song: 'x' } })).rejects.toThrow(
      ParamsError,
    );
    // A required param given no value is missing (its recorded example fills in only when asked).
    await expect(prepareReplay(PLAY_SONG, { mode: 'trace' })).rejects.toThrow(/missing: song_name/);
    await expect(
      prepareReplay(PLAY_SONG, { mode: 'trace', params: { song_name: 'x' }, historyLimit: 0 }),
    ).rejects.toThrow(/historyLimit must be an integer >= 1, got 0/);
    await expect(prepareReplay(PLAY_SONG, { mode: 'trace', useExamples: true, fresh: true })).rejects.toThrow(
      /fresh needs the workflow's setup/,
    );
  });

  it('forbids the model with a model calls budget of 0: agent mode is refused, auto needs no model', async () => {
    const budgets = { modelCalls: 0 };
    await expect(
      prepareReplay(PLAY_SONG, { mode: 'agent', budgets, params: { song_name: 'x' } }),
    ).rejects.toThrow(
      /the agent mode asks the model at every turn, and this run may not call one \(its model calls budget is 0\): replay in the auto mode/,
    );
    // A configured model is never made into a client: its first use says why.
    const env = { MIME_BASE_URL: 'http://127.0.0.1:9/v1', MIME_MODEL: 'm' };
    const prepared = await prepareReplay(PLAY_SONG, {
      mode: 'auto',
      budgets,
      env,
      params: { song_name: 'x' },
    });
    expect(prepared.limits.modelCalls).toBe(0);
    await expect(prepared.model.client()).rejects.toMatchObject({ code: 'MIME_MODEL_FORBIDDEN' });
    await expect(
      prepareReplay(PLAY_SONG, { budgets: { modelCalls: -1 }, params: { song_name: 'x' } }),
    ).rejects.toThrow(/budget modelCalls must be a number >= 0, got -1/);
  });

  it('fingerprints the manifest too: a changed recording changes it', async () => {
    const dir = await copyWorkflow('play-song-recorded');
    const before = await manifestSha256(dir);
    await writeFile(join(dir, 'manifest.jsonl'), `${await readFile(join(dir, 'manifest.jsonl'), 'utf8')}\n`);
    expect(await manifestSha256(dir)).not.toBe(before);
  });

  it('fingerprints the schema.json it loaded, never a second read of it', async () => {
    const dir = await copyWorkflow('play-song-recorded');
    const file = join(dir, 'schema.json');
    const read = await readFile(file);
    const loaded = await loadWorkflow(dir);
    expect(loaded.sha256).toBe(sha256(read));
    // Changed on disk after it was loaded: the run is of the loaded workflow, and so is its fingerprint.
    await writeFile(file, `${read.toString('utf8')}\n`);
    const prepared = await prepareReplay(loaded, { mode: 'trace', params: { song_name: 'Faint' } });
    expect(prepared.fingerprint.workflowSha256).toBe(sha256(read));
    expect(prepared.fingerprint.workflowSha256).not.toBe(sha256(await readFile(file)));
  });
});
