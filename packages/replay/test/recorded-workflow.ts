/**
 * A workflow with a recording, made in a test the way `mime record` and `mime reflect` make one: the
 * acts are performed on a fake desktop, each PRE frame captured and saved as the recorder saves it
 * (screenshots/<N>.png), one manifest.jsonl line an event, and schema.json with a step per act
 * pointing back at its event.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { encodePng, type LogicalPoint } from '@mime-desktop/os-io';
import { type AccessibleElement, identityOf, type TaskParam } from '@mime-desktop/schema';
import type { Box } from '@mime-desktop/vision';
import type { FakeDesktop } from './fake-desktop.ts';

/** One recorded act: the input the person gave (or a value read), with what its step says. */
export type RecordedAct = {
  intent: string;
  /** The element the act was on, as the recorder read it (its text after a typing burst). */
  element?: AccessibleElement;
} & (
  | { click: LogicalPoint; box: Box }
  /** `type` is the recorded text, `value` the step's action_value (a `{param}` template). */
  | { type: string; value: string }
  | { key: string }
  /** `extract` is the query, `values` the example values the person marked. */
  | { extract: string; variable: string; values: string[] }
);

export interface RecordedSubtask {
  text: string;
  dependencies?: string[];
  acts: RecordedAct[];
}

const ACTION_TYPES = { click: 'CLICK', type: 'TYPE', key: 'KEYPRESS', extract: 'EXTRACT' } as const;

function eventOf(act: RecordedAct): { action_type: string; action_details: Record<string, unknown> } {
  return { ...detailsOf(act), ...(act.element && { element: act.element }) };
}

function detailsOf(act: RecordedAct): { action_type: string; action_details: Record<string, unknown> } {
  if ('click' in act) return { action_type: 'click', action_details: { button: 'left', ...act.click } };
  if ('type' in act) return { action_type: 'type', action_details: { text: act.type, secret: false } };
  if ('key' in act) return { action_type: 'key', action_details: { key: act.key } };
  return { action_type: 'extract', action_details: { query: act.extract, values: act.values } };
}

function stepOf(act: RecordedAct, i: number, screenshot: string) {
  const kind = 'click' in act ? 'click' : 'type' in act ? 'type' : 'key' in act ? 'key' : 'extract';
  const value = 'type' in act ? act.value : 'key' in act ? act.key : 'extract' in act ? act.extract : null;
  return {
    i,
    expected_current_state: 'the fake player',
    intent: act.intent,
    target: { primary: act.intent, fallback: null, ...(act.element && { element: identityOf(act.element) }) },
    action_type: ACTION_TYPES[kind],
    action_value: value,
    post_action: ['The screen updates.'],
    variable_name: 'variable' in act ? act.variable : null,
    source: {
      event_index: i,
      screenshot,
      point: 'click' in act ? act.click : null,
      end_point: null,
      box: 'box' in act ? act.box : null,
    },
  };
}

/** Records `subtasks` on `desktop` into the workflow folder `dir` (created). */
export async function recordWorkflow(
  dir: string,
  desktop: FakeDesktop,
  workflow: { params: TaskParam[]; subtasks: RecordedSubtask[] },
): Promise<void> {
  await mkdir(join(dir, 'screenshots'), { recursive: true });
  const lines: string[] = [];
  const capture = async (index: number) => {
    const name = `screenshots/${index}.png`;
    await writeFile(join(dir, name), await encodePng(await desktop.captureFrame()));
    return name;
  };
  let index = 0;
  const subtasks = [];
  for (const [subtask_i, subtask] of workflow.subtasks.entries()) {
    const steps = [];
    for (const act of subtask.acts) {
      const screenshot = await capture(index);
      lines.push(
        JSON.stringify({ ...eventOf(act), screenshot, timestamp: 1_795_000_000 + index, details: null }),
      );
      steps.push(stepOf(act, index, screenshot));
      if ('click' in act) await desktop.click(act.click);
      else if ('type' in act) await desktop.typeText(act.type);
      else if ('key' in act) await desktop.pressKey(act.key);
      index += 1;
    }
    subtasks.push({ subtask_i, text: subtask.text, dependencies: subtask.dependencies ?? [], steps });
  }
  const end = await capture(index);
  lines.push(
    JSON.stringify({
      action_type: null,
      action_details: {},
      screenshot: end,
      timestamp: 1_795_000_100,
      details: null,
    }),
  );
  await writeFile(join(dir, 'manifest.jsonl'), `${lines.join('\n')}\n`);
  const schema = {
    version: 2,
    task_name: 'fake player',
    task_description_user: 'Play a song in the fake player and note its artist.',
    detailed_task_description: 'Play a song in the fake player and note its artist.',
    task_params: workflow.params,
    success_criteria: 'The artist of the song is noted.',
    plan: { subtasks },
  };
  await writeFile(join(dir, 'schema.json'), `${JSON.stringify(schema, null, 2)}\n`);
}
