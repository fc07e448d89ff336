import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  type ActionManifestEvent,
  actionOfEvent,
  EVENT_TYPE_OF_STEP,
  eventOfAction,
  loadWorkflow,
  POINTER_STEP_TYPES,
  RECORDED_ACTION_TYPES,
  RUN_ACTIONS,
  RunAction,
  readManifest,
  STEP_ACTION_TYPES,
  STEP_TYPE_OF_EVENT,
  stepTypeOfAction,
} from '../src/index.ts';

const FIXTURES = join(import.meta.dirname, '..', '..', '..', 'fixtures');

/** Every manifest in fixtures/: recordings, workflows and ai_mime's own. */
async function manifests(): Promise<string[]> {
  const found = [join(FIXTURES, 'compat', 'ai_mime', 'manifest.jsonl')];
  for (const kind of ['recordings', 'workflows']) {
    for (const name of await readdir(join(FIXTURES, kind))) {
      // A hand-written workflow (play-song) has no recording beside it.
      const file = join(FIXTURES, kind, name, 'manifest.jsonl');
      if (existsSync(file)) found.push(file);
    }
  }
  return found;
}

const actionEvents = async (file: string) =>
  (await readManifest(file)).flatMap(({ event }) =>
    event.action_type === null ? [] : [event as ActionManifestEvent],
  );

describe('the action vocabulary', () => {
  it('reads the run actions off the RunAction schema, in its order', () => {
    expect(RUN_ACTIONS).toEqual([
      'left_click',
      'double_click',
      'right_click',
      'middle_click',
      'mouse_move',
      'left_click_drag',
      'type',
      'key',
      'scroll',
      'wait',
    ]);
    // Each is the schema's own: a bare one fails on its missing fields, never on its name.
    for (const action of RUN_ACTIONS) {
      const issues = RunAction.safeParse({ action }).error?.issues ?? [];
      expect(issues.length, action).toBeGreaterThan(0);
      expect(issues.map((i) => i.path[0])).not.toContain('action');
    }
  });

  it('lists the pointer step types once: the steps that act at a point and type no value', () => {
    expect([...POINTER_STEP_TYPES].sort()).toEqual(
      STEP_ACTION_TYPES.filter((t) => !['TYPE', 'KEYPRESS', 'EXTRACT'].includes(t)).sort(),
    );
  });

  it('maps event and step types both ways, one to one', () => {
    for (const type of RECORDED_ACTION_TYPES) expect(EVENT_TYPE_OF_STEP[STEP_TYPE_OF_EVENT[type]]).toBe(type);
    for (const type of STEP_ACTION_TYPES) expect(STEP_TYPE_OF_EVENT[EVENT_TYPE_OF_STEP[type]]).toBe(type);
  });

  it('takes every fixture event to a step, an action and back to the same event, buttons included', async () => {
    let checked = 0;
    for (const file of await manifests()) {
      for (const event of await actionEvents(file)) {
        const step = STEP_TYPE_OF_EVENT[event.action_type];
        const action = actionOfEvent(event);
        if (event.action_type === 'extract') {
          expect(action).toBeNull();
          continue;
        }
        if (!action) throw new Error(`${file}: no action for ${event.action_type}`);
        expect(stepTypeOfAction(action), file).toBe(step);
        const back = eventOfAction(action);
        const { unresolved: _unresolved, ...details } = event.action_details as Record<string, unknown>;
        expect(back, `${file}: ${JSON.stringify(event.action_details)}`).toEqual({
          action_type: event.action_type,
          action_details: details,
        });
        checked += 1;
      }
    }
    expect(checked).toBeGreaterThan(10);
  });

  it('gives each workflow step the type of the event it was recorded from', async () => {
    for (const name of await readdir(join(FIXTURES, 'workflows'))) {
      const dir = join(FIXTURES, 'workflows', name);
      if (!existsSync(join(dir, 'manifest.jsonl'))) continue;
      const { workflow } = await loadWorkflow(dir);
      const events = await readManifest(join(dir, 'manifest.jsonl'));
      for (const step of workflow.plan.subtasks.flatMap((s) => s.steps)) {
        const index = step.source?.event_index;
        if (index === undefined) continue;
        const event = events[index]?.event;
        expect(event?.action_type, `${name} step ${step.i}`).toBe(EVENT_TYPE_OF_STEP[step.action_type]);
      }
    }
  });

  it('keeps the button of right and middle clicks, and writes nothing for a move or a wait', () => {
    const at = { x: 10, y: 20 };
    expect(eventOfAction({ action: 'right_click', point: at })).toEqual({
      action_type: 'right_click',
      action_details: { button: 'right', ...at },
    });
    expect(eventOfAction({ action: 'middle_click', point: at })?.action_details).toMatchObject({
      button: 'middle',
    });
    expect(eventOfAction({ action: 'mouse_move', point: at })).toBeNull();
    expect(stepTypeOfAction({ action: 'wait', seconds: 1 })).toBeNull();
  });
});
