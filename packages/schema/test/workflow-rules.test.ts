/**
 * The cross-field rules of a workflow (checkWorkflowRules), one case a rule: the demo workflow with
 * one thing broken gives exactly that problem, at its path, saying how to fix it; the workflow as it
 * is gives none. The rules read the document loosely, so a wrong type elsewhere hides none of them.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '@mime-desktop/test-support/run-mime';
import { describe, expect, it } from 'vitest';
import type { Problem } from '../src/errors.ts';
import { checkWorkflow } from '../src/workflow-file.ts';
import { checkWorkflowRules, type WorkflowContext } from '../src/workflow-rules.ts';

type Loose = Record<string, any>;

const PLAY_SONG: Loose = JSON.parse(
  readFileSync(join(REPO_ROOT, 'fixtures', 'workflows', 'play-song', 'schema.json'), 'utf8'),
);

/**
 * The demo workflow (search, play, extract `now_playing` in subtask 1) with a subtask 2 that types
 * `{now_playing}` (declared as its dependency), and a setup whose window is matched by patterns.
 */
function workflow(): Loose {
  const doc = structuredClone(PLAY_SONG);
  doc.plan.subtasks.push({
    subtask_i: 2,
    text: 'Write {now_playing} into the notes field.',
    dependencies: ['now_playing'],
    steps: [
      {
        i: 5,
        expected_current_state: 'The notes field shows {song_name}.',
        intent: 'Type what is playing.',
        target: { primary: 'The notes field', fallback: null },
        action_type: 'TYPE',
        action_value: 'Now: {now_playing}',
        post_action: [],
        variable_name: null,
        source: null,
      },
    ],
  });
  doc.setup = { command: 'demo-player', window: { title: '^Demo player( - .+)?$', class: 'demo' } };
  return doc;
}

/** The problems of the workflow once `edit` has broken it. */
function problemsOf(edit: (doc: Loose) => void, context?: WorkflowContext): Problem[] {
  const doc = workflow();
  edit(doc);
  return checkWorkflowRules(doc, context);
}

/** Step `i` of the plan (0-based across subtasks), to edit. */
const step = (doc: Loose, i: number): Loose => doc.plan.subtasks.flatMap((s: Loose) => s.steps)[i];

const undeclared = (name: string) =>
  `{${name}} names no declared param and no extract; declare it in task_params or fix the name`;

describe('a good workflow', () => {
  it('breaks no rule, and is a valid workflow as a whole', () => {
    expect(checkWorkflowRules(PLAY_SONG)).toEqual([]);
    expect(checkWorkflowRules(workflow())).toEqual([]);
    expect(checkWorkflow(workflow())).toMatchObject({ ok: true });
  });

  it('may leave TYPE and KEYPRESS without a value (replay takes what was recorded)', () => {
    const problems = problemsOf((doc) => {
      step(doc, 1).action_value = null;
      step(doc, 2).action_value = null;
    });
    expect(problems).toEqual([]);
  });

  it('gives no problem for what is not a workflow at all (the schema says that)', () => {
    for (const document of [null, 'text', [], 3]) expect(checkWorkflowRules(document)).toEqual([]);
  });
});

describe('numbering', () => {
  it('subtasks are numbered from 0 in plan order', () => {
    expect(problemsOf((doc) => (doc.plan.subtasks[1].subtask_i = 2))).toEqual([
      {
        path: 'plan.subtasks[1].subtask_i',
        message: 'is 2 but this is subtask 1; subtasks are numbered from 0 in plan order',
      },
    ]);
  });

  it('steps are numbered from 0 across all subtasks', () => {
    expect(problemsOf((doc) => (step(doc, 3).i = 0))).toEqual([
      {
        path: 'plan.subtasks[1].steps[0].i',
        message: 'is 0 but this is step 3 of the plan; steps are numbered from 0 across all subtasks',
      },
    ]);
  });
});

describe('params', () => {
  it('are declared once', () => {
    expect(
      problemsOf((doc) => doc.task_params.push({ ...doc.task_params[0], description: 'again' })),
    ).toEqual([
      { path: 'task_params[1].name', message: '"song_name" is declared twice; param names must be unique' },
    ]);
  });

  it('keep no example when sensitive', () => {
    expect(problemsOf((doc) => (doc.task_params[0].sensitive = true))).toEqual([
      {
        path: 'task_params[0].example',
        message:
          '"song_name" is sensitive, so its value must not be stored here; set example to null (replay reads it from MIME_PARAM_SONG_NAME or asks for it)',
      },
    ]);
    expect(
      problemsOf((doc) => {
        doc.task_params[0].sensitive = true;
        doc.task_params[0].example = null;
      }),
    ).toEqual([]);
  });
});

