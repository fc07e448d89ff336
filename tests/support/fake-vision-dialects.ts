/**
 * How the fake vision model writes its answers: mime's native calls, Qwen's forms, pixel points,
 * UI-TARS's grammar, in mime's or ai_mime's vocabulary.
 */
import type { FakeReply } from './fake-model-server.ts';

/**
 * How the fake writes its answers, after real models and servers (see fixtures/model-outputs/):
 * - `mime`: native tool calls with every field, coordinates on the 0..1000 grid;
 * - `qwen-native`: native calls as Ollama returns Qwen's: no `type`, arguments as an object, Qwen's
 *   computer-use vocabulary (only the fields an action uses, `keys` as an array, `time`, `pixels`),
 *   no observation or task memory;
 * - `qwen-content`: the Hermes `<tool_call>` block left in the message text (vLLM/LM Studio when
 *   their parser misses it), after a `<think>` block that holds a draft call;
 * - `qwen-xml`: Qwen's XML call form after a bare `</think>`; plans start with `</think>` too;
 * - `pixels`: like `mime` but points in pixels of the image sent (Qwen2.5-VL, UI-TARS-1.5);
 * - `ui-tars`: UI-TARS's `Thought: ... Action: click(start_box='<|box_start|>(x,y)<|box_end|>')`
 *   grammar on the 0..1000 grid (UI-TARS-1.0); done is `finished()`, an extract `finished(content=)`.
 */
export type FakeVisionDialect = 'mime' | 'qwen-native' | 'qwen-content' | 'qwen-xml' | 'pixels' | 'ui-tars';

/**
 * Which tool arguments the fake writes, whatever its dialect:
 * - `mime`: mime's own (Qwen's computer-use names in the `qwen-*` dialects);
 * - `ai-mime`: the seed system's replay tools, as ai_mime's grounding prompt defines them
 *   (github.com/prakhar1114/ai_mime, src/ai_mime/replay/grounding.py at 088d8a29): `computer_use`
 *   with Qwen's fields (`keys` an array, `time`, `pixels`) plus `observation` and `task_memory`;
 *   `extract {variable_name, query, observation, task_memory}` with no value (ai_mime reads it in a
 *   second request, which the fake answers too); `done {result, task_memory}`. In the `qwen-content`
 *   dialect the end of a subtask is Qwen's own `terminate` with `status` (an older ai_mime prompt,
 *   qwen_grounding.py at 01a7564d). In UI-TARS's grammar an extract is `finished()` and done is
 *   `finished(content='<result>')`.
 */
export type FakeVisionVocabulary = 'mime' | 'ai-mime';

/** Tool call arguments, by name. */
export type ToolArgs = Record<string, unknown>;

/** The fields a Qwen computer-use call carries for `args` (mime's vocabulary), in Qwen's names. */
function qwenArgs(args: ToolArgs): ToolArgs {
  const { observation, task_memory, keys, wait_seconds, scroll_direction, scroll_amount, ...rest } = args;
  const out: ToolArgs = Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== null));
  if (typeof keys === 'string') out.keys = keys.split('+');
  if (typeof wait_seconds === 'number') out.time = wait_seconds;
  if (typeof scroll_direction === 'string') {
    const notches = typeof scroll_amount === 'number' ? scroll_amount : 3;
    out.pixels = scroll_direction === 'up' ? notches : -notches;
  }
  return out;
}

/** A call in ai_mime's replay vocabulary (see {@link FakeVisionVocabulary}). */
function aiMimeCall(
  name: string,
  args: ToolArgs,
  dialect: FakeVisionDialect,
): { name: string; args: ToolArgs } {
  const { observation, task_memory } = args;
  switch (name) {
    case 'computer_use':
      return { name, args: { ...qwenArgs(args), observation, task_memory } };
    case 'extract': {
      const { value: _value, ...rest } = args;
      return { name, args: rest };
    }
    case 'done':
      return dialect === 'qwen-content'
        ? { name: 'computer_use', args: { action: 'terminate', status: 'success', observation, task_memory } }
        : { name, args: { result: observation, task_memory } };
    default:
      return { name, args };
  }
}

function xmlCall(name: string, args: ToolArgs): string {
  const params = Object.entries(args).map(
    ([key, value]) =>
      `<parameter=${key}>\n${typeof value === 'string' ? value : JSON.stringify(value)}\n</parameter>`,
  );
  return [`<function=${name}>`, ...params, '</function>'].join('\n');
}

