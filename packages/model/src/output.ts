import { type Problem, zodProblems } from '@mime-desktop/schema';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import type { z } from 'zod';

/** The verdict on one model reply: a usable value, or the problems and the messages that ask for a repair. */
export type ReplyVerdict<T> =
  | { ok: true; value: T; raw: string }
  | { ok: false; raw: string; problems: Problem[]; repair: ChatCompletionMessageParam[] };

/** A value checked against a schema, or the problems found. */
export type Checked<T> = { ok: true; value: T } | { ok: false; problems: Problem[] };

/**
 * Parses JSON the model wrote, tolerating what local models add around it: a `<think>...</think>`
 * preamble and a Markdown code fence.
 */
export function parseModelJson(text: string): Checked<unknown> {
  const stripped = text
    .replace(/<think>[\s\S]*?<\/think>/g, '')
    .trim()
    .replace(/^```(?:json)?\s*\n?([\s\S]*?)\n?```$/, '$1')
    .trim();
  if (stripped === '')
    return { ok: false, problems: [{ path: '', message: 'the reply is empty; expected JSON' }] };
  try {
    return { ok: true, value: JSON.parse(stripped) };
  } catch (error) {
    return { ok: false, problems: [{ path: '', message: `not valid JSON (${(error as Error).message})` }] };
  }
}

/** Parses JSON text and validates it with `schema`. */
export function checkJson<T>(text: string, schema: z.ZodType<T>): Checked<T> {
  const parsed = parseModelJson(text);
  return parsed.ok ? checkValue(parsed.value, schema) : parsed;
}

/** Validates a value with `schema`, reporting every issue as `path: message`. */
export function checkValue<T>(value: unknown, schema: z.ZodType<T>): Checked<T> {
  const result = schema.safeParse(value);
  return result.success
    ? { ok: true, value: result.data }
    : { ok: false, problems: zodProblems(result.error) };
}

/** Problems as `path: message` lines for a repair message. */
export function formatProblems(problems: readonly Problem[]): string {
  return problems.map((p) => `- ${p.path || '(whole output)'}: ${p.message}`).join('\n');
}
