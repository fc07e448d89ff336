import { describe, expect, it } from 'vitest';
import { actionSignature, describeAction, resolveComputerAction } from '../src/actions/computer-action.ts';
import type { AgentCall, ComputerUseArgs } from '../src/agent/agent-tools.ts';
import { AGENT_TOOLS } from '../src/agent/agent-tools.ts';
import { checkAgentCall } from '../src/agent/check-call.ts';

const screen = { width: 1280, height: 800 };
const base: ComputerUseArgs = {
  observation: 'o',
  task_memory: 'm',
  action: 'left_click',
  coordinate: null,
  end_coordinate: null,
  text: null,
  keys: null,
  scroll_direction: null,
  scroll_amount: null,
  wait_seconds: null,
};
const use = (args: Partial<ComputerUseArgs>): ComputerUseArgs => ({ ...base, ...args });

describe('resolveComputerAction', () => {
  it('maps each action to logical pixels with its defaults', () => {
    const resolved = [
      use({ coordinate: [500, 500] }),
      use({ action: 'double_click', coordinate: [0, 0] }),
      use({ action: 'left_click_drag', coordinate: [100, 100], end_coordinate: [900, 900] }),
      use({ action: 'type', text: 'Faint\n' }),
      use({ action: 'key', keys: 'ctrl+a' }),
      use({ action: 'scroll', scroll_direction: 'down' }),
      use({ action: 'scroll', scroll_direction: 'up', scroll_amount: 5, coordinate: [500, 250] }),
      use({ action: 'wait' }),
    ].map((args) => {
      const result = resolveComputerAction(args, screen);
      if (!result.ok) throw new Error(JSON.stringify(result.problems));
      return describeAction(result.action);
    });
    expect(resolved).toEqual([
      'left_click at (640, 400)',
      'double_click at (0, 0)',
      'left_click_drag from (128, 80) to (1152, 720)',
      'type "Faint\\n"',
      'key ctrl+a',
      'scroll down 3',
      'scroll up 5 at (640, 200)',
      'wait 1 s',
    ]);
  });

  it('names the missing or bad field and says what to send', () => {
    const problems = (args: Partial<ComputerUseArgs>) => {
      const result = resolveComputerAction(use(args), screen);
      return result.ok ? [] : result.problems.map((p) => `${p.path}: ${p.message}`);
    };
    expect(problems({ action: 'right_click' })).toEqual([
      'coordinate: right_click needs a coordinate [x, y] on the 0..1000 grid',
    ]);
    expect(problems({ action: 'left_click_drag' })).toHaveLength(2);
    expect(problems({ action: 'type', text: '' })).toEqual(['text: type needs the text to type']);
    expect(problems({ action: 'type', text: 'a\u001bb' })[0]).toContain('control character');
    expect(problems({ action: 'key', keys: 'ctrl+banana' })[0]).toMatch(/^keys: unknown key "banana"/);
    expect(problems({ action: 'scroll' })).toEqual([
      'scroll_direction: scroll needs scroll_direction: up, down, left or right',
    ]);
  });
});

describe('the computer_use schema', () => {
  const schema = AGENT_TOOLS[0].parameters;
  it('rejects coordinates off the grid and unknown actions (repaired by the model client)', () => {
    expect(schema.safeParse(use({ coordinate: [1001, 5] })).success).toBe(false);
    expect(schema.safeParse(use({ coordinate: [5] })).success).toBe(false);
    expect(schema.safeParse({ ...use({}), action: 'triple_click' }).success).toBe(false);
    expect(schema.safeParse(use({ coordinate: [1000, 0] })).success).toBe(true);
  });
});

describe('checkAgentCall', () => {
  const context = {
    screen,
    requiredExtracts: [{ variable: 'now_playing', query: 'the song playing' }],
    extracted: new Set<string>(),
  };
  const call = (name: string, args: Record<string, unknown>) =>
    ({ name, args: { observation: 'o', task_memory: 'm', ...args } }) as AgentCall;

  it('refuses done before the subtask extracted its values', () => {
    expect(checkAgentCall(call('done', {}), context)).toEqual({
      ok: false,
      problems: [
        {
          path: '',
          message:
            'the subtask is not done: extract now_playing first (the song playing) with the extract tool',
        },
      ],
    });
    expect(checkAgentCall(call('done', {}), { ...context, extracted: new Set(['now_playing']) }).ok).toBe(
      true,
    );
  });

  it('wants extracts named as the subtask asks, with a value', () => {
    const result = checkAgentCall(
      call('extract', { variable_name: 'title', query: 'q', value: ' ' }),
      context,
    );
    expect(result.ok ? [] : result.problems.map((p) => p.path)).toEqual(['variable_name', 'value']);
    expect(
      checkAgentCall(call('extract', { variable_name: 'now_playing', query: 'q', value: 'Faint' }), context)
        .ok,
    ).toBe(true);
  });

  it('resolves computer_use calls', () => {
    const result = checkAgentCall({ name: 'computer_use', args: use({ coordinate: [10, 10] }) }, context);
    expect(result).toEqual({ ok: true, action: { action: 'left_click', point: { x: 12, y: 8 } } });
  });
});

describe('actionSignature', () => {
  it('treats nearby clicks as the same action, other text as another', () => {
    expect(actionSignature(use({ coordinate: [501, 499] }))).toBe(
      actionSignature(use({ coordinate: [503, 502] })),
    );
    expect(actionSignature(use({ coordinate: [501, 499] }))).not.toBe(
      actionSignature(use({ coordinate: [540, 499] })),
    );
    expect(actionSignature(use({ action: 'type', text: 'a' }))).not.toBe(
      actionSignature(use({ action: 'type', text: 'b' })),
    );
  });
});
