/**
 * A stand-in for a vision-language model, for the fake model server (`server.setHandler(model.handler)`).
 * It answers `mime replay` the way a model would: it reads the subtask, the params and its own history
 * from the prompt, LOOKS at the screenshot it was sent (PNG decoded, text found by OCR) and answers
 * with one tool call whose coordinates are on the 0..1000 grid of that image, so the whole coordinate
 * path (downscale, grid, logical pixels, real input) is exercised. It knows the demo app's two kinds
 * of subtask ("Search for X in ..." and "Play X from the results ..."), answers replan requests with
 * the remaining plan, and can inject faults.
 */
import { createHash } from 'node:crypto';
import type { FakeHandler, FakeMessage, FakeReply, FakeRequest } from './fake-model-server.ts';
import {
  type Box,
  createScreenReader,
  findPhrase,
  findPhrases,
  type OcrWord,
  type ScreenText,
} from './ocr.ts';

/** Misbehaviour to inject; each count is used up by the first act requests it applies to. */
export interface FakeVisionFaults {
  /** Replies whose tool arguments are not JSON. Default 0. */
  malformed?: number;
  /** Clicks sent with a coordinate off the 0..1000 grid. Default 0. */
  outOfRange?: number;
  /** Calls of an action that does not exist (`triple_click`). Default 0. */
  unknownAction?: number;
  /** Never call done: hover an empty part of the window forever. Default false. */
  neverDone?: boolean;
  /** Until the first replan request, hover an empty part of the window instead of clicking the search field. Default false. */
  stubbornUntilReplan?: boolean;
  /** Answer the first act request with a `replan` call, as a model that does not trust the plan does. Default false. */
  replanFirst?: boolean;
  /**
   * In the play subtask, act on nothing and look at nothing: extract the song's name as the one
   * playing, and say done, as a model that takes its plan for the outcome. Default false.
   */
  claimsWithoutActing?: boolean;
}

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

export interface FakeVisionModelOptions {
  faults?: FakeVisionFaults;
  /** How answers are written. Default `mime`. */
  dialect?: FakeVisionDialect;
  /** Which tool arguments it writes. Default `mime`. */
  vocabulary?: FakeVisionVocabulary;
  /** Wait this long before each reply, ms (gives a test time to act mid-run). Default 0. */
  delayMs?: number;
}

/** What the fake saw and answered, for assertions and for debugging a failed test. */
export interface FakeVisionTurn {
  /** `extract`: a request for a value alone (mime's follow-up to an extract without one). */
  kind: 'act' | 'replan' | 'extract';
  subtask: string;
  /** The prompt's text, as the model read it. */
  prompt: string;
  image: { width: number; height: number; bytes: number } | null;
  reply: string;
}

export interface FakeVisionModel {
  handler: FakeHandler;
  turns: FakeVisionTurn[];
  close(): Promise<void>;
}

type ToolArgs = Record<string, unknown>;

interface Prompt {
  subtask: string;
  params: Map<string, string>;
  history: string[];
  extracts: Array<{ name: string; done: boolean }>;
  text: string;
  image: Buffer | null;
  /** The request hands back an invalid call: answer properly, inject nothing. */
  repairing: boolean;
}

function textOf(message: FakeMessage | undefined): string {
  if (!message?.content) return '';
  return typeof message.content === 'string'
    ? message.content
    : message.content.map((part) => part.text ?? '').join('\n');
}

function sectionOf(text: string, title: string): string[] {
  const start = text.split('\n').findIndex((line) => line.startsWith(`## ${title}`));
  if (start < 0) return [];
  const lines: string[] = [];
  for (const line of text.split('\n').slice(start + 1)) {
    if (line.startsWith('## ')) break;
    // A section's lines may stand inside a data block: the delimiters are not content.
    if (line.trim() !== '' && !line.startsWith('<data source=') && line !== '</data>') lines.push(line);
  }
  return lines;
}

