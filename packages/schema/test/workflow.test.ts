import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../src/errors.ts';
import { checkWorkflow, loadWorkflow } from '../src/workflow-file.ts';

const repo = join(import.meta.dirname, '..', '..', '..');
const compat = join(repo, 'fixtures', 'compat', 'ai_mime');
const fixture = join(repo, 'fixtures', 'workflows', 'play-song');

/** A small valid v2 workflow to break one rule at a time. */
function workflow() {
  return {
    task_name: 'look up a price',
    task_params: [{ name: 'item', example: 'tea' }],
    plan: {
      subtasks: [
        {
          subtask_i: 0,
          text: 'Find {item}. Expected outcome: its price is shown.',
          steps: [
            { i: 0, intent: 'focus search', target: { primary: 'search box' }, action_type: 'CLICK' },
            {
              i: 1,
              intent: 'type',
              target: { primary: 'search box' },
              action_type: 'TYPE',
              action_value: '{item}',
            },
            {
              i: 2,
              intent: 'read price',
              target: { primary: 'price label' },
              action_type: 'EXTRACT',
              action_value: 'price of {item}',
              variable_name: 'price',
            },
          ],
        },
        {
          subtask_i: 1,
          text: 'Note {price}. Expected outcome: the note shows {price}.',
          dependencies: ['price'],
          steps: [
            {
              i: 3,
              intent: 'save',
              target: { primary: 'save' },
              action_type: 'KEYPRESS',
              action_value: 'ctrl+s',
            },
          ],
        },
      ],
    },
  };
}

function problemsOf(document: unknown): string[] {
  const result = checkWorkflow(document);
  return result.ok ? [] : result.problems.map((p) => `${p.path}: ${p.message}`);
}

