/**
 * "Make this a param" on the real fixture workflow, made literal first: the typed value becomes the
 * `{name}` template and a `task_params` entry, every text that said the value says the template, and
 * the result passes the schema's own checks.
 */
import { readFile } from 'node:fs/promises';
import { checkWorkflow, type Workflow } from '@mime-desktop/schema';
import { describe, expect, it } from 'vitest';
import { StudioEditError } from '../src/edit-error.ts';
import {
  addStep,
  addSubtask,
  deleteStep,
  deleteSubtask,
  duplicateStep,
  duplicateSubtask,
  moveStep,
  moveSubtask,
} from '../src/plan-edits.ts';
import {
  addDependency,
  addParam,
  deleteParam,
  makeParam,
  removeDependency,
  renameParam,
  setParam,
  setStep,
  setSubtaskText,
  setWorkflow,
  upstreamExtracts,
} from '../src/workflow-edits.ts';

const FIXTURE = new URL('../../../fixtures/workflows/play-song-recorded/schema.json', import.meta.url);

/** The fixture as a reflect without params would have made it: "Numb" typed literally. */
async function literalWorkflow(): Promise<Workflow> {
  const text = (await readFile(FIXTURE, 'utf8')).replaceAll('{song_name}', 'Numb');
  const document = JSON.parse(text);
  document.task_params = [];
  const checked = checkWorkflow(document);
  if (!checked.ok) throw new Error(JSON.stringify(checked.problems));
  return checked.workflow;
}

const typingStep = (workflow: Workflow) =>
  workflow.plan.subtasks.flatMap((s) => s.steps).find((s) => s.action_type === 'TYPE');

describe('makeParam', () => {
  it('turns the typed value into a param, its template and every mention of it', async () => {
    const workflow = await literalWorkflow();
    const step = typingStep(workflow);
    expect(step?.action_value).toBe('Numb');
    const made = makeParam(workflow, { step_i: step?.i ?? -1, name: 'song' });
    expect(made.task_params).toEqual([
      expect.objectContaining({ name: 'song', example: 'Numb', sensitive: false, optional: false }),
    ]);
    expect(typingStep(made)?.action_value).toBe('{song}');
    const texts = JSON.stringify(made.plan.subtasks.map((s) => s.text));
    expect(texts).toContain('{song}');
    expect(texts).not.toMatch(/\bNumb\b/);
    const checked = checkWorkflow(JSON.parse(JSON.stringify(made)));
    expect(checked.ok ? [] : checked.problems).toEqual([]);
    // The input is not changed.
    expect(typingStep(workflow)?.action_value).toBe('Numb');
  });

  it('keeps a secret out of the file: no example', async () => {
    const workflow = await literalWorkflow();
    const made = makeParam(workflow, {
      step_i: typingStep(workflow)?.i ?? -1,
      name: 'password',
      sensitive: true,
    });
    expect(made.task_params[0]).toMatchObject({ name: 'password', sensitive: true, example: null });
    expect(JSON.stringify(made)).not.toMatch(/\bNumb\b/);
  });

  it('replaces whole words only, never inside another word or template', async () => {
    const workflow = await literalWorkflow();
    const step = typingStep(workflow);
    const edited: Workflow = {
      ...workflow,
      success_criteria: 'Numb plays; Numbness and {Numb} stay',
    };
    const made = makeParam(edited, { step_i: step?.i ?? -1, name: 'song' });
    expect(made.success_criteria).toBe('{song} plays; Numbness and {Numb} stay');
  });

  it('refuses a bad name, a taken name, a step that types nothing, a template, and no such step', async () => {
    const workflow = await literalWorkflow();
    const i = typingStep(workflow)?.i ?? -1;
    const click = workflow.plan.subtasks.flatMap((s) => s.steps).find((s) => s.action_type === 'CLICK');
    expect(() => makeParam(workflow, { step_i: i, name: '2song' })).toThrow(/cannot name a param/);
    const made = makeParam(workflow, { step_i: i, name: 'song' });
    expect(() => makeParam(made, { step_i: i, name: 'song' })).toThrow(/already has a param named song/);
    expect(() => makeParam(made, { step_i: i, name: 'other' })).toThrow(/already types a template/);
    expect(() => makeParam(workflow, { step_i: click?.i ?? -1, name: 'x' })).toThrow(/types no text/);
    expect(() => makeParam(workflow, { step_i: 99, name: 'x' })).toThrow(StudioEditError);
  });
});

