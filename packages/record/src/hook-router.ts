import type { Desktop, HookEvent } from '@mime-desktop/os-io';
import { formatKeyChord, type KeyChord, normalizeKeyChord } from '@mime-desktop/schema';
import type { ActionAggregator } from './aggregate.ts';
import type { ElementLookup } from './element-lookup.ts';
import type { HotkeyChords } from './record-options.ts';
import type { RecordingControl } from './recording-control.ts';
import type { RecordingStop } from './recording-stop.ts';
import type { SecretTyping } from './secret-typing.ts';
import type { TerminalFilter } from './terminal-filter.ts';
import type { WindowLookup } from './window-lookup.ts';

/** Chords that paste the clipboard (text fields; terminals; X11's other paste key). */
const PASTE_CHORDS = new Set(['ctrl+v', 'ctrl+shift+v', 'shift+insert'].map((c) => normalizeKeyChord(c)));

/** A key press as a chord (`ctrl+v`); undefined for any other event. */
function chordOfEvent(event: HookEvent): string | undefined {
  if (event.type !== 'keydown' || event.key === null) return undefined;
  return formatKeyChord({ modifiers: event.modifiers, key: event.key } as KeyChord);
}

/** What the hook events go to. */
export interface HookRouterParts {
  hotkeys: HotkeyChords;
  desktop: Desktop;
  aggregator: ActionAggregator;
  control: RecordingControl;
  stop: RecordingStop;
  secret: SecretTyping;
  terminal: TerminalFilter;
  elements: ElementLookup;
  windows: WindowLookup;
}

/**
 * Routes each hook event: a hotkey to its control, input (unless paused or stopping) to the
 * aggregator, a key press to the terminal filter and the secret memory, a paste as the text it pasted.
 */
export class HookRouter {
  readonly #parts: HookRouterParts;
  #pasteQueue: HookEvent[] | undefined;
  #pasteRead: Promise<void> = Promise.resolve();

  constructor(parts: HookRouterParts) {
    this.#parts = parts;
  }

  /** Resolves when the clipboard read of a paste is back and the input after it fed. */
  get pasted(): Promise<void> {
    return this.#pasteRead;
  }

  readonly onHook = (event: HookEvent): void => {
    const { hotkeys, control, stop, secret, terminal, elements, windows } = this.#parts;
    if (stop.reason) return;
    const chord = chordOfEvent(event);
    if (chord !== undefined) {
      if (chord === hotkeys.stop) {
        stop.stop('hotkey');
        return;
      }
      if (chord === hotkeys.secret) {
        control.setSecret(!secret.on);
        return;
      }
      if (chord === hotkeys.annotate) {
        if (!control.paused) void control.askAnnotation();
        return;
      }
    }
    if (control.paused) return;
    if (event.type === 'keydown') {
      // A key went down: which window had the focus (the terminal is left out), and a secret's keys.
      terminal.noteKey(event.time);
      secret.noteKey(event.text);
    }
    elements.noteHook(event);
    windows.noteHook(event);
    this.#feed(event, chord);
  };

  // A paste is recorded as the text it pasted, typed: the clipboard is read when the chord goes down
  // (before the app takes it), and the input after it waits, in order, until the read is back. A
  // clipboard without text (an image, nothing, too much) leaves the chord as a key press.
  #feed(event: HookEvent, chord?: string): void {
    const { aggregator, desktop, secret } = this.#parts;
    if (this.#pasteQueue) {
      this.#pasteQueue.push(event);
      return;
    }
    if (event.type !== 'keydown' || chord === undefined || !PASTE_CHORDS.has(chord)) {
      aggregator.push(event);
      return;
    }
    if (secret.on) {
      aggregator.push({ ...event, text: '' });
      return;
    }
    this.#pasteQueue = [];
    this.#pasteRead = desktop.readClipboard().then((text) => {
      aggregator.push(text === null ? event : { ...event, text });
      const queued = this.#pasteQueue ?? [];
      this.#pasteQueue = undefined;
      for (const next of queued) this.#feed(next, chordOfEvent(next));
    });
  }
}