describe('workflow validation', () => {
  it('accepts a valid workflow and fills defaults', () => {
    const result = checkWorkflow(workflow());
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.workflow.version).toBe(2);
    expect(result.workflow.task_params[0]).toEqual({
      name: 'item',
      type: 'string',
      description: '',
      example: 'tea',
      sensitive: false,
      optional: false,
    });
    expect(result.workflow.plan.subtasks[0]?.steps[0]).toMatchObject({
      action_value: null,
      variable_name: null,
      source: null,
    });
  });

  it('accepts the fixture workflow', async () => {
    const loaded = await loadWorkflow(fixture);
    expect(loaded.from).toBe('v2');
    expect(loaded.workflow.plan.subtasks).toHaveLength(2);
  });

  it('rejects a template that names no param or extract', () => {
    const doc = workflow();
    doc.plan.subtasks[0]!.text = 'Find {itme}.';
    expect(problemsOf(doc)).toEqual([
      'plan.subtasks[0].text: {itme} names no declared param and no extract; declare it in task_params or fix the name',
    ]);
  });

  it('rejects dependencies on later or unknown extracts', () => {
    const doc = workflow();
    doc.plan.subtasks[0]!.dependencies = ['price', 'nothing'];
    expect(problemsOf(doc)).toEqual([
      'plan.subtasks[0].dependencies[0]: "price" is extracted in this same subtask; dependencies may only point to earlier subtasks',
      'plan.subtasks[0].dependencies[1]: "nothing" is not extracted by any EXTRACT step; name an upstream variable_name',
    ]);
  });

  it('rejects a template using an upstream extract that is not a dependency', () => {
    const doc = workflow();
    doc.plan.subtasks[1]!.dependencies = [];
    expect(problemsOf(doc)).toEqual([
      'plan.subtasks[1].text: {price} comes from subtask 0; add "price" to plan.subtasks[1].dependencies',
    ]);
  });

  it('rejects a template that uses an extract before it is taken', () => {
    const doc = workflow();
    doc.plan.subtasks[0]!.steps[1]!.action_value = '{price}';
    expect(problemsOf(doc)).toEqual([
      'plan.subtasks[0].steps[1].action_value: {price} is extracted later (plan.subtasks[0].steps[2]); a template may only use values extracted before it',
    ]);
  });

  it('rejects an action_value on a CLICK and a missing one on TYPE, KEYPRESS and EXTRACT', () => {
    const doc = workflow();
    const [click, type, extract] = doc.plan.subtasks[0]!.steps as Array<Record<string, unknown>>;
    click!.action_value = 'oops';
    type!.action_value = '';
    extract!.action_value = null;
    extract!.variable_name = null;
    (doc.plan.subtasks[1]!.steps[0] as Record<string, unknown>).action_value = 'ctrl+nope';
    expect(problemsOf(doc)).toEqual([
      'plan.subtasks[0].steps[0].action_value: must be null for CLICK; only TYPE (text), KEYPRESS (key chord) and EXTRACT (query) carry a value',
      'plan.subtasks[0].steps[1].action_value: TYPE needs the text to type (a string, may hold {param}), or null to type what the recording typed',
      'plan.subtasks[0].steps[2].action_value: EXTRACT needs the query: what to read from the screen',
      'plan.subtasks[0].steps[2].variable_name: EXTRACT needs a variable_name to store the value under',
      'plan.subtasks[1].dependencies[0]: "price" is not extracted by any EXTRACT step; name an upstream variable_name',
      'plan.subtasks[1].steps[0].action_value: unknown key "nope" in "ctrl+nope"; use a single printable character or one of: enter, tab, escape, backspace, delete, space, up, down, left, right, home, end, pageup, pagedown, insert, capslock, printscreen, menu, f1-f24',
      'plan.subtasks[1].text: {price} names no declared param and no extract; declare it in task_params or fix the name',
    ]);
  });

  it('takes a per-step type delay within 0..1000 ms', () => {
    const doc = workflow();
    const type = doc.plan.subtasks[0]!.steps[1] as Record<string, unknown>;
    type.type_delay_ms = 60;
    expect(problemsOf(doc)).toEqual([]);
    type.type_delay_ms = 5000;
    expect(problemsOf(doc)).toEqual([
      'plan.subtasks[0].steps[1].type_delay_ms: Too big: expected number to be <=1000',
    ]);
  });

  it('rejects duplicate extract names, a variable on a non-extract, and a param clash', () => {
    const doc = workflow();
    const steps = doc.plan.subtasks[1]!.steps as Array<Record<string, unknown>>;
    steps.push({
      i: 4,
      intent: 'again',
      target: { primary: 'x' },
      action_type: 'EXTRACT',
      action_value: 'q',
      variable_name: 'price',
    });
    steps.push({
      i: 5,
      intent: 'item',
      target: { primary: 'x' },
      action_type: 'EXTRACT',
      action_value: 'q',
      variable_name: 'item',
    });
    steps[0]!.variable_name = 'saved';
    expect(problemsOf(doc)).toEqual([
      'plan.subtasks[1].steps[0].variable_name: must be null for KEYPRESS; only EXTRACT steps define variables',
      'plan.subtasks[1].steps[1].variable_name: "price" is already extracted by plan.subtasks[0].steps[2]; extract names must be unique',
      'plan.subtasks[1].steps[2].variable_name: "item" is also a task param; rename the extract or the param',
    ]);
  });

  it('rejects inconsistent indices and a stored secret', () => {
    const doc = workflow();
    doc.plan.subtasks[1]!.subtask_i = 4;
    doc.plan.subtasks[1]!.steps[0]!.i = 7;
    doc.task_params.push({
      name: 'password',
      sensitive: true,
      example: 'hunter2',
    } as (typeof doc.task_params)[0]);
    expect(problemsOf(doc)).toEqual([
      'plan.subtasks[1].steps[0].i: is 7 but this is step 3 of the plan; steps are numbered from 0 across all subtasks',
      'plan.subtasks[1].subtask_i: is 4 but this is subtask 1; subtasks are numbered from 0 in plan order',
      'task_params[1].example: "password" is sensitive, so its value must not be stored here; set example to null (replay reads it from MIME_PARAM_PASSWORD or asks for it)',
    ]);
  });

  it('reports type errors, missing fields, unknown keys and rule problems together', () => {
    const doc = workflow() as Record<string, unknown>;
    doc.task_name = 42;
    doc.surprise = true;
    const plan = doc.plan as ReturnType<typeof workflow>['plan'];
    delete (plan.subtasks[0]!.steps[0] as Record<string, unknown>).intent;
    plan.subtasks[0]!.text = 'Find {nope}';
    expect(problemsOf(doc)).toEqual([
      ': Unrecognized key: "surprise"',
      'plan.subtasks[0].steps[0].intent: required: expected string',
      'plan.subtasks[0].text: {nope} names no declared param and no extract; declare it in task_params or fix the name',
      'task_name: Invalid input: expected string, got 42',
    ]);
  });

  it('accepts an app setup and rejects one without a window, with a bad pattern or an endless wait', () => {
    const ok = { ...workflow(), setup: { command: 'mousepad', window: { class: '^Mousepad$' } } };
    const checked = checkWorkflow(ok);
    expect(checked.ok && checked.workflow.setup).toEqual({
      command: 'mousepad',
      window: { class: '^Mousepad$' },
      timeout_ms: 30_000,
    });
    expect(problemsOf({ ...workflow(), setup: { command: 'mousepad', window: {} } })).toEqual([
      'setup.window: window needs a title or a class',
    ]);
    expect(
      problemsOf({
        ...workflow(),
        setup: { command: '', window: { title: 'Mouse(pad', class: 'x'.repeat(201) }, timeout_ms: 1e9 },
      }),
    ).toEqual([
      'setup.command: command must not be empty',
      'setup.timeout_ms: Too big: expected number to be <=600000',
      'setup.window.class: a window pattern has at most 200 characters, got 201',
      'setup.window.title: not a valid regular expression: Invalid regular expression: /Mouse(pad/u: Unterminated group',
    ]);
  });

  it('throws a ValidationError listing every problem with the file', async () => {
    const error = await loadWorkflow(join(compat, 'manifest.jsonl')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toMatch(
      /manifest\.jsonl:2:1: invalid JSON: unexpected text after the end of the document$/,
    );
    const bad = await loadWorkflow(join(repo, 'package.json')).catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(ValidationError);
    expect((bad as ValidationError).problems.map((p) => p.path)).toContain('task_name');
  });
});