/** The demo workflow as shipped: `{song_name}` a param, the song playing extracted in the last subtask. */
async function demoWorkflow(): Promise<Workflow> {
  const checked = checkWorkflow(JSON.parse(await readFile(FIXTURE, 'utf8')));
  if (!checked.ok) throw new Error(JSON.stringify(checked.problems));
  return checked.workflow;
}

/** The demo with a third subtask that could use what the second extracts. */
async function withThirdSubtask(): Promise<Workflow> {
  const workflow = await demoWorkflow();
  const third = { subtask_i: 2, text: 'Say which song is playing.', dependencies: [], steps: [] };
  return { ...workflow, plan: { ...workflow.plan, subtasks: [...workflow.plan.subtasks, third] } };
}

describe('renameParam and deleteParam', () => {
  it('renames a param and every template of it', async () => {
    const renamed = renameParam(await demoWorkflow(), 'song_name', 'title');
    expect(renamed.task_params.map((p) => p.name)).toEqual(['title']);
    const text = JSON.stringify(renamed);
    expect(text).not.toContain('{song_name}');
    expect(text).toContain('{title}');
    const checked = checkWorkflow(JSON.parse(text));
    expect(checked.ok ? [] : checked.problems).toEqual([]);
  });

  it('deletes a param, its templates saying its example again', async () => {
    const deleted = deleteParam(await demoWorkflow(), 'song_name');
    expect(deleted.task_params).toEqual([]);
    expect(JSON.stringify(deleted)).not.toContain('{song_name}');
    expect(typingStep(deleted)?.action_value).toBe('Numb');
    const checked = checkWorkflow(JSON.parse(JSON.stringify(deleted)));
    expect(checked.ok ? [] : checked.problems).toEqual([]);
  });

  it('refuses to delete a used param without an example, and names that are not there or taken', async () => {
    const workflow = await demoWorkflow();
    const secret = {
      ...workflow,
      task_params: workflow.task_params.map((p) => ({ ...p, sensitive: true, example: null })),
    };
    expect(() => deleteParam(secret, 'song_name')).toThrow(/has no example to type in its place/);
    expect(() => renameParam(workflow, 'nope', 'x')).toThrow(/no param named nope/);
    const literal = await literalWorkflow();
    const withA = makeParam(literal, { step_i: typingStep(literal)?.i ?? -1, name: 'a' });
    expect(() => renameParam(withA, 'a', 'a')).toThrow(/already has a param named a/);
  });
});

describe('dependencies', () => {
  it('offers only what earlier subtasks extract, and adds and removes it', async () => {
    const workflow = await withThirdSubtask();
    expect(upstreamExtracts(workflow, 0)).toEqual([]);
    expect(upstreamExtracts(workflow, 2)).toEqual(['song_now_playing']);
    const added = addDependency(workflow, 2, 'song_now_playing');
    expect(added.plan.subtasks[2]?.dependencies).toEqual(['song_now_playing']);
    const checked = checkWorkflow(JSON.parse(JSON.stringify(added)));
    expect(checked.ok ? [] : checked.problems).toEqual([]);
    expect(removeDependency(added, 2, 'song_now_playing').plan.subtasks[2]?.dependencies).toEqual([]);
  });

  it('refuses a variable no earlier subtask extracts, a repeat, and no such subtask', async () => {
    const workflow = await withThirdSubtask();
    expect(() => addDependency(workflow, 1, 'song_now_playing')).toThrow(
      /can use only what an earlier subtask extracts \(none does\), not song_now_playing/,
    );
    const added = addDependency(workflow, 2, 'song_now_playing');
    expect(() => addDependency(added, 2, 'song_now_playing')).toThrow(/uses song_now_playing already/);
    expect(() => addDependency(workflow, 9, 'x')).toThrow(/no subtask 10/);
  });
});

