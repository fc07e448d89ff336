/**
 * Heal of a workflow without a recording (hand-written: no manifest.jsonl, no frames, steps without a
 * `source`): the agent's actions become its first recording, manifest events as the recorder writes
 * them and steps whose `source` names their event and PRE frame.
 */
import { access, cp, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  checkWorkflow,
  HEAL_VERSION,
  type HealAction,
  type HealFile,
  ManifestEvent,
  RUN_FILES,
  RUNS_FOLDER,
  serializeWorkflow,
} from '@mime-desktop/schema';
import { copyWorkflow } from '@mime-desktop/test-support/e2e-rig';
import { describe, expect, it } from 'vitest';
import { isUnrecorded } from '../src/heal/collect-heal.ts';
import { applyHeal, planHeal } from '../src/heal/heal.ts';
import { sha256 } from '../src/kernel/fingerprint.ts';

const FRAME = join(
  import.meta.dirname,
  '..',
  '..',
  '..',
  'fixtures',
  'workflows',
  'play-song-recorded',
  'screenshots',
  '0.png',
);

const SEARCH_FIELD = {
  role: 'entry',
  name: 'Search',
  label: null,
  app: 'Chromium',
  window: { role: 'frame', name: 'Demo player' },
  path: [{ role: 'entry', name: 'Search', index: 0 }],
  states: ['focusable'],
  extents: null,
};

/** An agent's action of subtask `subtask_i`, taken on run frame `frame`. */
const agent = (
  subtask_i: number,
  frame: string,
  action: HealAction['action'],
  more: Partial<HealAction> = {},
): HealAction => ({
  subtask_i,
  step_i: null,
  by: 'agent',
  action,
  extract: null,
  frame,
  note: `looked at ${frame}`,
  ...more,
});

/** The play-song workflow without a recording, in ai_mime's layout, and a run the agent did. */
async function unrecordedRun(): Promise<{ workflow: string; run: string }> {
  const workflow = await copyWorkflow('play-song');
  // As ai_mime writes a workflow it reflected (it keeps no recording mime reads), with a field of its own.
  const checked = checkWorkflow(JSON.parse(await readFile(join(workflow, 'schema.json'), 'utf8')));
  if (!checked.ok) throw new Error(JSON.stringify(checked.problems));
  const schema = JSON.parse(serializeWorkflow(checked.workflow, 'ai_mime-v2'));
  schema.plan.subtasks[1].owner_note = 'kept on save';
  await writeFile(join(workflow, 'schema.json'), JSON.stringify(schema, null, 2));
  const run = join(workflow, RUNS_FOLDER, 'run-1');
  await mkdir(run, { recursive: true });
  for (const name of ['a.png', 'b.png', 'c.png', 'final.png']) await cp(FRAME, join(run, name));
  const heal: HealFile = {
    version: HEAL_VERSION,
    run_id: 'run-1',
    created_at: new Date().toISOString(),
    workflow_sha256: sha256(await readFile(join(workflow, 'schema.json'), 'utf8')),
    // A workflow without a recording: the hash of no manifest.
    manifest_sha256: sha256(''),
    params: { song_name: 'Faint' },
    regrounded: [],
    agent_subtasks: [0, 1],
    actions: [
      agent(0, 'a.png', { action: 'left_click', point: { x: 121, y: 121 } }, { element: SEARCH_FIELD }),
      agent(0, 'a.png', { action: 'type', text: 'Faint' }),
      agent(0, 'b.png', { action: 'key', keys: 'enter' }),
      agent(1, 'b.png', { action: 'left_click', point: { x: 561, y: 194 } }),
      agent(1, 'c.png', null, {
        extract: { variable: 'now_playing', query: 'the song playing', value: 'Faint' },
      }),
    ],
    final_frame: 'final.png',
  };
  await writeFile(join(run, RUN_FILES.heal), JSON.stringify(heal));
  return { workflow, run };
}