function readPrompt(request: FakeRequest): Prompt {
  const messages = request.body?.messages ?? [];
  const user = messages.find((m) => m.role === 'user');
  const text = textOf(user);
  const parts = Array.isArray(user?.content) ? user.content : [];
  const url = parts.find((p) => p.type === 'image_url')?.image_url?.url ?? '';
  const image = url.startsWith('data:image/png;base64,') ? Buffer.from(url.slice(22), 'base64') : null;
  const params = new Map<string, string>();
  for (const line of sectionOf(text, 'Params')) {
    const match = /^- (\w+) = (.*?)(?: \(sensitive.*)?$/.exec(line);
    if (match?.[1] && match[2] !== undefined) params.set(match[1], match[2].replace(/^"|"$/g, ''));
  }
  return {
    subtask: sectionOf(text, 'Current subtask')[0] ?? '',
    params,
    history: sectionOf(text, 'This subtask so far').filter((l) => /^\d+\. /.test(l)),
    extracts: sectionOf(text, 'Values to extract in this subtask').map((line) => ({
      name: /^- (\w+):/.exec(line)?.[1] ?? '',
      done: line.endsWith('(extracted)'),
    })),
    text,
    image,
    repairing: messages.at(-1)?.role === 'tool' || textOf(messages.at(-1)).startsWith('Not executed'),
  };
}

const call = (name: string, args: ToolArgs): FakeReply => ({
  type: 'tool-calls',
  calls: [{ name, arguments: { observation: '', task_memory: '', ...args } }],
});

const computer = (args: ToolArgs): FakeReply =>
  call('computer_use', {
    coordinate: null,
    end_coordinate: null,
    text: null,
    keys: null,
    scroll_direction: null,
    scroll_amount: null,
    wait_seconds: null,
    ...args,
  });

/** The grid point of a box's center on an image of `screen`'s size. */
function gridOf(box: Box, screen: ScreenText): [number, number] {
  const x = box.x + box.width / 2;
  const y = box.y + box.height / 2;
  return [Math.round((x / screen.width) * 1000), Math.round((y / screen.height) * 1000)];
}

/** The first dark box whose text is `label` (and that passes `where`). */
async function findButton(screen: ScreenText, label: string, where: (box: Box) => boolean = () => true) {
  for (const box of screen
    .darkBoxes()
    .filter(where)
    .sort((a, b) => a.y - b.y)) {
    // Stray marks at a box's edge (a resampled image reads "Play |") are not part of its label.
    const text = (await screen.readBox(box)).replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '');
    if (text.toLowerCase() === label.toLowerCase()) return box;
  }
  return null;
}

/** Words on the same line after `phrase`, or null when the phrase is not on screen. */
function textAfter(words: readonly OcrWord[], phrase: string): string | null {
  const box = findPhrase(words, phrase);
  if (!box) return null;
  return words
    .filter((w) => Math.abs(w.box.y - box.y) < 12 && w.box.x > box.x + box.width - 2)
    .sort((a, b) => a.box.x - b.box.x)
    .map((w) => w.text)
    .join(' ');
}

const isPlaceholder = (value: string) => /^\{\w+\}$/.test(value);

/**
 * The Play button on the row of `song` (the line with its name: the search field holds the name too).
 * A restyled app (`?play=Listen`) draws it as dark text on a light pill: plain OCR finds that, or, at
 * offsets where the whole-page pass misses it, OCR of the row's right part alone (which may read the
 * italic "Listen" as "Lister").
 */