describe('action values', () => {
  it('are null for pointer actions', () => {
    expect(problemsOf((doc) => (step(doc, 0).action_value = 'left'))).toEqual([
      {
        path: 'plan.subtasks[0].steps[0].action_value',
        message:
          'must be null for CLICK; only TYPE (text), KEYPRESS (key chord) and EXTRACT (query) carry a value',
      },
    ]);
  });

  it('are text for TYPE, or null, never blank', () => {
    expect(problemsOf((doc) => (step(doc, 1).action_value = '  '))).toEqual([
      {
        path: 'plan.subtasks[0].steps[1].action_value',
        message:
          'TYPE needs the text to type (a string, may hold {param}), or null to type what the recording typed',
      },
    ]);
  });

  it('are a key chord for KEYPRESS, or null, never blank', () => {
    expect(problemsOf((doc) => (step(doc, 2).action_value = ''))).toEqual([
      {
        path: 'plan.subtasks[0].steps[2].action_value',
        message:
          'KEYPRESS needs a key chord such as "enter" or "ctrl+a", or null to press what the recording pressed',
      },
    ]);
  });

  it('are a key chord that parses for KEYPRESS, with the parser saying what is wrong', () => {
    expect(problemsOf((doc) => (step(doc, 2).action_value = 'ctrl++a'))).toEqual([
      {
        path: 'plan.subtasks[0].steps[2].action_value',
        message: '"ctrl++a" has an empty part; join keys with a single "+"',
      },
    ]);
  });
});

describe('extracts', () => {
  it('have a query', () => {
    expect(problemsOf((doc) => (step(doc, 4).action_value = null))).toEqual([
      {
        path: 'plan.subtasks[1].steps[1].action_value',
        message: 'EXTRACT needs the query: what to read from the screen',
      },
    ]);
  });

  it('have a variable name', () => {
    const problems = problemsOf((doc) => (step(doc, 4).variable_name = ''));
    expect(problems).toContainEqual({
      path: 'plan.subtasks[1].steps[1].variable_name',
      message: 'EXTRACT needs a variable_name to store the value under',
    });
    // With it gone, what used it names nothing: said too, each where it stands.
    expect(problems.map((p) => p.path)).toEqual([
      'plan.subtasks[1].steps[1].variable_name',
      'plan.subtasks[2].dependencies[0]',
      'plan.subtasks[2].text',
      'plan.subtasks[2].steps[0].action_value',
    ]);
  });

  it('are the only steps with a variable name', () => {
    expect(problemsOf((doc) => (step(doc, 1).variable_name = 'typed'))).toEqual([
      {
        path: 'plan.subtasks[0].steps[1].variable_name',
        message: 'must be null for TYPE; only EXTRACT steps define variables',
      },
    ]);
  });

  it('are named once', () => {
    const problems = problemsOf((doc) => {
      doc.plan.subtasks[1].steps.push({ ...step(doc, 4), i: 5, action_value: 'the artist' });
      step(doc, 6).i = 6;
    });
    expect(problems).toEqual([
      {
        path: 'plan.subtasks[1].steps[2].variable_name',
        message:
          '"now_playing" is already extracted by plan.subtasks[1].steps[1]; extract names must be unique',
      },
    ]);
  });

  it('are not named like a param', () => {
    const problems = problemsOf((doc) =>
      doc.task_params.push({ name: 'now_playing', type: 'string', description: '', example: 'x' }),
    );
    expect(problems).toEqual([
      {
        path: 'plan.subtasks[1].steps[1].variable_name',
        message: '"now_playing" is also a task param; rename the extract or the param',
      },
    ]);
  });
});

describe('dependencies', () => {
  it('name a variable an EXTRACT step makes', () => {
    expect(problemsOf((doc) => doc.plan.subtasks[2].dependencies.push('lyrics'))).toEqual([
      {
        path: 'plan.subtasks[2].dependencies[1]',
        message: '"lyrics" is not extracted by any EXTRACT step; name an upstream variable_name',
      },
    ]);
  });

  it('point to earlier subtasks only: not the same one, not a later one', () => {
    expect(problemsOf((doc) => doc.plan.subtasks[1].dependencies.push('now_playing'))).toEqual([
      {
        path: 'plan.subtasks[1].dependencies[0]',
        message:
          '"now_playing" is extracted in this same subtask; dependencies may only point to earlier subtasks',
      },
    ]);
    expect(problemsOf((doc) => doc.plan.subtasks[0].dependencies.push('now_playing'))).toEqual([
      {
        path: 'plan.subtasks[0].dependencies[0]',
        message:
          '"now_playing" is extracted in a later subtask (1); dependencies may only point to earlier subtasks',
      },
    ]);
  });
});