describe('heal of a workflow without a recording', () => {
  it("turns the agent's actions into manifest events and steps with a source, and writes the first recording", async () => {
    const { workflow, run } = await unrecordedRun();
    const plan = await planHeal(run);
    expect(plan.recorded).toBe(false);
    expect(plan.changes.map((c) => [c.id, c.kind, c.text])).toEqual([
      [
        'subtask-0',
        'agent',
        'Subtask 1: 3 action(s) the agent took are recorded in place of 3 step(s) that had no recording',
      ],
      [
        'subtask-1',
        'agent',
        'Subtask 2: 2 action(s) the agent took are recorded in place of 2 step(s) that had no recording',
      ],
    ]);
    // One frame a distinct run frame, copied in the order first used.
    expect(plan.frames).toEqual([
      { from: 'a.png', to: 'screenshots/heal-run-1/000.png' },
      { from: 'b.png', to: 'screenshots/heal-run-1/001.png' },
      { from: 'c.png', to: 'screenshots/heal-run-1/002.png' },
      { from: 'final.png', to: 'screenshots/heal-run-1/003.png' },
    ]);

    const events = plan.manifest
      .trim()
      .split('\n')
      .map((line) => ManifestEvent.parse(JSON.parse(line)));
    expect(events.map((e) => [e.action_type, e.action_details, e.screenshot])).toEqual([
      ['click', { button: 'left', x: 121, y: 121 }, 'screenshots/heal-run-1/000.png'],
      ['type', { text: 'Faint', secret: false }, 'screenshots/heal-run-1/000.png'],
      ['key', { key: 'enter' }, 'screenshots/heal-run-1/001.png'],
      ['click', { button: 'left', x: 561, y: 194 }, 'screenshots/heal-run-1/001.png'],
      ['extract', { query: 'the song playing', values: ['Faint'] }, 'screenshots/heal-run-1/002.png'],
      [null, {}, 'screenshots/heal-run-1/003.png'],
    ]);
    expect(events[0]?.element).toEqual(SEARCH_FIELD);
    expect(events.map((e) => e.timestamp)).toEqual([...events.map((e) => e.timestamp)].sort());

    const after = checkWorkflow(JSON.parse(plan.after));
    if (!after.ok) throw new Error(JSON.stringify(after.problems));
    const healed = after.workflow;
    const steps = healed.plan.subtasks.flatMap((s) => s.steps);
    expect(steps.map((s) => [s.i, s.action_type, s.action_value, s.variable_name])).toEqual([
      [0, 'CLICK', null, null],
      [1, 'TYPE', '{song_name}', null],
      [2, 'KEYPRESS', 'enter', null],
      [3, 'CLICK', null, null],
      [4, 'EXTRACT', 'the song playing', 'now_playing'],
    ]);
    expect(steps.map((s) => [s.source?.event_index, s.source?.screenshot, s.source?.point])).toEqual([
      [0, 'screenshots/heal-run-1/000.png', { x: 121, y: 121 }],
      [1, 'screenshots/heal-run-1/000.png', null],
      [2, 'screenshots/heal-run-1/001.png', null],
      [3, 'screenshots/heal-run-1/001.png', { x: 561, y: 194 }],
      [4, 'screenshots/heal-run-1/002.png', null],
    ]);
    expect(steps[0]?.target.element).toEqual(SEARCH_FIELD);
    expect(steps[0]?.source?.box).toMatchObject({ width: expect.any(Number), height: expect.any(Number) });
    // The field mime does not read is written back.
    expect(JSON.parse(plan.after).plan.subtasks[1].owner_note).toBe('kept on save');
    // The diff names the new steps and their frames.
    expect(plan.diff).toMatch(/^\+.*"intent": "type \\"Faint\\", as the agent did it in run run-1"/m);
    expect(plan.diff).toMatch(/^\+.*"screenshot": "screenshots\/heal-run-1\/002\.png"/m);

    const { backup } = await applyHeal(plan);
    expect(await readFile(backup, 'utf8')).toBe(plan.before);
    expect(await readFile(join(workflow, 'manifest.jsonl'), 'utf8')).toBe(plan.manifest);
    expect(await readFile(join(workflow, 'schema.json'), 'utf8')).toBe(plan.after);
    expect((await readdir(join(workflow, 'screenshots', 'heal-run-1'))).sort()).toEqual([
      '000.png',
      '001.png',
      '002.png',
      '003.png',
    ]);
    // There was no manifest to keep a copy of.
    expect((await readdir(workflow)).filter((f) => f.startsWith('manifest.'))).toEqual(['manifest.jsonl']);
    // The heal's hashes no longer match: the same run cannot be applied twice.
    await expect(planHeal(run)).rejects.toMatchObject({ code: 'MIME_HEAL_CONFLICT' });
    await access(join(workflow, 'screenshots', 'heal-run-1', '000.png'));
  });

  it('knows a workflow without a recording until it is healed', async () => {
    const { workflow, run } = await unrecordedRun();
    const read = async () => {
      const checked = checkWorkflow(JSON.parse(await readFile(join(workflow, 'schema.json'), 'utf8')));
      if (!checked.ok) throw new Error(JSON.stringify(checked.problems));
      return checked.workflow;
    };
    const before = await read();
    // An agent run of it learns a heal (run-modes' AGENT); once healed, it has a recording.
    expect(isUnrecorded(before)).toBe(true);
    await applyHeal(await planHeal(run));
    const after = await read();
    expect(isUnrecorded(after)).toBe(false);
  });

  it('does not overwrite a recording that appeared after the heal was planned', async () => {
    const { workflow, run } = await unrecordedRun();
    const plan = await planHeal(run);
    await writeFile(join(workflow, 'manifest.jsonl'), '');
    await expect(applyHeal(plan)).rejects.toMatchObject({
      code: 'MIME_HEAL_CONFLICT',
      message: expect.stringContaining('changed while the heal was prepared'),
    });
    expect(await readFile(join(workflow, 'manifest.jsonl'), 'utf8')).toBe('');
    expect(await readFile(join(workflow, 'schema.json'), 'utf8')).toBe(plan.before);
  });
});