const quoted = (text: string) =>
  `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\n/g, '\\n')}'`;

/** One agent call as a UI-TARS action. */
function uiTarsAction(name: string, args: ToolArgs, vocabulary: FakeVisionVocabulary): string {
  const box = (point: unknown) =>
    Array.isArray(point) ? `'<|box_start|>(${point[0]},${point[1]})<|box_end|>'` : "''";
  if (vocabulary === 'ai-mime' && name === 'done')
    return `finished(content=${quoted(String(args.observation))})`;
  if (vocabulary === 'ai-mime' && name === 'extract') return 'finished()';
  if (name === 'done') return 'finished()';
  if (name === 'extract') return `finished(content=${quoted(String(args.value))})`;
  if (name === 'replan') return 'call_user()';
  switch (args.action) {
    case 'left_click':
      return `click(start_box=${box(args.coordinate)})`;
    case 'double_click':
      return `left_double(start_box=${box(args.coordinate)})`;
    case 'mouse_move':
      return `hover(start_box=${box(args.coordinate)})`;
    case 'key':
      return `hotkey(key=${quoted(String(args.keys).split('+').join(' '))})`;
    case 'type':
      return `type(content=${quoted(String(args.text))})`;
    case 'wait':
      return 'wait()';
    default:
      return `scroll(start_box=${box(args.coordinate)}, direction='down')`;
  }
}

/** A reply as written in `dialect`; `image` is the screenshot's size (for pixel coordinates). */
export function speak(
  reply: FakeReply,
  dialect: FakeVisionDialect,
  image: { width: number; height: number } | null,
  vocabulary: FakeVisionVocabulary,
): FakeReply {
  if (dialect === 'mime' && vocabulary === 'mime') return reply;
  if (reply.type === 'json') {
    return dialect === 'qwen-xml'
      ? { type: 'text', content: `</think>\n\n${JSON.stringify(reply.value)}` }
      : reply;
  }
  if (reply.type !== 'tool-calls') return reply;
  const [original] = reply.calls;
  if (!original) return reply;
  if (dialect === 'ui-tars') {
    const args = original.arguments as ToolArgs;
    const thought = String(args.observation || 'I look at the screen.');
    return {
      type: 'text',
      content: `Thought: ${thought}\nAction: ${uiTarsAction(original.name, args, vocabulary)}`,
    };
  }
  const spoken =
    vocabulary === 'ai-mime'
      ? aiMimeCall(original.name, original.arguments as ToolArgs, dialect)
      : { name: original.name, args: original.arguments as ToolArgs };
  const first = { name: spoken.name, arguments: spoken.args };
  const args = spoken.args;
  if (dialect === 'mime') return { type: 'tool-calls', calls: [first] };
  if (dialect === 'pixels') {
    const toPixels = (point: unknown) =>
      Array.isArray(point) && image
        ? [Math.round((point[0] / 1000) * image.width), Math.round((point[1] / 1000) * image.height)]
        : point;
    return {
      type: 'tool-calls',
      calls: [
        {
          name: first.name,
          arguments: {
            ...args,
            coordinate: toPixels(args.coordinate),
            end_coordinate: toPixels(args.end_coordinate),
          },
        },
      ],
    };
  }
  const qwen =
    vocabulary === 'ai-mime'
      ? args
      : first.name === 'computer_use'
        ? qwenArgs(args)
        : (({ observation, task_memory, ...rest }) => rest)(args);
  switch (dialect) {
    case 'qwen-native':
      return {
        type: 'message',
        message: {
          content: '',
          tool_calls: [{ id: `call_${Date.now()}`, function: { name: first.name, arguments: qwen } }],
        },
      };
    case 'qwen-content': {
      const block = JSON.stringify({ name: first.name, arguments: qwen });
      const draft = JSON.stringify({ name: 'computer_use', arguments: { action: 'wait', time: 1 } });
      return {
        type: 'message',
        message: {
          content: `<think>\nMaybe I should wait first: <tool_call>${draft}</tool_call>. No, act now.\n</think>\n\n<tool_call>\n${block}\n</tool_call>`,
        },
      };
    }
    case 'qwen-xml':
      return {
        type: 'message',
        message: { content: `</think>\n\n<tool_call>\n${xmlCall(first.name, qwen)}\n</tool_call>` },
      };
  }
}
