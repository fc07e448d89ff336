import type { Problem } from '@mime-desktop/schema';
import type {
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionMessage,
  ChatCompletionMessageParam,
} from 'openai/resources/chat/completions';
import { z } from 'zod';
import { buildJsonSchema } from './json-schema.ts';
import { type Checked, checkValue, formatProblems, type ReplyVerdict } from './output.ts';
import {
  type CallSource,
  echoCalls,
  type FoundCalls,
  readNativeCalls,
  readReplyCalls,
} from './tool-reader.ts';

/** A tool the model may call; `parameters` validates (and types) its arguments. */
export interface ToolSpec<N extends string = string, S extends z.ZodType = z.ZodType> {
  /** Function name: letters, digits, `_`, `-`. */
  name: N;
  /** What the tool does and when to use it, for the model. */
  description: string;
  parameters: S;
  /**
   * Adapts arguments as models emit them to `parameters` before validation (absent fields, another
   * vocabulary); the JSON Schema sent stays that of `parameters`.
   */
  prepare?: (args: unknown) => unknown;
}

/**
 * The call the model chose: a union over the offered tools, discriminated by `name`; `dropped` names
 * the keys the model sent that the tool does not define (ignored, never fatal).
 */
export type ToolChoice<T extends readonly ToolSpec[]> = {
  [K in keyof T]: T[K] extends ToolSpec<infer N, infer S>
    ? { name: N; args: z.output<S>; dropped: readonly string[] }
    : never;
}[number];

/** A checked tool call, with the id native tool calling gave it (none in text mode) and where it was found. */
export type CheckedToolCall<T extends readonly ToolSpec[]> = ToolChoice<T> & {
  toolCallId: string | undefined;
  source: CallSource;
};

/**
 * Checks a tool name and its arguments against the offered tools. Lenient in what a call carries,
 * strict in what it means: keys the tool's (object) parameters do not define are dropped and named
 * in `dropped`, as real vocabularies carry extra keys (ai_mime's `done.result`, Qwen's `status`);
 * the keys it does define are validated as sent.
 */
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
  const prepared = tool.prepare ? tool.prepare(args) : args;
  const { kept, dropped } = dropUnknownKeys(tool.parameters, prepared);
  const checked = checkValue(kept, tool.parameters);
  return checked.ok
    ? { ok: true, value: { name, args: checked.value, dropped } as unknown as ToolChoice<T> }
    : checked;
}

/** `args` without the keys a strict object schema does not define, and those keys. */
function dropUnknownKeys(schema: z.ZodType, args: unknown): { kept: unknown; dropped: string[] } {
  const strict = schema instanceof z.ZodObject && schema.def.catchall instanceof z.ZodNever;
  if (!strict || typeof args !== 'object' || args === null || Array.isArray(args))
    return { kept: args, dropped: [] };
  const known = schema.shape as Record<string, unknown>;
  const entries = Object.entries(args);
  const dropped = entries.filter(([key]) => !Object.hasOwn(known, key)).map(([key]) => key);
  if (dropped.length === 0) return { kept: args, dropped };
  return { kept: Object.fromEntries(entries.filter(([key]) => Object.hasOwn(known, key))), dropped };
}

/** Exactly one readable call of a known tool with valid arguments; two real calls stay an error. */
export function checkOneCall<T extends readonly ToolSpec[]>(
  tools: T,
  found: FoundCalls,
): Checked<ToolChoice<T> & { toolCallId: string | undefined }> {
  const [call, ...others] = found.calls;
  if (!call) {
    const none = { path: '', message: `no tool call; call exactly one of: ${listNames(tools)}` };
    return { ok: false, problems: found.unreadable.length > 0 ? found.unreadable : [none] };
  }
  if (others.length > 0) {
    const count = found.calls.length;
    return {
      ok: false,
      problems: [{ path: '', message: `${count} tool calls; call exactly one tool per reply` }],
    };
  }
  if (!call.args.ok) return call.args;
  const checked = checkToolCall(tools, call.name, call.args.value);
  return checked.ok ? { ok: true, value: { ...checked.value, toolCallId: call.id } } : checked;
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

/**
 * Checks a native reply: exactly one call of a known tool with valid arguments, read from
 * `tool_calls`, or from the message text when the server left the call there (source `content`).
 */
export function judgeToolReply<T extends readonly ToolSpec[]>(
  tools: T,
  message: ChatCompletionMessage,
): ReplyVerdict<CheckedToolCall<T>> {
  const found = readReplyCalls(message);
  const raw = JSON.stringify({
    content: message.content ?? null,
    tool_calls: (message as { tool_calls?: unknown }).tool_calls ?? [],
  });
  const checked = checkOneCall(tools, found);
  if (checked.ok) return { ok: true, value: { ...checked.value, source: found.source }, raw };
  const { problems } = checked;
  const many = found.calls.length > 1;
  const explain =
    found.calls.length === 0
      ? `You must call exactly one tool (one of: ${listNames(tools)}). Call it now.`
      : many
        ? `Not executed: you made ${found.calls.length} tool calls at once. Call exactly one tool per reply.`
        : notExecuted(problems);
  return { ok: false, raw, problems, repair: toolRepairMessages(message, explain, explain) };
}

/**
 * Messages that hand an unusable reply back: the reply itself, then, when it made native tool calls,
 * a `tool` result for each (the API requires one per call id) saying `explain`; otherwise a user
 * message `ask`. Echoed calls are made well-formed (type, id, string arguments).
 */
export function toolRepairMessages(
  message: ChatCompletionMessage,
  explain: string,
  ask = explain,
): ChatCompletionMessageParam[] {
  const calls = echoCalls(readNativeCalls(message).calls);
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
