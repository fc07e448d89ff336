/**
 * A fake music player on the fake desktop, and a workflow recorded on it (search a song, play it and
 * read its artist, note the artist): what the recorded-loop tests replay. Its text lines are its
 * controls; it can stand moved, ignore a click on Play, start with text left in its search field, and
 * expose its search field's element as an accessibility tree would.
 */
import type { Accessibility } from '@mime-desktop/os-io';
import type { AccessibleElement } from '@mime-desktop/schema';
import { createFakeDesktop, type FakeDesktop, textLine } from './fake-desktop.ts';
import { recordWorkflow } from './recorded-workflow.ts';

/** The artist the fake player shows for each song. */
export const ARTISTS: Record<string, string> = { Numb: 'Linkin Park', Hysteria: 'The Killers' };

export interface PlayerOptions {
  /** Where the player's window stands, moved from where it was recorded. */
  offset?: { dx: number; dy: number };
  /** Clicks on Play the player ignores (it is not ready yet). Default 0. */
  ignoredPlays?: number;
  /** The artist it shows for each song. Default ARTISTS. */
  artists?: Record<string, string>;
  /** Text its search field holds at the start (left by an earlier run). Default none. */
  search?: string;
  /** Whether it tells an accessibility tree which field has the focus and its text. Default false. */
  accessible?: boolean;
  /** The most characters its fields take; the rest of a typing is lost. Default no limit. */
  maxLength?: number;
  /** What its notes field makes of a typing (a player that alters a value). Default the typing. */
  alterNotes?: (typed: string) => string;
  /** What its tree names under a point, asked for the n-th time (with `accessible`). Default none. */
  elementAt?: (asked: number) => AccessibleElement | null;
}

/** Lines of the fake player: 0 the search field, 2 the Play button, 5 the notes field. */
export const SEARCH = 0;
export const PLAY = 2;
export const NOTES = 5;

/** The line of the player under a point (lines are about 22 px apart, their text 9 px a character wide). */
function lineAt(x: number, y: number, offset: { dx: number; dy: number }): number | null {
  for (const k of [SEARCH, PLAY, NOTES]) {
    const { x: left, baseline } = textLine(k);
    const top = baseline + offset.dy - 17;
    if (y >= top && y < top + 22 && x >= left + offset.dx && x < left + offset.dx + 60) return k;
  }
  return null;
}

/** What the fake player holds: the field with the focus, the fields' text, the song found and the one playing. */
interface PlayerState {
  focus: number | null;
  /** The focused field's text is selected (ctrl+a): typing or BackSpace replaces it. */
  selected: boolean;
  search: string;
  notes: string;
  found: string | null;
  playing: string | null;
  ignored: number;
}

/** The focused field after typing `typed` into it, or (null) a BackSpace. */
function edit(state: PlayerState, typed: string | null, maxLength = Number.POSITIVE_INFINITY): void {
  const field = state.focus === SEARCH ? 'search' : state.focus === NOTES ? 'notes' : null;
  if (field === null) return;
  const text = state.selected ? '' : state[field];
  state[field] = typed === null ? text.slice(0, -1) : (text + typed).slice(0, maxLength);
  state.selected = false;
}

/** The player after one input: typing goes to the field clicked last, enter searches, Play plays. */
function apply(
  state: PlayerState,
  input: string,
  { offset = { dx: 0, dy: 0 }, ignoredPlays = 0, maxLength, alterNotes }: PlayerOptions,
) {
  const click = /^click left (\d+),(\d+)/.exec(input);
  if (click) {
    const line = lineAt(Number(click[1]), Number(click[2]), offset);
    state.selected = false;
    if (line !== PLAY) state.focus = line;
    else if (state.found !== null && state.ignored < ignoredPlays) state.ignored += 1;
    else if (state.found !== null) state.playing = state.found;
  } else if (input.startsWith('type ')) {
    const typed = input.slice('type '.length);
    edit(state, state.focus === NOTES && alterNotes ? alterNotes(typed) : typed, maxLength);
  } else if (input === 'key BackSpace') edit(state, null);
  else if (input === 'key ctrl+a') state.selected = true;
  else if (input === 'key enter' && state.focus === SEARCH) state.found = state.search;
}