describe('setParam and setSubtaskText', () => {
  it("changes a param's example and flags; a secret keeps no example", async () => {
    const workflow = await demoWorkflow();
    expect(setParam(workflow, 'song_name', { example: 'Faint' }).task_params[0]).toMatchObject({
      example: 'Faint',
    });
    const secret = setParam(workflow, 'song_name', { sensitive: true, example: null });
    expect(secret.task_params[0]).toMatchObject({ sensitive: true, example: null });
    expect(() => setParam(workflow, 'song_name', { sensitive: true })).toThrow(
      /is sensitive: its value is never stored/,
    );
    const checked = checkWorkflow(JSON.parse(JSON.stringify(secret)));
    expect(checked.ok ? [] : checked.problems).toEqual([]);
  });

  it("replaces a subtask's text, and refuses an empty one; a template of no param fails the schema's check", async () => {
    const workflow = await demoWorkflow();
    const edited = setSubtaskText(workflow, 0, 'Find {song_name}. Expected outcome: it is listed.');
    expect(edited.plan.subtasks[0]?.text).toBe('Find {song_name}. Expected outcome: it is listed.');
    expect(() => setSubtaskText(workflow, 0, '  ')).toThrow(/needs a text/);
    const unknown = setSubtaskText(workflow, 0, 'Find {artist}.');
    const checked = checkWorkflow(JSON.parse(JSON.stringify(unknown)));
    expect(checked.ok).toBe(false);
  });
});

/** The fixture as it is: subtask 0 searches (click, type {song_name}, enter), subtask 1 plays and extracts. */
async function fixtureWorkflow(): Promise<Workflow> {
  const checked = checkWorkflow(JSON.parse(await readFile(FIXTURE, 'utf8')));
  if (!checked.ok) throw new Error(JSON.stringify(checked.problems));
  return checked.workflow;
}

const shape = (workflow: Workflow) =>
  workflow.plan.subtasks.map((s) => [s.subtask_i, s.steps.map((x) => [x.i, x.action_type])]);

