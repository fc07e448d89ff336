import { describe, expect, it } from 'vitest';
import { describeAction } from '../src/actions/computer-action.ts';
import type { AgentCall, ComputerUseArgs } from '../src/agent/agent-tools.ts';
import { agentTools, canonicalCall, prepareComputerUse } from '../src/agent/agent-tools.ts';
import { checkAgentCall } from '../src/agent/check-call.ts';
import { actionSignature, resolveComputerAction } from '../src/agent/computer-call.ts';
import type { PointSpace } from '../src/agent/coordinates.ts';

const screen = { width: 1280, height: 800 };
const space: PointSpace = { convention: 'grid1000', image: { width: 1280, height: 800 }, screen };
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
  status: null,
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
      const result = resolveComputerAction(args, space);
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
      const result = resolveComputerAction(use(args), space);
      return result.ok ? [] : result.problems.map((p) => `${p.path}: ${p.message}`);
    };
    expect(problems({ action: 'right_click' })).toEqual([
      'coordinate: right_click needs a coordinate: [x, y] on a 0..1000 grid over the screenshot: [0, 0] is its top-left corner and [1000, 1000] its bottom-right',
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

describe('coordinate conventions', () => {
  const at = (
    convention: PointSpace['convention'],
    coordinate: number[],
    image = { width: 1280, height: 800 },
  ) => {
    const result = resolveComputerAction(use({ coordinate }), {
      convention,
      image,
      screen: { width: 1920, height: 1080 },
    });
    return result.ok ? describeAction(result.action) : result.problems.map((p) => p.message).join('; ');
  };
  it('maps the grid, pixels of the image sent and fractions to the same screen point', () => {
    expect(at('grid1000', [250, 500])).toBe('left_click at (480, 540)');
    expect(at('pixels', [320, 400])).toBe('left_click at (480, 540)');
    expect(at('unit', [0.25, 0.5])).toBe('left_click at (480, 540)');
  });
  it('names a point outside the screenshot and says how to write one', () => {
    expect(at('grid1000', [1412, 88])).toBe(
      '[1412, 88] is outside the screenshot: write [x, y] on a 0..1000 grid over the screenshot: [0, 0] is its top-left corner and [1000, 1000] its bottom-right',
    );
    expect(at('pixels', [1300, 88])).toBe(
      '[1300, 88] is outside the screenshot: write [x, y] in pixels of the 1280x800 screenshot: [0, 0] is its top-left pixel',
    );
  });
});

describe('the computer_use schema', () => {
  const schema = agentTools(space)[0].parameters;
  it('names an unknown action and a point that is not two numbers (repaired by the model client)', () => {
    const messages = (args: unknown) => {
      const result = schema.safeParse(args);
      return result.success ? [] : result.error.issues.map((i) => i.message);
    };
    expect(messages(use({ coordinate: [5] }))).toEqual(['must be [x, y]: two numbers']);
    expect(messages({ ...use({}), action: 'HOVER' })[0]).toMatch(
      /^action "HOVER" is not one of left_click, /,
    );
    expect(messages(use({ coordinate: [1000, 0] }))).toEqual([]);
  });

  it("reads Qwen's computer-use vocabulary as it is emitted", () => {
    const read = (args: Record<string, unknown>) => schema.parse(prepareComputerUse(args));
    expect(read({ action: 'left_click', coordinate: [412, 88] })).toMatchObject({
      action: 'left_click',
      coordinate: [412, 88],
      observation: '',
      task_memory: null,
      text: null,
    });
    expect(read({ action: 'key', keys: ['ctrl', 's'] }).keys).toBe('ctrl+s');
    expect(read({ action: 'scroll', pixels: -5 })).toMatchObject({
      scroll_direction: 'down',
      scroll_amount: 5,
    });
    expect(read({ action: 'scroll', coordinate: '[640, 400]', pixels: 300 })).toMatchObject({
      scroll_direction: 'up',
      scroll_amount: 3,
      coordinate: [640, 400],
    });
    expect(read({ action: 'hscroll', pixels: 2 })).toMatchObject({
      action: 'scroll',
      scroll_direction: 'right',
    });
    expect(read({ action: 'wait', time: '2' }).wait_seconds).toBe(2);
    // Qwen's `terminate` (ai_mime's first vocabulary) ends the subtask: done on success, replan on failure.
    const terminate = (status: string) => {
      const args = schema.parse(
        prepareComputerUse({ action: 'terminate', status, observation: 'Numb plays.' }),
      );
      return canonicalCall({ name: 'computer_use', args, dropped: [] });
    };
    expect(terminate('success')).toMatchObject({ name: 'done', args: { observation: 'Numb plays.' } });
    expect(terminate('failure')).toMatchObject({ name: 'replan', args: { reason: 'Numb plays.' } });
    expect(schema.safeParse(prepareComputerUse({ action: 'terminate', status: 'maybe' })).success).toBe(
      false,
    );
  });
});

describe('checkAgentCall', () => {
  const context = {
    space,
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
    const result = checkAgentCall(
      { name: 'computer_use', args: use({ coordinate: [10, 10] }), dropped: [] },
      context,
    );
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
