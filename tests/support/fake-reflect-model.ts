/**
 * A stand-in for the vision model in reflect tests: answers Pass A (`step_card`) and Pass B
 * (`task_plan`) the way a model would, from what the request holds: the recorded action in the
 * prompt, the two screenshots (it checks they are real PNGs and says what it saw), the step
 * summaries. Use with `server.setHandler(reflectModel())`.
 */
import type { FakeChatBody, FakeHandler, FakeMessage, FakeReply } from './fake-model-server.ts';

export interface ReflectModelOptions {
  /** Name given to the param that typed text becomes. Default `song_name`. */
  paramName?: string;
  /** Delay of every reply, ms (to simulate latency). Default 0. */
  delayMs?: number;
  /** Returns a reply to use instead (a fault) for the n-th request (0-based), or undefined. */
  fault?: (n: number, kind: 'step_card' | 'task_plan') => FakeReply | undefined;
  /**
   * The plan of another task than the demo's: the typed texts become these params in order, the
   * steps up to the first KEYPRESS form the first subtask, the rest the second. Default: the demo's.
   */
  plan?: {
    params: string[];
    subtasks: [string, string];
    description: string;
    success: string;
    /** The safety facts Pass B states. Default: each unknown (null). */
    safety?: {
      requires_login: boolean | null;
      side_effects: string[] | null;
      stops_before_payment: boolean | null;
      safety_notes: string[];
    };
  };
}

const UNKNOWN_SAFETY = {
  requires_login: null,
  side_effects: null,
  stops_before_payment: null,
  safety_notes: [],
};

/** Pass B for {@link ReflectModelOptions.plan}. */
function customPlan(prompt: string, plan: NonNullable<ReflectModelOptions['plan']>) {
  const summaries = recordedSteps(prompt);
  const typed = summaries.filter((s) => s.action_type === 'TYPE');
  const split = summaries.findIndex((s) => s.action_type === 'KEYPRESS');
  return {
    detailed_task_description: plan.description,
    subtasks: plan.subtasks,
    task_params: typed.slice(0, plan.params.length).map((s, k) => ({
      name: plan.params[k],
      type: 'string',
      description: `The text typed at step ${s.i}.`,
      example: s.action_value,
      sensitive: false,
      optional: false,
    })),
    success_criteria: plan.success,
    ...(plan.safety ?? UNKNOWN_SAFETY),
    plan_step_updates: summaries.map((s) => {
      const k = typed.indexOf(s);
      return {
        i: s.i,
        action_value: k >= 0 && k < plan.params.length ? `{${plan.params[k]}}` : s.action_value,
        subtask: plan.subtasks[split >= 0 && s.i > split ? 1 : 0],
      };
    }),
  };
}

type Kind = 'step_card' | 'task_plan';

function kindOf(body: FakeChatBody | undefined): { kind: Kind; viaTool: boolean } | undefined {
  const format = body?.response_format?.json_schema?.name;
  if (format === 'step_card' || format === 'task_plan') return { kind: format, viaTool: false };
  const tool = body?.tools?.[0]?.function.name;
  if (tool === 'step_card' || tool === 'task_plan') return { kind: tool, viaTool: true };
  return undefined;
}

function textOf(messages: readonly FakeMessage[]): string {
  return messages
    .filter((m) => m.role === 'user')
    .map((m) =>
      typeof m.content === 'string' ? m.content : (m.content ?? []).map((p) => p.text ?? '').join('\n'),
    )
    .join('\n');
}

/** Width and height of each PNG image sent (from its IHDR chunk). */
function pngSizes(messages: readonly FakeMessage[]): Array<{ width: number; height: number }> {
  const sizes: Array<{ width: number; height: number }> = [];
  for (const message of messages) {
    if (typeof message.content === 'string' || !message.content) continue;
    for (const part of message.content) {
      const url = part.image_url?.url;
      if (!url?.startsWith('data:image/png;base64,')) continue;
      const png = Buffer.from(url.slice('data:image/png;base64,'.length), 'base64');
      if (png.toString('latin1', 1, 4) === 'PNG')
        sizes.push({ width: png.readUInt32BE(16), height: png.readUInt32BE(20) });
    }
  }
  return sizes;
}