describe('step and subtask edits', () => {
  it("changes a step's intent, target, value and expected outcome, and refuses an empty one", async () => {
    const workflow = await fixtureWorkflow();
    const typing = typingStep(workflow);
    const changed = setStep(workflow, typing?.i ?? -1, {
      intent: 'Type the song to look for',
      target: 'the search field at the top',
      action_value: '{song_name} live',
      expected: ['The field shows the song.', '  ', 'Nothing else changed.'],
    });
    const now = typingStep(changed);
    expect(now).toMatchObject({
      intent: 'Type the song to look for',
      target: { primary: 'the search field at the top', fallback: typing?.target.fallback },
      action_value: '{song_name} live',
      post_action: ['The field shows the song.', 'Nothing else changed.'],
      source: typing?.source,
    });
    expect(checkWorkflow(changed).ok).toBe(true);
    expect(() => setStep(workflow, typing?.i ?? -1, { action_value: ' ' })).toThrow(
      'needs a value: the text it types',
    );
    expect(() => setStep(workflow, 0, { intent: '' })).toThrow('step 1 needs its intent');
    expect(() => setStep(workflow, 99, { intent: 'x' })).toThrow('the workflow has no step 100');
  });

  it('moves a step within its subtask and deletes one, numbering the steps again in plan order', async () => {
    const workflow = await fixtureWorkflow();
    const before = shape(workflow);
    const moved = moveStep(workflow, 1, 1);
    expect(shape(moved)).toEqual([
      [
        0,
        [
          [0, 'CLICK'],
          [1, 'KEYPRESS'],
          [2, 'TYPE'],
        ],
      ],
      before[1],
    ]);
    expect(moved.plan.subtasks[0]?.steps[1]?.source).toEqual(workflow.plan.subtasks[0]?.steps[2]?.source);
    expect(() => moveStep(workflow, 0, -1)).toThrow('step 1 is the first of its subtask');
    expect(() => moveStep(workflow, 2, 1)).toThrow('step 3 is the last of its subtask');
    const deleted = deleteStep(workflow, 0);
    expect(shape(deleted)).toEqual([
      [
        0,
        [
          [0, 'TYPE'],
          [1, 'KEYPRESS'],
        ],
      ],
      [
        1,
        [
          [2, 'CLICK'],
          [3, 'EXTRACT'],
        ],
      ],
    ]);
    expect(checkWorkflow(deleted).ok).toBe(true);
  });

  it('moves and deletes subtasks, refusing an order that uses a value before it is extracted', async () => {
    const workflow = await fixtureWorkflow();
    const swapped = moveSubtask(workflow, 1, -1);
    expect(swapped.plan.subtasks.map((s) => [s.subtask_i, s.steps[0]?.action_type])).toEqual([
      [0, 'CLICK'],
      [1, 'CLICK'],
    ]);
    expect(swapped.plan.subtasks[0]?.text).toBe(workflow.plan.subtasks[1]?.text);
    expect(swapped.plan.subtasks[0]?.steps.map((s) => s.i)).toEqual([0, 1]);
    expect(() => moveSubtask(workflow, 0, -1)).toThrow('subtask 1 is the first of the plan');

    // A third subtask that uses what subtask 2 extracts cannot come before it, nor outlive it.
    const extended = addDependency(
      setSubtaskText(
        {
          ...workflow,
          plan: {
            ...workflow.plan,
            subtasks: [
              ...workflow.plan.subtasks,
              { subtask_i: 2, text: 'Say it.', dependencies: [], steps: [] },
            ],
          },
        },
        2,
        'Say {song_now_playing}.',
      ),
      2,
      'song_now_playing',
    );
    expect(checkWorkflow(extended).ok).toBe(true);
    // An order that uses a value before it is extracted is still a draft: its check says where.
    const early = checkWorkflow(moveSubtask(extended, 2, -1));
    expect(early.ok ? [] : early.problems.map((p) => p.path)).toContain('plan.subtasks[1].dependencies[0]');
    const orphan = checkWorkflow(deleteSubtask(extended, 1));
    expect(orphan.ok).toBe(false);
    expect(orphan.ok ? null : orphan.draft?.plan.subtasks).toHaveLength(2);
    expect(shape(deleteSubtask(extended, 2))).toEqual(shape(workflow));
    expect(() =>
      deleteSubtask(
        { ...workflow, plan: { ...workflow.plan, subtasks: workflow.plan.subtasks.slice(0, 1) } },
        0,
      ),
    ).toThrow('a workflow keeps at least one subtask');
  });
});

describe('addParam', () => {
  it('adds a param used nowhere yet, whose template a step then types; a taken name or a secret with an example is refused', async () => {
    const workflow = await fixtureWorkflow();
    const added = addParam(workflow, { name: 'artist', example: 'Linkin Park' });
    expect(added.task_params.at(-1)).toMatchObject({
      name: 'artist',
      example: 'Linkin Park',
      sensitive: false,
      optional: false,
    });
    const typing = typingStep(added);
    const used = setStep(added, typing?.i ?? -1, { action_value: '{song_name} {artist}' });
    expect(checkWorkflow(used).ok).toBe(true);
    expect(() => addParam(workflow, { name: 'song_name' })).toThrow('already has a param named song_name');
    expect(() => addParam(workflow, { name: '2x' })).toThrow('"2x" cannot name a param');
    expect(() => addParam(workflow, { name: 'pin', example: '1234', sensitive: true })).toThrow(
      'pin is sensitive: its value is never stored',
    );
    expect(addParam(workflow, { name: 'pin', sensitive: true }).task_params.at(-1)).toMatchObject({
      sensitive: true,
      example: null,
    });
  });
});