describe('ai_mime compatibility', () => {
  it('upgrades the published v1 workflow to v2', async () => {
    const loaded = await loadWorkflow(join(compat, 'schema.v1.json'));
    expect(loaded.from).toBe('ai_mime-v1');
    const { workflow: w } = loaded;
    expect(w.plan.subtasks.map((s) => [s.subtask_i, s.steps.map((step) => step.i)])).toEqual([
      [0, [0]],
      [1, [1, 2, 3, 4]],
    ]);
    expect(w.plan.subtasks[1]?.text).toMatch(/^Search for and play the song \{song_name\}/);
    expect(w.plan.subtasks[1]?.steps[2]).toMatchObject({
      action_type: 'TYPE',
      action_value: '{song_name}',
      source: null,
    });
    expect(w.task_params).toEqual([expect.objectContaining({ name: 'song_name', example: 'Numb' })]);
  });

  it('reads ai_mime v2 as its compiler writes it, and warns about a stored secret', async () => {
    const loaded = await loadWorkflow(join(compat, 'schema.v2.json'));
    expect(loaded.from).toBe('ai_mime-v2');
    const { workflow: w } = loaded;
    expect(w.plan.subtasks.map((s) => s.steps.map((step) => step.i))).toEqual([
      [0, 1, 2],
      [3, 4],
    ]);
    expect(w.plan.subtasks[1]?.steps[1]).toMatchObject({
      action_type: 'EXTRACT',
      action_value: 'the title of the song shown in the now-playing bar',
      variable_name: 'extract_0',
    });
    expect(w.plan.subtasks[1]?.text).toMatch(/Expected outcome: The value for extract_0 is captured\.$/);
    expect(w.task_params[1]).toMatchObject({
      name: 'account_pin',
      type: 'string',
      sensitive: true,
      example: null,
    });
    expect(loaded.warnings).toEqual([
      {
        path: 'task_params[1].example',
        message:
          '"account_pin" is sensitive but the file stores its example in plain text: it was ignored; remove it from the file (and change that secret if it was real)',
      },
    ]);
  });

  it('names the value of an unknown action type in an ai_mime file', async () => {
    const v2 = JSON.parse(await readFile(join(compat, 'schema.v2.json'), 'utf8'));
    v2.plan.subtasks[0].steps[1].action_type = 'HOVER';
    expect(problemsOf(v2)).toEqual([
      'plan.subtasks[0].steps[1].action_type: "HOVER" is not one of CLICK, DOUBLE_CLICK, RIGHT_CLICK, MIDDLE_CLICK, TYPE, KEYPRESS, SCROLL, DRAG, EXTRACT',
    ]);
  });

  it('names extract_query when an ai_mime EXTRACT step has none (its action_value is only the name)', async () => {
    const v2 = JSON.parse(await readFile(join(compat, 'schema.v2.json'), 'utf8'));
    delete v2.plan.subtasks[1].steps[1].additional_args.extract_query;
    expect(problemsOf(v2)).toEqual([
      "plan.subtasks[1].steps[1].additional_args.extract_query: an ai_mime EXTRACT step needs additional_args.extract_query, what to read from the screen (ai_mime's compiler always writes one); add it",
    ]);
  });

  it('reports a v1 step whose subtask matches none', async () => {
    const v1 = JSON.parse(await readFile(join(compat, 'schema.v1.json'), 'utf8'));
    v1.plan.steps[2].subtask = 'Something else entirely';
    expect(problemsOf(v1)).toEqual([
      'plan.steps[2].subtask: matches none of the top-level subtasks; copy the subtask text exactly',
      'plan.subtasks[1].steps[1].i: is 3 but this is step 2 of the plan; steps are numbered from 0 across all subtasks',
      'plan.subtasks[1].steps[2].i: is 4 but this is step 3 of the plan; steps are numbered from 0 across all subtasks',
    ]);
  });
});