function stepCard(prompt: string, sizes: Array<{ width: number; height: number }>) {
  const i = Number(/Step (\d+) of/.exec(prompt)?.[1] ?? 0);
  const type = /action_type: (\w+)/.exec(prompt)?.[1] ?? 'CLICK';
  const rawValue = /action_value: (.*)$/m.exec(prompt)?.[1] ?? 'null';
  const value = rawValue === 'null' ? null : (JSON.parse(rawValue) as string);
  const screen = sizes[0]
    ? `a ${sizes[0].width}x${sizes[0].height} screen of the demo player`
    : 'an unknown screen';
  const intents: Record<string, string> = {
    CLICK: 'Click the control the task needs next.',
    TYPE: `Type ${value === '<secret>' ? 'the secret' : 'the search text'} into the focused field.`,
    KEYPRESS: `Press ${value} to confirm.`,
    EXTRACT: `Read ${value} from the screen.`,
  };
  return {
    i,
    expected_current_state: `${screen} with the search field and results visible`,
    intent: intents[type] ?? `Perform the ${type.toLowerCase()} the task needs.`,
    action_type: type,
    action_value: value,
    target: { primary: `the element the ${type.toLowerCase()} acts on`, fallback: null },
    post_action: ['The screen updates to show the result of the action.'],
  };
}

/** The step summaries of a Pass B prompt: the JSON inside its `recorded steps` data block. */
function recordedSteps(prompt: string): Summary[] {
  const start = prompt.indexOf('[', prompt.indexOf('<data source="recorded steps">'));
  return JSON.parse(prompt.slice(start, prompt.lastIndexOf('</data>'))) as Summary[];
}

interface Summary {
  i: number;
  action_type: string;
  action_value: string | null;
}

function taskPlan(prompt: string, paramName: string) {
  const summaries = recordedSteps(prompt);
  const typed = summaries.find((s) => s.action_type === 'TYPE' && s.action_value !== '<secret>');
  const secret = summaries.find((s) => s.action_value === '<secret>');
  const params = [
    ...(typed
      ? [
          {
            name: paramName,
            type: 'string',
            description: 'The text typed into the search field.',
            example: typed.action_value,
            sensitive: false,
            optional: false,
          },
        ]
      : []),
    ...(secret
      ? [
          {
            name: 'password',
            type: 'string',
            description: 'The secret typed.',
            example: null,
            sensitive: true,
            optional: false,
          },
        ]
      : []),
  ];
  const split = summaries.findIndex((s) => s.action_type === 'KEYPRESS');
  const subject = typed ? `{${paramName}}` : 'the song';
  const subtasks =
    split >= 0 && split < summaries.length - 1
      ? [
          `Search for ${subject} in the demo player. Expected outcome: the results list shows ${subject}.`,
          `Play ${subject} from the results and read what is playing. Expected outcome: ${subject} is playing.`,
        ]
      : [`Do the task with ${subject}. Expected outcome: the task is done.`];
  return {
    detailed_task_description: 'Search the demo player and play the song.',
    subtasks,
    task_params: params,
    success_criteria: 'The requested song is playing.',
    // Playing a song in the demo player: no account, nothing changed beyond the screen, no payment.
    requires_login: false,
    side_effects: [],
    stops_before_payment: null,
    safety_notes: ['Plays audio out loud.'],
    plan_step_updates: summaries.map((s) => ({
      i: s.i,
      action_value: s === typed ? `{${paramName}}` : s === secret ? '{password}' : s.action_value,
      subtask: subtasks[split >= 0 && s.i > split && subtasks.length > 1 ? 1 : 0] as string,
    })),
  };
}

export function reflectModel(options: ReflectModelOptions = {}): FakeHandler {
  let n = 0;
  return (request) => {
    const found = kindOf(request.body);
    if (!found)
      return {
        type: 'error',
        status: 400,
        message: 'the reflect fake model expected step_card or task_plan',
      };
    const fault = options.fault?.(n, found.kind);
    n += 1;
    if (fault) return fault;
    const messages = request.body?.messages ?? [];
    const prompt = textOf(messages);
    const firstPrompt = textOf(messages.filter((m) => m.role === 'user').slice(0, 1));
    let value: unknown;
    if (found.kind === 'step_card') {
      const sizes = pngSizes(messages);
      if (sizes.length !== 2)
        return { type: 'error', status: 400, message: `expected 2 PNG screenshots, got ${sizes.length}` };
      value = stepCard(prompt, sizes);
    } else {
      value = options.plan
        ? customPlan(firstPrompt, options.plan)
        : taskPlan(firstPrompt, options.paramName ?? 'song_name');
    }
    const delayMs = options.delayMs ?? 0;
    return found.viaTool
      ? { type: 'tool-calls', calls: [{ name: found.kind, arguments: value }], delayMs }
      : { type: 'json', value, delayMs };
  };
}
