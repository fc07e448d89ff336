import type { Problem } from '@mime-desktop/schema';
import type {
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionMessage,
  ChatCompletionMessageFunctionToolCall,
  ChatCompletionMessageParam,
} from 'openai/resources/chat/completions';
import type { z } from 'zod';
import { buildJsonSchema } from './json-schema.ts';
import { type Checked, checkValue, formatProblems, parseModelJson, type ReplyVerdict } from './output.ts';

/** A tool the model may call; `parameters` validates (and types) its arguments. */
export interface ToolSpec<N extends string = string, S extends z.ZodType = z.ZodType> {
  /** Function name: letters, digits, `_`, `-`. */
  name: N;
  /** What the tool does and when to use it, for the model. */
  description: string;
  parameters: S;
}

/** The call the model chose: a union over the offered tools, discriminated by `name`. */
export type ToolChoice<T extends readonly ToolSpec[]> = {
  [K in keyof T]: T[K] extends ToolSpec<infer N, infer S> ? { name: N; args: z.output<S> } : never;
}[number];

/** A checked tool call, with the id native tool calling gave it (none in text mode). */
export type CheckedToolCall<T extends readonly ToolSpec[]> = ToolChoice<T> & {
  toolCallId: string | undefined;
};

/** Checks a tool name and its arguments against the offered tools. */
export function checkToolCall<T extends readonly ToolSpec[]>(
  tools: T,
  name: string,
  args: unknown,
): Checked<ToolChoice<T>> {
  const tool = tools.find((t) => t.name === name);
  if (!tool) {
    return {
      ok: false,
      problems: [{ path: '', message: `unknown tool "${name}"; the tools are: ${listNames(tools)}` }],
    };
  }
  const checked = checkValue(args, tool.parameters);
  return checked.ok ? { ok: true, value: { name, args: checked.value } as ToolChoice<T> } : checked;
}

/** The body offering the tools natively, with `tool_choice: required` and one call per reply. */
export function buildToolBody(
  model: string,
  tools: readonly ToolSpec[],
  messages: ChatCompletionMessageParam[],
): ChatCompletionCreateParamsNonStreaming {
  return {
    model,
    messages,
    tools: tools.map((tool) => {
      const { schema, strict } = buildJsonSchema(tool.parameters);
      return {
        type: 'function',
        function: { name: tool.name, description: tool.description, parameters: schema, strict },
      };
    }),
    tool_choice: 'required',
    parallel_tool_calls: false,
  };
}

/** Checks a native reply: exactly one call of a known tool with valid arguments. */
export function judgeToolReply<T extends readonly ToolSpec[]>(
  tools: T,
  message: ChatCompletionMessage,
): ReplyVerdict<CheckedToolCall<T>> {
  const calls = functionCalls(message);
  const raw = JSON.stringify({
    content: message.content ?? null,
    tool_calls: calls.map((c) => ({ name: c.function.name, arguments: c.function.arguments })),
  });
  const [call, ...others] = calls;
  if (!call) {
    const problems = [{ path: '', message: `no tool call; call exactly one of: ${listNames(tools)}` }];
    const ask = `You must call exactly one tool (one of: ${listNames(tools)}). Call it now.`;
    return { ok: false, raw, problems, repair: toolRepairMessages(message, ask, ask) };
  }
  if (others.length > 0) {
    const problems = [{ path: '', message: `${calls.length} tool calls; call exactly one tool per reply` }];
    const explain = `Not executed: you made ${calls.length} tool calls at once. Call exactly one tool per reply.`;
    return { ok: false, raw, problems, repair: toolRepairMessages(message, explain, explain) };
  }
  const args = parseArguments(call.function.arguments);
  const checked = args.ok ? checkToolCall(tools, call.function.name, args.value) : args;
  if (checked.ok) return { ok: true, value: { ...checked.value, toolCallId: call.id }, raw };
  return {
    ok: false,
    raw,
    problems: checked.problems,
    repair: toolRepairMessages(message, notExecuted(checked.problems)),
  };
}

/** The function tool calls of a reply (custom tool calls are ignored). */
export function functionCalls(message: ChatCompletionMessage): ChatCompletionMessageFunctionToolCall[] {
  return (message.tool_calls ?? []).filter(
    (c): c is ChatCompletionMessageFunctionToolCall => c.type === 'function',
  );
}

/**
 * Messages that hand an unusable reply back: the reply itself, then, when it made tool calls, a `tool`
 * result for each (the API requires one per call id) saying `explain`; otherwise a user message `ask`.
 */
export function toolRepairMessages(
  message: ChatCompletionMessage,
  explain: string,
  ask = explain,
): ChatCompletionMessageParam[] {
  const calls = functionCalls(message);
  if (calls.length === 0) {
    return [
      { role: 'assistant', content: message.content ?? '' },
      { role: 'user', content: ask },
    ];
  }
  return [
    { role: 'assistant', content: message.content ?? null, tool_calls: calls },
    ...calls.map((c): ChatCompletionMessageParam => ({ role: 'tool', tool_call_id: c.id, content: explain })),
  ];
}

/** The repair text for a call that was not executed because of `problems`. */
export function notExecuted(problems: readonly Problem[]): string {
  return `Not executed, the call is invalid:\n${formatProblems(problems)}\nCall exactly one tool again with corrected arguments.`;
}

/** Tool names as `a, b, c`. */
export function listNames(tools: readonly ToolSpec[]): string {
  return tools.map((t) => t.name).join(', ');
}

/** Arguments JSON; an empty string (a call without arguments) counts as `{}`. */
function parseArguments(text: string): Checked<unknown> {
  return text.trim() === '' ? { ok: true, value: {} } : parseModelJson(text);
}
