import type { Desktop, WindowQuery } from '@mime-desktop/os-io';
import { normalizeKeyChord, type RecordingMetadata } from '@mime-desktop/schema';
import type { AggregatorOptions } from './aggregate.ts';
import type { ControlRequest } from './control.ts';
import type { PendingEvent } from './session-writer.ts';

/** Hotkeys of a recording, in chord syntax; `null` turns one off. */
export interface RecorderHotkeys {
  /** Pause and annotate (extract or details). Default `ctrl+i` (as in ai_mime). */
  annotate?: string | null;
  /** Stop the recording. Default `ctrl+alt+shift+s`. */
  stop?: string | null;
  /** Toggle secret typing (typed text is not stored). Default `ctrl+alt+shift+h`. */
  secret?: string | null;
}

export const DEFAULT_HOTKEYS = {
  annotate: 'ctrl+i',
  stop: 'ctrl+alt+shift+s',
  secret: 'ctrl+alt+shift+h',
} as const;

/** An annotation given at the Ctrl+I prompt, or through the control channel. */
export type Annotation = Extract<ControlRequest, { type: 'extract' | 'details' }>;

/** Why a recording stopped. */
export type StopReason = 'signal' | 'interrupt' | 'hotkey' | 'control' | 'max-duration';

export type RecorderEvent =
  | {
      type: 'started';
      sessionId: string;
      dir: string;
      screen: RecordingMetadata['screen'];
      hotkeys: RecorderHotkeys;
    }
  | {
      type: 'event';
      index: number;
      action_type: string | null;
      details: PendingEvent['event']['action_details'];
      /** Epoch ms of the action's first input (the `epochNow` clock). */
      time: number;
    }
  | { type: 'ignored'; action_type: string; reason: string }
  | { type: 'paused' }
  | { type: 'resumed' }
  | { type: 'annotation-requested' }
  | { type: 'secret'; on: boolean }
  | { type: 'stopping'; reason: StopReason }
  | { type: 'warning'; message: string }
  | { type: 'error'; error: unknown };

export interface RecordOptions {
  /** Name of the task, e.g. `play song`. */
  name: string;
  /** What the task is for. Default empty. */
  description?: string;
  /** Data root: the session is written to `<home>/recordings/<session_id>/`. */
  home: string;
  /** Frames a second kept in the ring the PRE frames come from. Default 10. */
  fps?: number;
  /** Stop by itself after this long, ms. Default: no limit. */
  maxDurationMs?: number;
  /** Stops the recording when aborted; a `reason` of `'interrupt'` (Ctrl+C) drops the Ctrl+C chord itself. */
  signal?: AbortSignal;
  /** Hotkeys; see {@link RecorderHotkeys} for each default. */
  hotkeys?: RecorderHotkeys;
  /**
   * Asks the person for an annotation after the annotate hotkey (the CLI asks in the terminal);
   * resolves null when they cancel. Without it the hotkey only emits `annotation-requested`.
   */
  promptAnnotation?: () => Promise<Annotation | null>;
  /**
   * Another way to ask for an annotation besides the hotkey (the CLI: Ctrl+I or Tab in its own
   * terminal, which may not be on the recorded display). Called once recording has started with a
   * function that asks, as the hotkey does; returns a function that stops listening.
   */
  annotateFrom?: (ask: () => void) => () => void;
  /** Progress events. Default none. */
  onEvent?: (event: RecorderEvent) => void;
  /** Grouping of raw input into actions; see {@link AggregatorOptions} for each default. */
  aggregation?: Omit<AggregatorOptions, 'isSecret'>;
  /**
   * Drop input given to the window that has the focus when recording starts (the terminal running
   * `mime record`). Default false; the CLI turns it on when run from a terminal.
   */
  ignoreTerminal?: boolean;
  /** The desktop to record. Default: the nut-js + uiohook desktop of this display (probed first). */
  desktop?: Desktop;
  /**
   * Starts the app before recording and stores the launch as the recording's `setup`, so replay can
   * start it too. Default none.
   */
  launch?: LaunchOptions;
}

export interface LaunchOptions {
  /** Shell command that starts the app. */
  command: string;
  /** The app window to wait for. Default: the first new window that appears, by its class. */
  window?: WindowQuery;
  /** How long to wait for the window, ms. Default 30000. */
  timeoutMs?: number;
}

export interface RecordingResult {
  sessionId: string;
  dir: string;
  /** Recorded events, the end marker not counted. */
  events: number;
  durationMs: number;
  stopReason: StopReason;
}

/** The hotkeys of a recording as normalized chords; null where one is turned off. */
export interface HotkeyChords {
  annotate: string | null;
  stop: string | null;
  secret: string | null;
}

function chordOf(text: string | null | undefined): string | null {
  return text ? normalizeKeyChord(text) : null;
}

/** The hotkeys asked for, each default filled in, as chords. */
export function hotkeyChords(hotkeys: RecorderHotkeys | undefined): HotkeyChords {
  return {
    annotate: chordOf(hotkeys?.annotate === undefined ? DEFAULT_HOTKEYS.annotate : hotkeys.annotate),
    stop: chordOf(hotkeys?.stop === undefined ? DEFAULT_HOTKEYS.stop : hotkeys.stop),
    secret: chordOf(hotkeys?.secret === undefined ? DEFAULT_HOTKEYS.secret : hotkeys.secret),
  };
}