describe('templates', () => {
  it('name a declared param or an extract, in every text field that may hold one', () => {
    const problems = problemsOf((doc) => {
      doc.detailed_task_description += ' {artist}';
      doc.success_criteria = '{artist} plays';
      doc.plan.subtasks[0].text = 'Search {artist} and {artist} again';
      step(doc, 1).action_value = '{artist}';
      step(doc, 1).intent = '{artist}';
      step(doc, 1).expected_current_state = '{artist}';
      step(doc, 1).target = { primary: '{artist}', fallback: 'the {artist} row' };
    });
    expect(problems).toEqual(
      [
        'detailed_task_description',
        'success_criteria',
        'plan.subtasks[0].text',
        'plan.subtasks[0].steps[1].action_value',
        'plan.subtasks[0].steps[1].intent',
        'plan.subtasks[0].steps[1].expected_current_state',
        'plan.subtasks[0].steps[1].target.primary',
        'plan.subtasks[0].steps[1].target.fallback',
      ].map((path) => ({ path, message: undeclared('artist') })),
    );
  });

  it("point to optimized_plan.json's constant named like the undeclared name, and accept one by its name", () => {
    const constants = { folder_name_pattern: 'Reports {year}', greeting: 'hello' };
    expect(problemsOf((doc) => (step(doc, 1).action_value = '{folder_name}'), { constants })).toEqual([
      {
        path: 'plan.subtasks[0].steps[1].action_value',
        message:
          '{folder_name} names no declared param and no extract; its value is in optimized_plan.json\'s constants ("folder_name_pattern": "Reports {year}"), which schema.json does not read: declare a param "folder_name" in task_params with that value as its example, or write the value in its place',
      },
    ]);
    expect(problemsOf((doc) => (step(doc, 1).action_value = '{greeting}'), { constants })).toEqual([]);
    expect(problemsOf((doc) => (step(doc, 1).action_value = '{greeting}'))).toEqual([
      { path: 'plan.subtasks[0].steps[1].action_value', message: undeclared('greeting') },
    ]);
  });

  it('use only values extracted before them', () => {
    expect(problemsOf((doc) => (step(doc, 3).intent = 'Play it before reading {now_playing}'))).toEqual([
      {
        path: 'plan.subtasks[1].steps[0].intent',
        message:
          '{now_playing} is extracted later (plan.subtasks[1].steps[1]); a template may only use values extracted before it',
      },
    ]);
    // A subtask's text stands before its steps.
    expect(problemsOf((doc) => (doc.plan.subtasks[1].text += ' {now_playing}'))).toEqual([
      {
        path: 'plan.subtasks[1].text',
        message:
          '{now_playing} is extracted later (plan.subtasks[1].steps[1]); a template may only use values extracted before it',
      },
    ]);
  });

  it("use a value of an earlier subtask only when it is in their subtask's dependencies", () => {
    expect(problemsOf((doc) => (doc.plan.subtasks[2].dependencies = []))).toEqual(
      ['plan.subtasks[2].text', 'plan.subtasks[2].steps[0].action_value'].map((path) => ({
        path,
        message: '{now_playing} comes from subtask 1; add "now_playing" to plan.subtasks[2].dependencies',
      })),
    );
  });
});

describe("the setup window's patterns", () => {
  it('are regular expressions that compile', () => {
    const problems = problemsOf((doc) => (doc.setup.window.title = 'Demo (player'));
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({
      path: 'setup.window.title',
      message: expect.stringMatching(/^not a valid regular expression: .*Unterminated group/),
    });
  });

  it('are at most 200 characters', () => {
    expect(problemsOf((doc) => (doc.setup.window.class = 'a'.repeat(201)))).toEqual([
      { path: 'setup.window.class', message: 'a window pattern has at most 200 characters, got 201' },
    ]);
    expect(problemsOf((doc) => (doc.setup.window.class = 'a'.repeat(200)))).toEqual([]);
  });
});

describe('a document of wrong types elsewhere', () => {
  it('still has its rules checked where they can be read', () => {
    const problems = problemsOf((doc) => {
      doc.task_params = 'song_name';
      doc.plan.subtasks[0].steps[0] = 'click';
      doc.plan.subtasks[1].dependencies = null;
      step(doc, 1).action_value = '{artist}';
    });
    expect(problems).toContainEqual({
      path: 'plan.subtasks[0].steps[1].action_value',
      message: undeclared('artist'),
    });
  });
});
