import { Workflow } from '@mime-desktop/schema';
import { describe, expect, it } from 'vitest';
import { revisePlan } from '../src/agent/revise-plan.ts';
import { planFromWorkflow } from '../src/kernel/plan.ts';
import { createRedactor } from '../src/kernel/redact.ts';

const workflow = Workflow.parse({
  task_name: 't',
  plan: {
    subtasks: [
      {
        subtask_i: 0,
        text: 'a',
        steps: [
          { i: 0, intent: 'click', target: { primary: 'x' }, action_type: 'CLICK' },
          {
            i: 1,
            intent: 'read',
            target: { primary: 'y' },
            action_type: 'EXTRACT',
            action_value: 'the price',
            variable_name: 'price',
          },
        ],
      },
      {
        subtask_i: 1,
        text: 'b',
        steps: [
          {
            i: 2,
            intent: 'read',
            target: { primary: 'z' },
            action_type: 'EXTRACT',
            action_value: 'the name',
            variable_name: 'name',
          },
        ],
      },
    ],
  },
});

describe('revisePlan', () => {
  it('numbers new subtasks after the old ones, looks up steps, and assigns every pending extract', () => {
    const remaining = planFromWorkflow(workflow);
    const pending = remaining.flatMap((s) => s.extracts);
    const revised = revisePlan(
      {
        observation: 'o',
        subtasks: [
          { text: 'first', reference_steps: [0, 99], extracts: ['name', 'bogus'] },
          { text: 'second', reference_steps: [1], extracts: ['name'] },
        ],
      },
      remaining,
      pending,
      7,
    );
    expect(
      revised.map((s) => [
        s.subtask_i,
        s.text,
        s.steps.map((x) => x.i),
        s.extracts.map((e) => e.variable),
        s.origin,
      ]),
    ).toEqual([
      [7, 'first', [0], ['name'], 'replan'],
      [8, 'second', [1], ['price'], 'replan'],
    ]);
  });
});

describe('createRedactor', () => {
  it('replaces secrets (longest first) in text and nested values', () => {
    const redact = createRedactor(
      new Map([
        ['pin', '12'],
        ['password', 'hunter2-12'],
      ]),
    );
    expect(redact.text('typed hunter2-12 then 12')).toBe('typed {password} then {pin}');
    expect(redact.value({ a: ['x hunter2-12'], b: { c: 12, d: '12' } })).toEqual({
      a: ['x {password}'],
      b: { c: 12, d: '{pin}' },
    });
    const none = createRedactor(new Map());
    const value = { a: 'x' };
    expect(none.value(value)).toBe(value);
  });
});