/** The player's state after the inputs. */
function stateAfter(inputs: readonly string[], options: PlayerOptions): PlayerState {
  const state: PlayerState = {
    focus: null,
    selected: false,
    search: options.search ?? '',
    notes: '',
    found: null,
    playing: null,
    ignored: 0,
  };
  for (const input of inputs) apply(state, input, options);
  return state;
}

/** What the fake player shows after the inputs. */
function player(options: PlayerOptions = {}) {
  const artists = options.artists ?? ARTISTS;
  return (inputs: readonly string[]): string[] => {
    const { search, found, playing, notes } = stateAfter(inputs, options);
    return [
      `Search: ${search}`,
      found === null ? 'No results' : `Result: ${found}`,
      found === null ? '' : '[Play]',
      `Now playing: ${playing ?? 'nothing'}`,
      playing === null ? '' : `Artist: ${artists[playing] ?? 'unknown'}`,
      `Notes: ${notes}`,
    ];
  };
}

/** The player's search field as its accessibility tree names it (its text: what it holds). */
export const SEARCH_FIELD: AccessibleElement = {
  role: 'entry',
  name: 'Search',
  label: null,
  app: 'Fake player',
  window: { role: 'frame', name: 'Fake player' },
  path: [{ role: 'entry', name: 'Search', index: 0 }],
  states: ['editable', 'focusable'],
  extents: { x: 8, y: 8, width: 200, height: 20 },
  text: '',
};

/**
 * The player's tree as an accessibility bus tells it: the focused field with its text (only the search
 * field is named); under a point what `options.elementAt` says, and no search of the windows.
 */
function playerTree(state: () => PlayerState, options: PlayerOptions): Accessibility {
  let asked = 0;
  return {
    elementAt: async () => options.elementAt?.(asked++) ?? null,
    lineAt: async () => null,
    focused: async () => {
      const { focus, search } = state();
      return focus === SEARCH
        ? { ...SEARCH_FIELD, states: [...SEARCH_FIELD.states, 'focused'], text: search }
        : null;
    },
    wake: async () => undefined,
    find: async () => [],
    apps: async () => ['Fake player'],
    close: async () => undefined,
  };
}

/** A fake desktop showing the player; its screen changes only by what the player shows. */
export function playerDesktop(options: PlayerOptions = {}): FakeDesktop {
  const desktop: FakeDesktop = createFakeDesktop({
    react: () => false,
    shows: player(options),
    ...(options.offset && { offset: options.offset }),
    ...(options.accessible && {
      accessibility: playerTree(() => stateAfter(desktop.inputs, options), options),
    }),
  });
  return desktop;
}

/** Recorded points and target boxes of the player's controls, as recorded (no offset). */
export const at = (k: number) => ({ x: 36, y: textLine(k).baseline - 6 });
export const boxAt = (k: number) => ({ x: 6, y: textLine(k).baseline - 14, width: 50, height: 16 });

/**
 * Records the player's workflow into `dir`: search the song (param song_name, recorded "Numb"), play
 * it and read its artist (extract artist), type the artist into the notes (a `{artist}` template).
 */
export async function recordPlayer(dir: string): Promise<void> {
  await recordWorkflow(dir, playerDesktop(), {
    params: [
      {
        name: 'song_name',
        type: 'string',
        description: 'The song to search for.',
        example: 'Numb',
        sensitive: false,
        optional: false,
      },
    ],
    subtasks: [
      {
        text: 'Search for {song_name}. Expected outcome: the results show {song_name}.',
        acts: [
          { intent: 'Click the search field.', click: at(SEARCH), box: boxAt(SEARCH) },
          {
            intent: 'Type the song.',
            type: 'Numb',
            value: '{song_name}',
            element: { ...SEARCH_FIELD, text: 'Numb' },
          },
          { intent: 'Press enter to search.', key: 'enter' },
        ],
      },
      {
        text: 'Play {song_name} and read its artist. Expected outcome: {song_name} is playing.',
        acts: [
          { intent: 'Click Play.', click: at(PLAY), box: boxAt(PLAY) },
          { intent: 'Read the artist.', extract: 'the artist', variable: 'artist', values: ['Linkin Park'] },
        ],
      },
      {
        text: 'Note the artist. Expected outcome: the notes hold the artist.',
        dependencies: ['artist'],
        acts: [
          { intent: 'Click the notes field.', click: at(NOTES), box: boxAt(NOTES) },
          { intent: 'Type the artist.', type: 'Linkin Park', value: '{artist}' },
        ],
      },
    ],
  });
}
