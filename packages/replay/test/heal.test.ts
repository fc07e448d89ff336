import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  actionOfEvent,
  HEAL_VERSION,
  type HealAction,
  type HealFile,
  ManifestEvent,
  RUN_FILES,
  RUNS_FOLDER,
  Workflow,
} from '@mime-desktop/schema';
import { afterEach, describe, expect, it } from 'vitest';
import { planHeal } from '../src/heal/heal.ts';
import { sha256 } from '../src/kernel/fingerprint.ts';

const FIXTURE = join(import.meta.dirname, '..', '..', '..', 'fixtures', 'workflows', 'play-song-recorded');
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

/** The play-song workflow with a run whose heal.json holds `actions` (subtask 0 traced as recorded). */
async function runWith(agent: Array<Pick<HealAction, 'action'>>): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'mime-heal-unit-'));
  dirs.push(root);
  const workflow = join(root, 'play-song');
  await cp(FIXTURE, workflow, { recursive: true });
  const run = join(workflow, RUNS_FOLDER, 'run-1');
  await mkdir(run, { recursive: true });
  await cp(join(workflow, 'screenshots', '0.png'), join(run, 'frame.png'));
  const traced = [0, 1, 2].map(
    (i): HealAction => ({
      subtask_i: 0,
      step_i: i,
      by: 'trace',
      action: null,
      extract: null,
      frame: 'frame.png',
      note: '',
    }),
  );
  const schema = Workflow.parse(JSON.parse(await readFile(join(workflow, 'schema.json'), 'utf8')));
  const steps = schema.plan.subtasks[0]?.steps ?? [];
  const manifest = (await readFile(join(workflow, 'manifest.jsonl'), 'utf8')).trim().split('\n');
  // Traced steps carry the action they executed: the recorded one.
  for (const action of traced) {
    const event = ManifestEvent.parse(
      JSON.parse(manifest[steps[action.step_i ?? 0]?.source?.event_index ?? 0] ?? '{}'),
    );
    action.action = event.action_type === null ? null : actionOfEvent(event);
  }
  const heal: HealFile = {
    version: HEAL_VERSION,
    run_id: 'run-1',
    created_at: new Date().toISOString(),
    workflow_sha256: sha256(await readFile(join(workflow, 'schema.json'), 'utf8')),
    manifest_sha256: sha256(await readFile(join(workflow, 'manifest.jsonl'))),
    params: { song_name: 'Faint' },
    regrounded: [],
    agent_subtasks: [1],
    actions: [
      ...traced,
      ...agent.map(
        ({ action }): HealAction => ({
          subtask_i: 1,
          step_i: null,
          by: 'agent',
          action,
          extract: null,
          frame: 'frame.png',
          note: 'The agent acted.',
        }),
      ),
    ],
    final_frame: 'frame.png',
  };
  await writeFile(join(run, RUN_FILES.heal), JSON.stringify(heal));
  return run;
}

describe('planHeal', () => {
  it("writes the agent's right and middle clicks back with their buttons, as steps and events", async () => {
    const at = { x: 300, y: 200 };
    const plan = await planHeal(
      await runWith([
        { action: { action: 'right_click', point: at } },
        { action: { action: 'middle_click', point: at } },
        { action: { action: 'double_click', point: at } },
      ]),
    );
    const healed = Workflow.parse(JSON.parse(plan.after));
    expect(healed.plan.subtasks[1]?.steps.map((s) => s.action_type)).toEqual([
      'RIGHT_CLICK',
      'MIDDLE_CLICK',
      'DOUBLE_CLICK',
    ]);
    const events = plan.manifest
      .trim()
      .split('\n')
      .map((line) => ManifestEvent.parse(JSON.parse(line)));
    const agentEvents = healed.plan.subtasks[1]?.steps.map((s) => events[s.source?.event_index ?? -1]) ?? [];
    expect(
      agentEvents.map((e) => [
        e?.action_type,
        (e?.action_details as { button?: string } | undefined)?.button,
      ]),
    ).toEqual([
      ['right_click', 'right'],
      ['middle_click', 'middle'],
      ['double_click', 'left'],
    ]);
    // Replayed from the healed recording, they are the same clicks again.
    expect(agentEvents.map((e) => (e && e.action_type !== null ? actionOfEvent(e)?.action : null))).toEqual([
      'right_click',
      'middle_click',
      'double_click',
    ]);
  });

  it('refuses a heal holding an action no recording can hold, instead of writing it as a click', async () => {
    const run = await runWith([{ action: { action: 'wait', seconds: 1 } }]);
    await expect(planHeal(run)).rejects.toMatchObject({
      code: 'MIME_HEAL_INVALID',
      message: 'heal.json holds an action that cannot be recorded (wait)',
    });
  });
});
