/**
 * A step made from a recorded event, on the real fixture workflow and its copy of the recording: the
 * events no step uses are listed with their frames and what they did, and adding one restores the step
 * reflect made of it (its source, so trace replays it), which passes the schema's own checks.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkWorkflow, type Workflow } from '@mime-desktop/schema';
import { useTempDirs } from '@mime-desktop/test-support/e2e-rig';
import { describe, expect, it } from 'vitest';
import { StudioEditError } from '../src/edit-error.ts';
import { deleteStep } from '../src/plan-edits.ts';
import { NoRecordingError, recordedSteps, unusedEvents } from '../src/recorded-events.ts';
import { applyEdit } from '../src/workflow-edits.ts';

const FOLDER = fileURLToPath(new URL('../../../fixtures/workflows/play-song-recorded/', import.meta.url));

async function fixtureWorkflow(): Promise<Workflow> {
  const checked = checkWorkflow(JSON.parse(await readFile(join(FOLDER, 'schema.json'), 'utf8')));
  if (!checked.ok) throw new Error(JSON.stringify(checked.problems));
  return checked.workflow;
}

const tempDirs = useTempDirs();
const steps = (workflow: Workflow) => workflow.plan.subtasks.flatMap((s) => s.steps);

describe('steps from recorded events', () => {
  it('lists no event while every one has its step, and the one a deleted step used', async () => {
    const workflow = await fixtureWorkflow();
    const recorded = await recordedSteps(FOLDER, 'play-song');
    expect(unusedEvents(workflow, recorded)).toEqual([]);
    const play = steps(workflow).find((s) => s.source?.event_index === 3);
    const without = deleteStep(workflow, play?.i ?? -1);
    expect(unusedEvents(without, recorded)).toEqual([
      expect.objectContaining({
        event_index: 3,
        did: 'click at (562, 194)',
        screenshot: 'screenshots/3.png',
        step: expect.objectContaining({ action_type: 'CLICK', source: play?.source }),
      }),
    ]);
  });

  it('adds the step back where asked, with its source, and the workflow checks', async () => {
    const workflow = await fixtureWorkflow();
    const recorded = await recordedSteps(FOLDER, 'play-song');
    const play = steps(workflow).find((s) => s.source?.event_index === 3);
    const without = deleteStep(workflow, play?.i ?? -1);
    const subtask = workflow.plan.subtasks.find((s) => s.steps.includes(play as never));
    const after = play && play.i > (subtask?.steps[0]?.i ?? 0) ? play.i - 1 : null;
    const edit = {
      kind: 'add-recorded-step',
      subtask_i: subtask?.subtask_i ?? -1,
      after,
      event_index: 3,
    } as const;
    const restored = applyEdit(without, edit, recorded);
    const added = steps(restored).find((s) => s.source?.event_index === 3);
    expect(added?.i).toBe(play?.i);
    expect(added?.source).toEqual(play?.source);
    expect(added?.intent).toMatch(/^Click /);
    expect(steps(restored).map((s) => s.source?.event_index)).toEqual(
      steps(workflow).map((s) => s.source?.event_index),
    );
    expect(checkWorkflow(JSON.parse(JSON.stringify(restored))).ok).toBe(true);
    expect(unusedEvents(restored, recorded)).toEqual([]);
  });

  it('takes typed text as the step value, and refuses an event in use or one not recorded', async () => {
    const workflow = await fixtureWorkflow();
    const recorded = await recordedSteps(FOLDER, 'play-song');
    expect(recorded.get(1)?.step).toMatchObject({ action_type: 'TYPE', action_value: 'Numb' });
    expect(recorded.get(1)?.did).toBe('type "Numb"');
    const edit = { kind: 'add-recorded-step', subtask_i: 0, after: null } as const;
    expect(() => applyEdit(workflow, { ...edit, event_index: 3 }, recorded)).toThrow(
      /replays recorded event 3 already/,
    );
    expect(() => applyEdit(workflow, { ...edit, event_index: 99 }, recorded)).toThrow(StudioEditError);
    expect(() => applyEdit(workflow, { ...edit, event_index: 99 }, recorded)).toThrow(
      /no action at event 99/,
    );
  });

  it('names a workflow that keeps no recording', async () => {
    const empty = await tempDirs('mime-no-recording-');
    const error = await recordedSteps(empty, 'by-hand').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NoRecordingError);
    expect(error).toMatchObject({
      code: 'MIME_NO_RECORDING',
      message: expect.stringContaining('"by-hand"'),
    });
  });
});
