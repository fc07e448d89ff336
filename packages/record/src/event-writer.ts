import { epochNow } from '@mime-desktop/os-io';
import type { AccessibleElement, SourceWindow } from '@mime-desktop/schema';
import type { RecordedAction } from './aggregate.ts';
import type { ElementLookup } from './element-lookup.ts';
import type { PreFrames } from './pre-frames.ts';
import type { RecorderEvent } from './record-options.ts';
import type { ReplayWatch } from './replay-watch.ts';
import type { SecretTyping } from './secret-typing.ts';
import { type PendingEvent, SessionWriter } from './session-writer.ts';
import type { TerminalFilter } from './terminal-filter.ts';
import type { WindowLookup } from './window-lookup.ts';

/**
 * How long a Ctrl+C chord is held back in case it is the terminal's interrupt that stops recording,
 * ms. The next action writes it at once, so holding it long costs nothing; a busy machine delivers
 * the interrupt late (at load 25, more than 400 ms after the key once in 4).
 */
const INTERRUPT_HOLD_MS = 1500;

type Focus = ReturnType<TerminalFilter['focusOf']>;

/** What the writer reads each event's parts from. */
export interface EventWriterParts {
  /** The session folder. */
  dir: string;
  frames: PreFrames;
  elements: ElementLookup;
  windows: WindowLookup;
  terminal: TerminalFilter;
  secret: SecretTyping;
  /** Input a replay gave on this display is dropped. */
  replays: ReplayWatch;
  emit: (event: RecorderEvent) => void;
  /** A write failed; nothing more is written. */
  onError: (error: unknown) => void;
}

/**
 * Turns the recorded actions and annotations into the session's events, in order: each with its PRE
 * frame, its element and the details given before it; input a replay gave or that went to the
 * recording terminal is left out, and a Ctrl+C is held back until it is known not to be the interrupt.
 */
export class EventWriter {
  readonly #parts: EventWriterParts;
  readonly #writer: SessionWriter;
  #admitted: Promise<void> = Promise.resolve();
  #held: { pending: PendingEvent; focus: Focus; timer: NodeJS.Timeout } | undefined;
  #details: string | null = null;
  #unresolved = 0;

  constructor(parts: EventWriterParts) {
    this.#parts = parts;
    this.#writer = new SessionWriter(parts.dir, parts.onError);
  }

  /** Events written or on their way to disk. */
  get count(): number {
    return this.#writer.count;
  }

  /** Details for the next event, after any given before. */
  addDetails(text: string): void {
    this.#details = this.#details ? `${this.#details}\n${text}` : text;
  }

  /** Writes an action the aggregator committed. */
  commit(action: RecordedAction): void {
    this.release();
    const before = this.#parts.frames.take(action.time);
    if ('unresolved' in action.action_details && action.action_details.unresolved) this.#unresolved += 1;
    const pending: PendingEvent = {
      event: {
        action_type: action.action_type,
        action_details: action.action_details,
        timestamp: action.time / 1000,
        details: this.#takeDetails(),
        ...(before ? {} : { pre_frame: 'late' }),
      } as PendingEvent['event'],
      frame: before ?? this.#parts.frames.latest(),
    };
    const focus = this.#parts.terminal.focusOf(action);
    const element = this.#parts.elements.of(action);
    const window = this.#parts.windows.of(action);
    if (
      action.action_type === 'key' &&
      'key' in action.action_details &&
      action.action_details.key === 'ctrl+c'
    ) {
      this.#held = { pending, focus, timer: setTimeout(() => this.release(), INTERRUPT_HOLD_MS) };
      return;
    }
    this.#write(pending, focus, element, window);
  }

  /** Writes an extract annotation, now. */
  extract(annotation: { query: string; values: string[] }): void {
    this.release();
    const details = this.#takeDetails();
    this.#write({
      event: {
        action_type: 'extract',
        action_details: { query: annotation.query, values: annotation.values },
        timestamp: epochNow() / 1000,
        details,
      },
      frame: this.#parts.frames.latest(),
    });
  }

  /** Writes a held Ctrl+C: it was not the interrupt. */
  release(): void {
    if (!this.#held) return;
    clearTimeout(this.#held.timer);
    this.#write(this.#held.pending, this.#held.focus);
    this.#held = undefined;
  }

  /**
   * Writes what is left and the end marker, a held Ctrl+C unless it was the `interrupt`; resolves
   * with the count of events before the end marker once everything is on disk.
   */
  async finish(interrupted: boolean): Promise<number> {
    if (this.#held && interrupted) {
      clearTimeout(this.#held.timer);
      this.#held = undefined;
    }
    this.release();
    await this.#admitted;
    const events = this.#writer.count;
    if (this.#unresolved > 0) {
      const n = this.#unresolved;
      this.#parts.emit({
        type: 'warning',
        message:
          `${n} typing event${n === 1 ? '' : 's'} typed characters mime could not read from the keys ` +
          '(an input method, or a key without a code): their text is incomplete and marked "unresolved"; ' +
          'fix it with `mime edit` after reflecting.',
      });
    }
    this.#write({
      event: {
        action_type: null,
        action_details: {},
        timestamp: epochNow() / 1000,
        details: this.#takeDetails(),
      },
      frame: this.#parts.frames.latest(),
    });
    await this.#admitted;
    await this.#writer.drain();
    return events;
  }

  #takeDetails(): string | null {
    const note = this.#details;
    this.#details = null;
    return note;
  }

  #write(
    pending: PendingEvent,
    focus: Focus = null,
    element: Promise<AccessibleElement | null> | null = null,
    window: Promise<SourceWindow | null> | null = null,
  ): void {
    const { emit, replays, secret, terminal } = this.#parts;
    this.#admitted = this.#admitted.then(async () => {
      const { action_type } = pending.event;
      const replay =
        action_type === null || action_type === 'extract'
          ? null
          : await replays.heldAt(pending.event.timestamp * 1000);
      if (replay) {
        emit({
          type: 'ignored',
          action_type: action_type ?? 'end',
          reason: `given by a replay on this display (${replay.command}, pid ${replay.pid})`,
        });
        return;
      }
      const found = await element;
      if (found && !secret.shownBy(found)) pending.event.element = found;
      const place = await window;
      if (place) pending.event.window = place;
      if (await terminal.isTerminal(focus)) {
        emit({
          type: 'ignored',
          action_type: pending.event.action_type ?? 'end',
          reason: 'typed or clicked in the recording terminal',
        });
        return;
      }
      void this.#writer.add(pending).then((index) =>
        emit({
          type: 'event',
          index,
          action_type: pending.event.action_type,
          details: pending.event.action_details,
          time: pending.event.timestamp * 1000,
        }),
      );
    });
  }
}
