import { type ManifestLine, type PassBResult, type StepCard, unknownSafetyFacts } from '@mime-desktop/schema';
import { describe, expect, it } from 'vitest';
import { mergeWorkflow } from '../src/merge.ts';
import { buildSteps } from '../src/steps.ts';

const line = (n: number, event: Record<string, unknown>): ManifestLine =>
  ({
    line: n + 1,
    event: { screenshot: `screenshots/${n}.png`, timestamp: n, details: null, ...event },
  }) as ManifestLine;

const lines: ManifestLine[] = [
  line(0, { action_type: 'type', action_details: { text: 'tea', secret: false } }),
  line(1, { action_type: 'extract', action_details: { query: 'the price of it', values: [] } }),
  line(2, { action_type: 'type', action_details: { text: '', secret: true } }),
  line(3, { action_type: 'click', action_details: { button: 'left', x: 10, y: 990 } }),
  line(4, { action_type: null, action_details: {} }),
];
const steps = buildSteps(lines, { width: 1000, height: 1000 });
const card = (i: number): StepCard => ({
  i,
  expected_current_state: 'shop',
  intent: `step ${i}`,
  action_type: 'TYPE',
  action_value: null,
  target: { primary: 'x', fallback: null },
  post_action: ['changed'],
});
const cards = new Map(steps.map((s) => [s.i, card(s.i)]));
const plan = (
  updates: Array<[string | null, string]>,
  params: PassBResult['task_params'] = [],
): PassBResult => ({
  detailed_task_description: 'buy',
  subtasks: ['Find {item}. Expected outcome: price shown.', 'Pay {price}. Expected outcome: paid.'],
  task_params: params,
  success_criteria: 'paid',
  requires_login: null,
  side_effects: null,
  stops_before_payment: null,
  safety_notes: [],
  plan_step_updates: updates.map(([action_value, subtask], i) => ({ i, action_value, subtask })),
});
const item = {
  name: 'item',
  type: 'string',
  description: '',
  example: 'tea',
  sensitive: false,
  optional: false,
} as const;
const [first = '', second = ''] = plan([]).subtasks;

describe('mergeWorkflow', () => {
  it('derives dependencies, names extracts and makes secret typing a sensitive param', () => {
    const merged = mergeWorkflow(
      { name: 'buy tea', description: '' },
      steps,
      cards,
      plan(
        [
          ['{item}', first],
          [null, first],
          [null, second],
          [null, second],
        ],
        [item],
      ),
    );
    expect(merged.ok ? [] : merged.problems).toEqual([]);
    if (!merged.ok) return;
    const [find, pay] = merged.workflow.plan.subtasks;
    expect(find?.steps.map((s) => s.action_value)).toEqual(['{item}', 'the price of it']);
    expect(find?.steps[1]?.variable_name).toBe('price');
    expect(pay?.dependencies).toEqual(['price']);
    expect(pay?.steps.map((s) => s.action_value)).toEqual(['{secret}', null]);
    expect(merged.workflow.task_params.at(-1)).toMatchObject({
      name: 'secret',
      sensitive: true,
      example: null,
    });
    expect(pay?.steps[1]?.source?.box).toEqual({ x: 0, y: 936, width: 160, height: 64 });
  });

  it('rejects a parametrization that does not render back to the recorded text', () => {
    const merged = mergeWorkflow(
      { name: 'buy tea', description: '' },
      steps,
      cards,
      plan(
        [
          ['{item}', first],
          [null, first],
          [null, second],
          [null, second],
        ],
        [{ ...item, example: 'coffee' }],
      ),
    );
    expect(merged).toEqual({
      ok: false,
      problems: [
        expect.objectContaining({
          path: 'plan_step_updates[i=0].action_value',
          message: expect.stringContaining(
            'renders to "coffee" with the params\' examples, but the recorded text is "tea"',
          ),
        }),
      ],
    });
  });

  it('rejects steps out of subtask order, unknown subtasks and missing updates', () => {
    const merged = mergeWorkflow(
      { name: 'buy tea', description: '' },
      steps,
      cards,
      plan([
        ['tea', second],
        [null, first],
        [null, 'Something else.'],
      ]),
    );
    expect(merged.ok ? [] : merged.problems.map((p) => p.message)).toEqual([
      'step 1 goes back to subtask 0 after subtask 1; steps stay in order',
      'is not exactly one of the subtasks strings',
      'step 3 has no update; give one for every step from 0 to 3',
    ]);
  });

  it('keeps the safety facts the plan states and leaves unset those it does not know', () => {
    const updates: Array<[string | null, string]> = [
      ['{item}', first],
      [null, first],
      [null, second],
      [null, second],
    ];
    const merge = (facts: Partial<PassBResult>) =>
      mergeWorkflow({ name: 'buy tea', description: '' }, steps, cards, {
        ...plan(updates, [item]),
        ...facts,
      });
    const stated = merge({
      requires_login: true,
      side_effects: ['Places an order for the item.', ' '],
      stops_before_payment: false,
      safety_notes: ['Spends money.'],
    });
    expect(stated.ok && stated.workflow).toMatchObject({
      requires_login: true,
      side_effects: ['Places an order for the item.'],
      stops_before_payment: false,
      safety_notes: ['Spends money.'],
    });
    const unknown = merge({});
    expect(unknown.ok).toBe(true);
    if (!unknown.ok) return;
    expect(unknownSafetyFacts(unknown.workflow)).toEqual([
      'requires_login',
      'side_effects',
      'stops_before_payment',
    ]);
    expect(unknown.workflow.safety_notes).toBeUndefined();
    // "Changes nothing" is a claim the model makes, kept as such.
    const none = merge({ side_effects: [] });
    expect(none.ok && none.workflow.side_effects).toEqual([]);
  });
});
