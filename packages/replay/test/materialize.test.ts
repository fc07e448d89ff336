import { Workflow, type WorkflowInput } from '@mime-desktop/schema';
import { describe, expect, it } from 'vitest';
import { ParamsError } from '../src/errors.ts';
import { collectSecrets } from '../src/kernel/collect-secrets.ts';
import { checkParams, materializeWorkflow } from '../src/kernel/materialize.ts';

const input: WorkflowInput = {
  task_name: 'log in and play {song_name}',
  detailed_task_description: 'Log in as {user} and play {song_name}.',
  success_criteria: '{song_name} plays',
  task_params: [
    { name: 'song_name', example: 'Numb' },
    { name: 'user', example: null },
    { name: 'password', sensitive: true },
    { name: 'volume', type: 'integer', example: '5', optional: true },
    { name: 'note', optional: true },
    { name: 'speed', default: '1x', example: '2x' },
  ],
  plan: {
    subtasks: [
      {
        subtask_i: 0,
        text: 'Log in as {user} with {password}. Expected outcome: logged in.',
        steps: [
          {
            i: 0,
            intent: 'Type the password of {user}.',
            target: { primary: 'password field for {user}', fallback: 'the {missing} field' },
            action_type: 'TYPE',
            action_value: '{password}',
            post_action: ['{user} is logged in'],
          },
        ],
      },
      { subtask_i: 1, text: 'Play {song_name} at volume {volume}{note}. Expected outcome: it plays.' },
    ],
  },
};
const workflow = Workflow.parse(input);

function problemsOf(run: () => unknown): ParamsError {
  try {
    run();
  } catch (error) {
    if (error instanceof ParamsError) return error;
    throw error;
  }
  throw new Error('expected a ParamsError');
}

