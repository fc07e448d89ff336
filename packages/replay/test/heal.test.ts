import { cp, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  actionOfEvent,
  checkWorkflow,
  HEAL_VERSION,
  type HealAction,
  type HealFile,
  ManifestEvent,
  RUN_FILES,
  RUNS_FOLDER,
  type SourceWindow,
  serializeWorkflow,
  typedRunEvent,
  Workflow,
} from '@mime-desktop/schema';
import { aiMimeValidationError } from '@mime-desktop/test-support/ai-mime-validator';
import { copyWorkflow } from '@mime-desktop/test-support/e2e-rig';
import { describe, expect, it } from 'vitest';
import { collectHeal } from '../src/heal/collect-heal.ts';
import { planHeal } from '../src/heal/heal.ts';
import { sha256 } from '../src/kernel/fingerprint.ts';

const FIXTURE = join(import.meta.dirname, '..', '..', '..', 'fixtures', 'workflows', 'play-song-recorded');

/** The play-song workflow with a run whose heal.json holds `actions` (subtask 0 traced as recorded). */
async function runWith(
  agent: Array<Pick<HealAction, 'action'>>,
  options: { moved?: number; aiMime?: boolean; window?: SourceWindow } = {},
): Promise<string> {
  const workflow = await copyWorkflow('play-song-recorded', undefined, { as: 'play-song' });
  if (options.aiMime) {
    // The same workflow as ai_mime's compiler would write it (its extract named as ai_mime names them).
    const text = (await readFile(join(workflow, 'schema.json'), 'utf8')).replaceAll(
      'song_now_playing',
      'extract_0',
    );
    const checked = checkWorkflow(JSON.parse(text));
    if (!checked.ok) throw new Error(JSON.stringify(checked.problems));
    await writeFile(join(workflow, 'schema.json'), serializeWorkflow(checked.workflow, 'ai_mime-v2'));
  }
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
  const checked = checkWorkflow(JSON.parse(await readFile(join(workflow, 'schema.json'), 'utf8')));
  if (!checked.ok) throw new Error(JSON.stringify(checked.problems));
  const steps = checked.workflow.plan.subtasks[0]?.steps ?? [];
  const manifest = (await readFile(join(workflow, 'manifest.jsonl'), 'utf8')).trim().split('\n');
  // Traced steps carry the action they executed: the recorded one.
  for (const action of traced) {
    const event = ManifestEvent.parse(
      JSON.parse(manifest[steps[action.step_i ?? 0]?.source?.event_index ?? 0] ?? '{}'),
    );
    action.action = event.action_type === null ? null : actionOfEvent(event);
  }
  // A step re-found 40x24 px away from where it was recorded.
  const moved = traced.find((a) => a.step_i === options.moved);
  if (moved?.action && 'point' in moved.action && moved.action.point) {
    moved.by = 'regrounded';
    moved.action = { ...moved.action, point: { x: moved.action.point.x + 40, y: moved.action.point.y + 24 } };
    if (options.window) moved.window = options.window;
  }
  const heal: HealFile = {
    version: HEAL_VERSION,
    run_id: 'run-1',
    created_at: new Date().toISOString(),
    workflow_sha256: sha256(await readFile(join(workflow, 'schema.json'), 'utf8')),
    manifest_sha256: sha256(await readFile(join(workflow, 'manifest.jsonl'))),
    params: { song_name: 'Faint' },
    regrounded: options.moved === undefined ? [] : [options.moved],
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
  it("writes a workflow that came in ai_mime's layout back in it, still valid for ai_mime", async () => {
    const at = { x: 300, y: 200 };
    const plan = await planHeal(
      await runWith([{ action: { action: 'left_click', point: at } }], { aiMime: true }),
    );
    const before = JSON.parse(plan.before);
    const after = JSON.parse(plan.after);
    expect(aiMimeValidationError(before)).toBeNull();
    expect(aiMimeValidationError(after)).toBeNull();
    expect(after.version).toBeUndefined();
    // Subtask 0 as it was (its frames the run's); subtask 1's steps are the agent's click, numbered from 0.
    const unframed = (subtask: { steps: Array<Record<string, unknown>> }) =>
      subtask.steps.map(({ source: _source, ...step }) => step);
    expect(unframed(after.plan.subtasks[0])).toEqual(unframed(before.plan.subtasks[0]));
    expect(after.plan.subtasks[1].steps).toEqual([
      expect.objectContaining({ i: 0, action_type: 'CLICK', action_value: null, additional_args: {} }),
    ]);
  });

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

  it("keeps the window a re-found step's target was in, at its place on the run's screen", async () => {
    const window: SourceWindow = {
      title: 'Player',
      classes: ['player', 'Player'],
      box: { x: 150, y: 90, width: 800, height: 600 },
    };
    // What the run's step event says reaches the heal file...
    const step = typedRunEvent({
      time: new Date().toISOString(),
      type: 'step',
      subtask_i: 0,
      iteration: 1,
      data: {
        step_i: 0,
        executed_by: 'regrounded',
        reason: 'found in its window',
        action: { action: 'left_click', point: { x: 190, y: 114 } },
        description: 'click',
        screenshot: 'frame.png',
        score: 0.97,
        window,
      },
    });
    if (!step) throw new Error('the step event does not fit its schema');
    const context = { runId: 'run-1', workflowSha256: '', manifestSha256: '', params: {} };
    expect(collectHeal([step], context)?.actions[0]?.window).toEqual(window);
    // ...and from it, the healed step and its event: the recorded window's frame no longer frames the new place.
    const click = [{ action: { action: 'left_click' as const, point: { x: 300, y: 200 } } }];
    const run = await runWith(click, { moved: 0, window });
    const plan = await planHeal(run);
    const healed = Workflow.parse(JSON.parse(plan.after)).plan.subtasks[0]?.steps[0];
    expect(healed?.source?.window).toEqual(window);
    const events = plan.manifest
      .trim()
      .split('\n')
      .map((line) => ManifestEvent.parse(JSON.parse(line)));
    expect(events[healed?.source?.event_index ?? -1]?.window).toEqual(window);
    // A heal that does not know the live window drops the recorded one rather than keep a stale frame.
    const unknown = await planHeal(await runWith(click, { moved: 0 }));
    expect(
      Workflow.parse(JSON.parse(unknown.after)).plan.subtasks[0]?.steps[0]?.source?.window,
    ).toBeUndefined();
  });

  it('refuses a heal holding an action no recording can hold, instead of writing it as a click', async () => {
    const run = await runWith([{ action: { action: 'wait', seconds: 1 } }]);
    await expect(planHeal(run)).rejects.toMatchObject({
      code: 'MIME_HEAL_INVALID',
      message: 'heal.json holds an action that cannot be recorded (wait)',
    });
  });

  it('leaves out a rejected change: that subtask keeps its recorded steps and events', async () => {
    const at = { x: 300, y: 200 };
    const run = await runWith([{ action: { action: 'right_click', point: at } }], { moved: 0 });
    const original = Workflow.parse(JSON.parse(await readFile(join(FIXTURE, 'schema.json'), 'utf8')));
    const eventsOf = (manifest: string) =>
      manifest
        .trim()
        .split('\n')
        .map((line) => ManifestEvent.parse(JSON.parse(line)));
    const recorded = eventsOf(await readFile(join(FIXTURE, 'manifest.jsonl'), 'utf8'));
    const was = original.plan.subtasks[0]?.steps[0]?.source?.point ?? { x: 0, y: 0 };
    const now = { x: was.x + 40, y: was.y + 24 };

    const all = await planHeal(run);
    expect(all.changes.map((c) => [c.id, c.kind, c.before.length, c.after.length])).toEqual([
      ['subtask-0', 'moved', 1, 1],
      ['subtask-1', 'agent', original.plan.subtasks[1]?.steps.length, 1],
    ]);
    expect(all.changes[0]?.text).toMatch(/^Step 1 \(.*\) is found at its new place$/);
    expect(all.changes[0]?.before[0]).toMatchObject({ in: 'workflow', point: was });
    expect(all.changes[0]?.after[0]).toMatchObject({ in: 'run', screenshot: 'frame.png', point: now });
    expect(all.changes[1]?.after[0]).toMatchObject({ action_type: 'RIGHT_CLICK', in: 'run', point: at });
    expect(all.rejected).toEqual([]);

    /** The steps of subtask `k` without their numbers, and the events they name (without times). */
    const stepsOf = (workflow: Workflow, events: ManifestEvent[], k: number) =>
      (workflow.plan.subtasks[k]?.steps ?? []).map(({ i: _i, source, ...step }) => {
        const { timestamp: _t, ...event } = events[source?.event_index ?? -1] ?? {};
        return { ...step, screenshot: source?.screenshot, point: source?.point, event };
      });

    // Subtask 1 rejected: its recorded steps and events come back; subtask 0 is from the run.
    const kept = await planHeal(run, { reject: ['subtask-1'] });
    expect(kept.rejected).toEqual(['subtask-1']);
    const healed = Workflow.parse(JSON.parse(kept.after));
    expect(stepsOf(healed, eventsOf(kept.manifest), 1)).toEqual(stepsOf(original, recorded, 1));
    expect(healed.plan.subtasks[0]?.steps[0]?.source?.point).toEqual(now);
    // Each subtask's last step is followed by a screen of its own: the run's after subtask 0, the
    // recording's at the end (after the kept subtask 1).
    const keptEvents = eventsOf(kept.manifest);
    const afterFirst = keptEvents[(healed.plan.subtasks[0]?.steps.at(-1)?.source?.event_index ?? -2) + 1];
    expect(afterFirst?.screenshot).toMatch(/^screenshots\/heal-run-1\//);
    expect(keptEvents.at(-1)).toMatchObject({ action_type: null, screenshot: recorded.at(-1)?.screenshot });

    // Subtask 0 rejected: the moved step keeps its recorded place and frame; the agent's subtask is written.
    const stay = await planHeal(run, { reject: ['subtask-0'] });
    const stayed = Workflow.parse(JSON.parse(stay.after));
    expect(stepsOf(stayed, eventsOf(stay.manifest), 0)).toEqual(stepsOf(original, recorded, 0));
    expect(stayed.plan.subtasks[1]?.steps.map((s) => s.action_type)).toEqual(['RIGHT_CLICK']);
    // The kept subtask's last step is followed by the screen that followed it when it was recorded.
    const stayEvents = eventsOf(stay.manifest);
    const lastKept = stayed.plan.subtasks[0]?.steps.at(-1)?.source?.event_index ?? -2;
    const lastRecorded = original.plan.subtasks[0]?.steps.at(-1)?.source?.event_index ?? -2;
    expect(stayEvents[lastKept + 1]).toMatchObject({
      action_type: null,
      screenshot: recorded[lastRecorded + 1]?.screenshot,
    });

    await expect(planHeal(run, { reject: ['subtask-0', 'subtask-1'] })).rejects.toMatchObject({
      code: 'MIME_HEAL_NOTHING',
    });
    await expect(planHeal(run, { reject: ['step-0'] })).rejects.toMatchObject({
      code: 'MIME_HEAL_INVALID',
      message: 'this heal has no change step-0; its changes are subtask-0, subtask-1',
    });
  });
});
