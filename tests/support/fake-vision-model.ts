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
  type FakeVisionDialect,
  type FakeVisionVocabulary,
  speak,
  type ToolArgs,
} from './fake-vision-dialects.ts';
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

export type { FakeVisionDialect, FakeVisionVocabulary } from './fake-vision-dialects.ts';

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