describe('materializeWorkflow', () => {
  it('renders overrides everywhere, keeps sensitive params as {name}', () => {
    const result = materializeWorkflow(workflow, {
      overrides: { song_name: 'Faint', user: 'ada' },
      secrets: { password: 'hunter2' },
    });
    const w = result.workflow;
    expect(w.task_name).toBe('log in and play Faint');
    expect(w.detailed_task_description).toBe('Log in as ada and play Faint.');
    expect(w.success_criteria).toBe('Faint plays');
    expect(w.plan.subtasks[0]?.text).toBe('Log in as ada with {password}. Expected outcome: logged in.');
    // An optional param given no value is empty: its recorded example is not typed silently.
    expect(w.plan.subtasks[1]?.text).toBe('Play Faint at volume . Expected outcome: it plays.');
    const step = w.plan.subtasks[0]?.steps[0];
    expect(step?.intent).toBe('Type the password of ada.');
    expect(step?.target).toEqual({ primary: 'password field for ada', fallback: 'the {missing} field' });
    expect(step?.action_value).toBe('{password}');
    expect(step?.post_action).toEqual(['ada is logged in']);
    expect(result.params).toEqual([
      { name: 'song_name', sensitive: false, source: 'override', display: 'Faint' },
      { name: 'user', sensitive: false, source: 'override', display: 'ada' },
      { name: 'password', sensitive: true, source: 'secret', display: '{password}' },
      { name: 'volume', sensitive: false, source: 'unset', display: '' },
      { name: 'note', sensitive: false, source: 'unset', display: '' },
      { name: 'speed', sensitive: false, source: 'default', display: '1x' },
    ]);
    expect([...result.secrets]).toEqual([['password', 'hunter2']]);
    expect(JSON.stringify(result.workflow)).not.toContain('hunter2');
  });

  it("types a given value as it is: a secret's template in it never brings the secret", () => {
    const typing = Workflow.parse({
      ...input,
      plan: {
        subtasks: [
          {
            subtask_i: 0,
            text: 'Log in.',
            steps: [
              {
                i: 0,
                intent: 'user',
                target: { primary: 'user' },
                action_type: 'TYPE',
                action_value: '{user}',
              },
              {
                i: 1,
                intent: 'both',
                target: { primary: 'pw' },
                action_type: 'TYPE',
                action_value: '{user}:{password} {missing}',
              },
            ],
          },
        ],
      },
    } satisfies WorkflowInput);
    const result = materializeWorkflow(typing, {
      overrides: { user: '{password}', song_name: 'x' },
      secrets: { password: 'hunter2' },
    });
    const [hostile, own] = result.workflow.plan.subtasks[0]?.steps ?? [];
    if (!hostile || !own) throw new Error('steps missing');
    // Both read "{password}" where the value went; only the workflow's own template types the secret.
    expect(hostile.action_value).toBe('{password}');
    expect(result.typing.ofStep(hostile)).toMatchObject({ shown: '{password}', value: '{password}' });
    expect(own.action_value).toBe('{password}:{password} {missing}');
    expect(result.typing.ofStep(own)).toMatchObject({
      shown: '{password}:{password} {missing}',
      value: '{password}:hunter2 {missing}',
    });
    // The agent's own placeholder is its way to type a secret.
    expect(result.typing.ofAgent('pw {password}')).toMatchObject({
      shown: 'pw {password}',
      value: 'pw hunter2',
    });
    // A name that is no param (an upstream extract) shows, and is typed as, the value read at run time,
    // never read for templates again: a `{password}` read from the screen does not bring the secret.
    const read = new Map([['missing', '{password}']]);
    expect(result.typing.ofStep(own, read)).toMatchObject({
      shown: '{password}:{password} {password}',
      value: '{password}:hunter2 {password}',
    });
  });

  it('lists every missing, unknown and mistyped param at once', () => {
    const error = problemsOf(() =>
      materializeWorkflow(workflow, { overrides: { colour: 'red', volume: 'loud', songname: 'x' } }),
    );
    expect(error.code).toBe('MIME_PARAMS_INVALID');
    // song_name has a recorded example, and is missing all the same: no example fills in unasked.
    expect(error.problems.missing).toEqual(['song_name', 'user', 'password']);
    expect(error.problems.unknown).toEqual(['colour', 'songname']);
    expect(error.problems.invalid).toEqual(['volume: expected an integer, got "loud"']);
    expect(error.message).toMatchInlineSnapshot(`
      "The params for this run are not usable:
        missing: song_name, user, password (give each a value; a recorded example is used only when asked, with --use-examples; sensitive params come from MIME_PARAM_<NAME> or the prompt)
        unknown: colour, songname (this workflow's params: song_name, user, password, volume, note, speed)
        invalid: volume: expected an integer, got "loud""
    `);
  });

  it('checks what it can before secrets are collected: sensitive params are not missing yet', () => {
    const error = problemsOf(() => checkParams(workflow, { colour: 'red' }));
    expect(error.problems.missing).toEqual(['song_name', 'user']);
    expect(error.problems.unknown).toEqual(['colour']);
    expect(() => checkParams(workflow, { user: 'ada', song_name: 'Faint' })).not.toThrow();
    expect(() => checkParams(workflow, { user: 'ada' }, { useExamples: true })).not.toThrow();
  });

  it('gives the recorded examples only when asked; an explicit default always, and an override wins over both', () => {
    const result = materializeWorkflow(workflow, {
      overrides: { user: 'ada' },
      secrets: { password: 'x' },
      useExamples: true,
    });
    expect(result.params.map((p) => [p.name, p.source, p.display])).toEqual([
      ['song_name', 'example', 'Numb'],
      ['user', 'override', 'ada'],
      ['password', 'secret', '{password}'],
      ['volume', 'example', '5'],
      ['note', 'unset', ''],
      ['speed', 'default', '1x'],
    ]);
    const given = materializeWorkflow(workflow, {
      overrides: { user: 'ada', song_name: 'Faint', speed: '3x' },
      secrets: { password: 'x' },
    });
    expect(given.params.find((p) => p.name === 'speed')).toMatchObject({ source: 'override', display: '3x' });
  });

  it('never echoes a mistyped secret', () => {
    const typed = Workflow.parse({
      ...input,
      task_params: [{ name: 'pin', type: 'integer', sensitive: true }],
    });
    const error = problemsOf(() => materializeWorkflow(typed, { secrets: { pin: 'abc-secret' } }));
    expect(error.message).toContain('pin: expected a value of type integer');
    expect(error.message).not.toContain('abc-secret');
  });

  it('normalizes booleans', () => {
    const typed = Workflow.parse({
      ...input,
      task_params: [{ name: 'loop', type: 'boolean', example: 'TRUE' }],
    });
    expect(materializeWorkflow(typed, { useExamples: true }).params[0]?.display).toBe('true');
  });
});

describe('collectSecrets', () => {
  it('reads MIME_PARAM_<NAME>, then asks, for the sensitive params it is given', async () => {
    const asked: string[] = [];
    const params = Workflow.parse({
      ...input,
      task_params: [
        { name: 'password', sensitive: true },
        { name: 'token', sensitive: true },
        { name: 'song_name' },
      ],
    }).task_params;
    const secrets = await collectSecrets(params, {
      env: { MIME_PARAM_PASSWORD: 'from-env', MIME_PARAM_SONG_NAME: 'ignored' },
      promptSecret: async (param) => {
        asked.push(param.name);
        return param.name === 'token' ? 'typed' : null;
      },
    });
    expect(secrets).toEqual({ password: 'from-env', token: 'typed' });
    expect(asked).toEqual(['token']);
  });
});
