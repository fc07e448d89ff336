import type { ChatCompletionMessage } from 'openai/resources/chat/completions';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { parseModelJson, stripReasoning } from '../src/output.ts';
import { readReplyCalls, readTextCalls } from '../src/tool-reader.ts';
import { checkToolCall } from '../src/tools.ts';
import { readUiTarsReply } from '../src/ui-tars.ts';

const message = (fields: Record<string, unknown>) =>
  ({ role: 'assistant', refusal: null, content: null, ...fields }) as unknown as ChatCompletionMessage;

const calls = (text: string) =>
  readTextCalls(text).calls.map((c) => ({ name: c.name, args: c.args.ok ? c.args.value : c.args.problems }));

describe('reasoning', () => {
  it('strips think blocks, a bare leading </think> and an unclosed <think>', () => {
    expect(stripReasoning('<think>draft {"a": 1}</think>\n{"b": 2}')).toBe('{"b": 2}');
    expect(stripReasoning('planning...\n</think>\n\n{"b": 2}')).toBe('{"b": 2}');
    expect(stripReasoning('{"b": 2}\n<think>cut off at the token lim')).toBe('{"b": 2}');
  });

  it('parses plans after </think>, in fences, in prose, and with JSON5 sloppiness', () => {
    expect(parseModelJson('</think>\n\n{"subtasks": []}')).toEqual({ ok: true, value: { subtasks: [] } });
    expect(parseModelJson('Here it is:\n```json\n{"a": [1, 2]}\n```\nDone.')).toEqual({
      ok: true,
      value: { a: [1, 2] },
    });
    expect(parseModelJson("{'a': 'b', 'c': [1, 2,],}")).toEqual({ ok: true, value: { a: 'b', c: [1, 2] } });
    expect(parseModelJson('The answer is {"a": 1} as asked')).toEqual({ ok: true, value: { a: 1 } });
    const bad = parseModelJson('{"a": ');
    expect(bad.ok ? null : bad.problems[0]?.message).toMatch(/^not valid JSON \(/);
  });
});

describe('tool calls in text', () => {
  it('counts no draft call inside a think block', () => {
    const text =
      '<think>Maybe <tool_call>{"name": "computer_use", "arguments": {"action": "wait"}}</tool_call>? No.</think>\n<tool_call>\n{"name": "computer_use", "arguments": {"action": "left_click", "coordinate": [412, 88]}}\n</tool_call>';
    expect(calls(text)).toEqual([
      { name: 'computer_use', args: { action: 'left_click', coordinate: [412, 88] } },
    ]);
  });

  it('reads a call trapped in the reasoning only when the reply is nothing but reasoning', () => {
    const draft = '<think>Call <tool_call>{"name": "done", "arguments": {}}</tool_call> now.</think>';
    expect(calls(draft)).toEqual([{ name: 'done', args: {} }]);
    expect(calls(`${draft}\nThe song is already playing, nothing to do.`)).toEqual([]);
  });

  it('reads parameters for arguments, string arguments, a missing closing tag and two real calls', () => {
    expect(calls('<tool_call>{"name": "done", "parameters": {"observation": "ok"}}')).toEqual([
      { name: 'done', args: { observation: 'ok' } },
    ]);
    expect(
      calls('<tool_call>{"name": "done", "arguments": "{\\"observation\\": \\"x\\"}"}</tool_call>'),
    ).toEqual([{ name: 'done', args: { observation: 'x' } }]);
    expect(calls('<tool_call>{"name": "a"}</tool_call>\n<tool_call>{"name": "b"}</tool_call>')).toHaveLength(
      2,
    );
  });

  it("reads Qwen's XML form, arrays parsed and text kept", () => {
    const text =
      '<tool_call>\n<function=computer_use>\n<parameter=action>\nleft_click\n</parameter>\n<parameter=coordinate>\n[412, 88]\n</parameter>\n<parameter=text>\n42\n</parameter>\n</function>\n</tool_call>';
    expect(calls(text)).toEqual([
      { name: 'computer_use', args: { action: 'left_click', coordinate: [412, 88], text: '42' } },
    ]);
  });

  it('reads a bare or fenced JSON envelope, and leaves prose without a call alone', () => {
    expect(calls('```json\n{"name": "done", "arguments": {}}\n```')).toEqual([{ name: 'done', args: {} }]);
    expect(calls('{"function": {"name": "done", "arguments": "{}"}}')).toEqual([{ name: 'done', args: {} }]);
    expect(calls('I clicked the button named "Play".')).toEqual([]);
  });
});

describe('native calls', () => {
  it('reads arguments as an object or missing, calls without type, and falls back to the content', () => {
    const native = readReplyCalls(
      message({
        tool_calls: [
          { id: 'a', function: { name: 'done', arguments: { observation: 'o' } } },
          { id: 'b', type: 'function', function: { name: 'done' } },
          { id: 'c', type: 'custom', custom: { name: 'x', input: '' } },
        ],
      }),
    );
    expect(native.source).toBe('native');
    expect(native.calls.map((c) => [c.id, c.args])).toEqual([
      ['a', { ok: true, value: { observation: 'o' } }],
      ['b', { ok: true, value: {} }],
    ]);
    const content = readReplyCalls(
      message({ content: '<tool_call>\n{"name": "done", "arguments": {}}\n</tool_call>', tool_calls: [] }),
    );
    expect(content.source).toBe('content');
    expect(content.calls.map((c) => c.name)).toEqual(['done']);
  });
});

describe('UI-TARS replies', () => {
  const read = (text: string) => {
    const result = readUiTarsReply(text);
    return result.ok ? result.value : result.problems.map((p) => p.message);
  };
  it('reads every spelling of a point, boxes as their center, and escaped text', () => {
    expect(read("Thought: The field.\nAction: click(start_box='(412,88)')")).toEqual({
      name: 'click',
      args: { start_box: [412, 88] },
      thought: 'The field.',
    });
    expect(read("Action: click(start_box='<|box_start|>(412,88)<|box_end|>')")).toMatchObject({
      args: { start_box: [412, 88] },
    });
    expect(read("Action: click(point='<point>412 88</point>')")).toMatchObject({
      args: { point: [412, 88] },
    });
    expect(read("Action: left_double(start_box='(10,20,30,40)')")).toMatchObject({
      args: { start_box: [20, 30] },
    });
    expect(read("Thought: t\nAction: type(content='it\\'s \\\"ok\\\"\\n')")).toMatchObject({
      name: 'type',
      args: { content: 'it\'s "ok"\n' },
    });
    expect(read('Thought: done\nAction: finished()')).toMatchObject({ name: 'finished', args: {} });
  });

  it("reads doubao's full-width colon and an Action: after the thought on the same line", () => {
    // Verbatim shapes: doubao-1.5-ui-tars writes "Action：" (see fixtures/model-outputs/), and
    // UI-TARS-desktop sessions show the action after the thought's last sentence on one line.
    expect(read("Thought：点击搜索框。\nAction：click(start_box='(412,88)')")).toEqual({
      name: 'click',
      args: { start_box: [412, 88] },
      thought: '点击搜索框。',
    });
    expect(read("Thought: The search field is empty. Action: type(content='Numb')")).toEqual({
      name: 'type',
      args: { content: 'Numb' },
      thought: 'The search field is empty.',
    });
  });

  it('refuses a reply without an action, with two actions, or with a point it cannot read', () => {
    expect(read('Thought: hmm')).toEqual(['no "Action:" line; end the reply with Action: <one action>']);
    expect(read("Action: click(start_box='(1,2)')\n\nclick(start_box='(3,4)')")).toEqual([
      '2 actions; write exactly one action per reply',
    ]);
    expect(read("Action: click(start_box='the button')")).toEqual([
      '"the button" is not a point such as \'(412,88)\'',
    ]);
  });
});

describe('checkToolCall', () => {
  const tools = [
    {
      name: 'done',
      description: 'The subtask is complete.',
      parameters: z.strictObject({ observation: z.string(), result: z.string().nullable() }),
    },
  ] as const;

  it('drops keys the tool does not define and names them; what it defines is still checked', () => {
    expect(checkToolCall(tools, 'done', { observation: 'ok', result: 'played', status: 'success' })).toEqual({
      ok: true,
      value: { name: 'done', args: { observation: 'ok', result: 'played' }, dropped: ['status'] },
    });
    const wrong = checkToolCall(tools, 'done', { observation: 3, result: null, extra: 1 });
    expect(wrong.ok).toBe(false);
    expect(checkToolCall(tools, 'finish', {})).toMatchObject({
      ok: false,
      problems: [{ message: 'unknown tool "finish"; the tools are: done' }],
    });
  });
});