async function playButtonOf(
  song: string,
  words: readonly OcrWord[],
  screen: ScreenText,
): Promise<Box | null> {
  const rows = findPhrases(words, song);
  const onRow = (row: Box) => (box: Box) =>
    Math.abs(box.y + box.height / 2 - (row.y + row.height / 2)) < box.height;
  for (const row of rows) {
    const button = await findButton(screen, 'Play', onRow(row));
    if (button) return button;
  }
  const listen = words.filter((w) => /listen/i.test(w.text)).map((w) => w.box);
  for (const row of rows) {
    const pill = listen.find(onRow(row));
    if (pill) return pill;
  }
  for (const row of rows) {
    const strip = { x: row.x + row.width, y: Math.max(0, row.y - 16), width: 480, height: row.height + 32 };
    const inRow = await screen.wordsIn({ ...strip, width: Math.min(strip.width, screen.width - strip.x) });
    const pill = inRow.find((w) => /^list/i.test(w.text));
    if (pill) return pill.box;
  }
  return null;
}

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
function speak(
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

/** Creates the fake; `close()` ends its OCR worker. */
export function createFakeVisionModel(options: FakeVisionModelOptions = {}): FakeVisionModel {
  const faults = { malformed: 0, outOfRange: 0, unknownAction: 0, ...options.faults };
  const reader = createScreenReader();
  const turns: FakeVisionTurn[] = [];
  const screens = new Map<string, ScreenText>();
  let replanned = false;

  const look = (png: Buffer): ScreenText => {
    const key = createHash('sha1').update(png).digest('hex');
    let screen = screens.get(key);
    if (!screen) {
      screen = reader.read(png);
      screens.set(key, screen);
    }
    return screen;
  };

  /**
   * An action that changes nothing: hovering an empty part of the window. (Clicks would not do: a
   * quick second click on the page is a double click, which selects the nearest text.)
   */
  const idleMove = (): FakeReply =>
    computer({ action: 'mouse_move', coordinate: [800, 950], observation: 'An empty part of the window.' });

  async function search(prompt: Prompt, query: string, screen: ScreenText): Promise<FakeReply> {
    const done = prompt.history;
    const did = (prefix: string) => done.some((line) => line.includes(`. ${prefix}`));
    if ((faults.stubbornUntilReplan && !replanned) || faults.neverDone) return idleMove();
    if (!did('left_click')) {
      const words = await screen.words();
      const field =
        findPhrase(words, 'Song name') ??
        (await (async () => {
          const button = await findButton(screen, 'Search');
          return button ? { ...button, x: button.x - 250 } : null;
        })());
      if (!field) return call('replan', { reason: 'I cannot see a search field.' });
      return computer({
        action: 'left_click',
        coordinate: gridOf(field, screen),
        observation: 'The search field.',
      });
    }
    if (!did('key ctrl+a'))
      return computer({ action: 'key', keys: 'ctrl+a', observation: 'Select any old text.' });
    if (!did('type')) return computer({ action: 'type', text: query, observation: 'The field is focused.' });
    if (!did('key enter'))
      return computer({ action: 'key', keys: 'enter', observation: 'The query is typed.' });
    const words = await screen.words();
    // The song is listed: its name shows twice (the field and a result row), or its row's Play button
    // (a "Listen" pill in the restyled app, `?play=Listen`) is found.
    const listed = isPlaceholder(query)
      ? (await findButton(screen, 'Play')) !== null
      : findPhrases(words, query).length >= 2 || (await playButtonOf(query, words, screen)) !== null;
    return listed
      ? call('done', { observation: `The results list ${query}.`, task_memory: `Searched for ${query}.` })
      : computer({ action: 'wait', wait_seconds: 0.5, observation: 'No results yet.' });
  }

  async function play(prompt: Prompt, song: string, screen: ScreenText): Promise<FakeReply> {
    if (faults.neverDone) return idleMove();
    if (faults.claimsWithoutActing) {
      const pending = prompt.extracts.find((e) => !e.done);
      return pending
        ? call('extract', {
            variable_name: pending.name,
            query: 'the song shown as now playing',
            value: song,
            observation: `Now playing: ${song}.`,
          })
        : call('done', { observation: `Now playing: ${song}.` });
    }
    const words = await screen.words();
    const playing = textAfter(words, 'Now playing:');
    const started = playing !== null && playing !== '' && playing.toLowerCase() !== 'nothing';
    if (started && (isPlaceholder(song) || playing?.toLowerCase() === song.toLowerCase())) {
      const pending = prompt.extracts.find((e) => !e.done);
      if (pending) {
        return call('extract', {
          variable_name: pending.name,
          query: 'the song shown as now playing',
          value: playing,
          observation: `Now playing: ${playing}.`,
        });
      }
      return call('done', { observation: `Now playing: ${playing}.` });
    }
    let button = isPlaceholder(song) ? null : await playButtonOf(song, words, screen);
    if (isPlaceholder(song)) button = await findButton(screen, 'Play', (box) => box.y > 100);
    if (!button) return call('replan', { reason: `No Play button for ${song} on the screen.` });
    return computer({
      action: 'left_click',
      coordinate: gridOf(button, screen),
      observation: `The Play button of ${song}.`,
    });
  }

  /** The first remaining fault that applies, used up. */
  function injectFault(): FakeReply | null {
    if (faults.malformed > 0) {
      faults.malformed -= 1;
      return {
        type: 'tool-calls',
        calls: [{ name: 'computer_use', arguments: '{"action": "left_click", "coordinate": [' }],
      };
    }
    if (faults.unknownAction > 0) {
      faults.unknownAction -= 1;
      return computer({ action: 'triple_click', coordinate: [500, 500] });
    }
    return null;
  }

  async function act(prompt: Prompt): Promise<FakeReply> {
    if (!prompt.image) return call('replan', { reason: 'No screenshot was sent.' });
    if (faults.replanFirst && !replanned)
      return call('replan', { reason: 'This screen does not fit the plan.' });
    const screen = look(prompt.image);
    const fault = prompt.repairing ? null : injectFault();
    if (fault) return fault;
    const resolve = (name: string) => prompt.params.get(name) ?? `{${name}}`;
    const fill = (text: string) => text.replace(/\{(\w+)\}/g, (_, name: string) => resolve(name));
    const subtask = fill(prompt.subtask);
    const clickOn = /^Click the "(.+?)" button/i.exec(subtask);
    if (clickOn?.[1]) {
      const button = await findButton(screen, clickOn[1]);
      if (!button) return call('replan', { reason: `I cannot see a ${clickOn[1]} button.` });
      return computer({
        action: 'left_click',
        coordinate: gridOf(button, screen),
        observation: `The ${clickOn[1]} button.`,
      });
    }
    const searchFor = /^Search for (.+?) in /i.exec(subtask);
    const playSong = /^Play (.+?) from the results/i.exec(subtask);
    const reply = searchFor?.[1]
      ? await search(prompt, searchFor[1], screen)
      : playSong?.[1]
        ? await play(prompt, playSong[1], screen)
        : call('replan', { reason: `I do not know how to: ${subtask}` });
    if (!prompt.repairing && faults.outOfRange > 0 && reply.type === 'tool-calls') {
      const args = reply.calls[0]?.arguments as ToolArgs;
      if (args.action === 'left_click') {
        faults.outOfRange -= 1;
        return computer({ ...args, coordinate: [1200, 2000] });
      }
    }
    return reply;
  }

  /** A replan: the remaining plan again, every pending value extracted by the last subtask. */
  function replan(prompt: Prompt): FakeReply {
    replanned = true;
    const subtasks: Array<{ text: string; reference_steps: number[]; extracts: string[] }> = [];
    for (const line of sectionOf(prompt.text, 'Remaining plan')) {
      const head = /^\d+\. (.*)$/.exec(line);
      const step = /^\s+step (\d+) /.exec(line);
      if (head?.[1]) subtasks.push({ text: head[1], reference_steps: [], extracts: [] });
      else if (step?.[1]) subtasks.at(-1)?.reference_steps.push(Number(step[1]));
    }
    const pending = sectionOf(prompt.text, 'Values still to extract').map(
      (l) => /^- (\w+):/.exec(l)?.[1] ?? '',
    );
    subtasks.at(-1)?.extracts.push(...pending.filter(Boolean));
    return { type: 'json', value: { observation: 'The demo player.', subtasks } };
  }

  /** A value read alone (mime's follow-up to an extract that carried none): what the query names. */
  async function readValue(prompt: Prompt): Promise<FakeReply> {
    const words = prompt.image ? await look(prompt.image).words() : [];
    const value = /playing/i.test(prompt.text) ? (textAfter(words, 'Now playing:') ?? '') : '';
    return { type: 'json', value: { value } };
  }

  const handler: FakeHandler = async (request) => {
    const prompt = readPrompt(request);
    const format = request.body?.response_format;
    const kind = !format ? 'act' : format.json_schema?.name === 'extracted_value' ? 'extract' : 'replan';
    const size = prompt.image ? look(prompt.image) : null;
    const answer =
      kind === 'replan' ? replan(prompt) : kind === 'extract' ? await readValue(prompt) : await act(prompt);
    const reply = speak(answer, options.dialect ?? 'mime', size, options.vocabulary ?? 'mime');
    turns.push({
      kind,
      subtask: prompt.subtask,
      prompt: prompt.text,
      image:
        size && prompt.image ? { width: size.width, height: size.height, bytes: prompt.image.length } : null,
      reply: JSON.stringify(
        reply.type === 'tool-calls' ? reply.calls : reply.type === 'json' ? reply.value : reply,
      ),
    });
    return options.delayMs ? { ...reply, delayMs: options.delayMs } : reply;
  };

  return { handler, turns, close: () => reader.close() };
}