describe('the plan’s shape and the workflow’s words', () => {
  it('duplicates a step and a subtask, adds a subtask of no steps, numbered again in plan order', async () => {
    const workflow = await fixtureWorkflow();
    const twice = duplicateStep(workflow, 2);
    expect(shape(twice)).toEqual([
      [
        0,
        [
          [0, 'CLICK'],
          [1, 'TYPE'],
          [2, 'KEYPRESS'],
          [3, 'KEYPRESS'],
        ],
      ],
      [
        1,
        [
          [4, 'CLICK'],
          [5, 'EXTRACT'],
        ],
      ],
    ]);
    expect(twice.plan.subtasks[0]?.steps[3]?.source).toEqual(workflow.plan.subtasks[0]?.steps[2]?.source);
    expect(checkWorkflow(twice).ok).toBe(true);

    const added = addSubtask(workflow, 0, '  Clear the search field. Expected outcome: it is empty.  ');
    expect(added.plan.subtasks.map((s) => [s.subtask_i, s.text, s.steps.length])).toEqual([
      [0, workflow.plan.subtasks[0]?.text, 3],
      [1, 'Clear the search field. Expected outcome: it is empty.', 0],
      [2, workflow.plan.subtasks[1]?.text, 2],
    ]);
    expect(checkWorkflow(added).ok).toBe(true);
    expect(addSubtask(workflow, -1, 'First.').plan.subtasks[0]?.text).toBe('First.');
    expect(() => addSubtask(workflow, 0, ' ')).toThrow('a new subtask needs a text');
    expect(() => addSubtask(workflow, 7, 'x')).toThrow('the workflow has no subtask 8');

    // A copy of the subtask that extracts: the same variable twice is the draft's problem, named.
    const copied = duplicateSubtask(workflow, 1);
    expect(shape(copied).map(([k, steps]) => [k, (steps as unknown[]).length])).toEqual([
      [0, 3],
      [1, 2],
      [2, 2],
    ]);
    const checked = checkWorkflow(copied);
    expect(checked.ok ? [] : checked.problems.map((p) => p.path)).toContain(
      'plan.subtasks[2].steps[1].variable_name',
    );
  });

  it('renames and describes the workflow, refusing an empty name', async () => {
    const workflow = await fixtureWorkflow();
    const renamed = setWorkflow(workflow, { name: ' play a song ', description: 'Plays any song.' });
    expect([renamed.task_name, renamed.task_description_user]).toEqual(['play a song', 'Plays any song.']);
    expect(setWorkflow(workflow, { description: 'x' }).task_name).toBe(workflow.task_name);
    expect(() => setWorkflow(workflow, { name: '  ' })).toThrow('a workflow needs a name');
  });

  it('adds a step by hand from its words, with no recorded source, and refuses one missing its words', async () => {
    const workflow = await fixtureWorkflow();
    const added = addStep(
      workflow,
      { subtask_i: 0, after: 1 },
      { action_type: 'KEYPRESS', intent: ' Select all ', target: 'the search field', action_value: 'ctrl+a' },
    );
    const [first] = added.plan.subtasks;
    expect(first?.steps.map((s) => [s.i, s.action_type])).toEqual([
      [0, 'CLICK'],
      [1, 'TYPE'],
      [2, 'KEYPRESS'],
      [3, 'KEYPRESS'],
    ]);
    expect(first?.steps[2]).toMatchObject({ intent: 'Select all', action_value: 'ctrl+a', source: null });
    expect(checkWorkflow(added).ok).toBe(true);
    const click = { action_type: 'CLICK', intent: 'Open it', target: 'the first row' } as const;
    expect(addStep(workflow, { subtask_i: 1, after: null }, click).plan.subtasks[1]?.steps[0]).toMatchObject({
      i: 3,
      action_value: null,
    });
    expect(() => addStep(workflow, { subtask_i: 0, after: 4 }, click)).toThrow('subtask 1 has no step 5');
    expect(() => addStep(workflow, { subtask_i: 0, after: null }, { ...click, target: ' ' })).toThrow(
      'a new step needs its target',
    );
    expect(() =>
      addStep(workflow, { subtask_i: 0, after: null }, { ...click, action_type: 'TYPE', action_value: '' }),
    ).toThrow('a new TYPE step needs the text it types');
  });
});
