/**
 * A run's checked params as plain data for a run in another process: the values and their sources
 * round-trip without being resolved again, a sensitive value never goes in, and params checked
 * against another version of the workflow are refused naming what differs.
 */
import { Workflow } from '@mime-desktop/schema';
import { describe, expect, it } from 'vitest';
import { collectSecrets } from '../src/kernel/collect-secrets.ts';
import { checkParams, materializeParams, secretEnvName } from '../src/kernel/materialize.ts';
import { runParamsData, runParamsFromData } from '../src/kernel/run-params-data.ts';

const workflowOf = (params: object[]) =>
  Workflow.parse({
    task_name: 'log in',
    detailed_task_description: 'Log in.',
    success_criteria: 'logged in',
    task_params: params,
    plan: { subtasks: [{ subtask_i: 0, text: 'Log in. Expected outcome: logged in.', steps: [] }] },
  });

const PARAMS = [
  { name: 'user', example: 'ada' },
  { name: 'speed', default: '1x' },
  { name: 'note', optional: true },
  { name: 'password', sensitive: true },
];

describe('run params as data', () => {
  it('carry each value with its source, and a sensitive one by name only', () => {
    const workflow = workflowOf(PARAMS);
    const given = checkParams(workflow, { password: 'hunter2' }, { useExamples: true });
    const data = JSON.parse(JSON.stringify(runParamsData(given)));
    expect(JSON.stringify(data)).not.toContain('hunter2');
    const back = runParamsFromData(workflow, data);
    expect(Object.fromEntries(back.resolved)).toEqual({
      user: { kind: 'value', value: 'ada', source: 'example' },
      speed: { kind: 'value', value: '1x', source: 'default' },
      note: { kind: 'unset' },
    });
    expect(back.pending.map((p) => p.name)).toEqual(['password']);
  });

  it('are refused for a workflow whose params changed since, naming each once', () => {
    const data = runParamsData(checkParams(workflowOf(PARAMS), {}, { useExamples: true }));
    const changed = workflowOf([
      { name: 'user', example: 'ada' },
      { name: 'speed', default: '1x' },
      { name: 'password', example: null },
      { name: 'volume', example: '5' },
    ]);
    expect(() => runParamsFromData(changed, data)).toThrow(
      /checked against another version of the workflow \(password, volume, note differ\)/,
    );
  });

  it('give the run in the other process the params the run here would have, an empty secret too', async () => {
    // A rows file's empty cell: the check takes it as the value '', which an environment cannot carry
    // (an empty MIME_PARAM_<NAME> counts as none, and a required param would then be missing).
    const workflow = workflowOf(PARAMS);
    const given = checkParams(workflow, { password: '' }, { useExamples: true });
    const here = materializeParams(given).params;
    const back = runParamsFromData(workflow, JSON.parse(JSON.stringify(runParamsData(given))));
    const env = { [secretEnvName('password')]: '' };
    const there = materializeParams(back, await collectSecrets(back.pending, { env })).params;
    expect(there).toEqual(here);
  });
});
