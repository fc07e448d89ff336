/**
 * The run's event log: the only writer of its events, frames and files. Everything written is
 * redacted here (secret values become `{name}`), through the run folder's queue, off the critical path.
 */
import type { RawFrame } from '@mime-desktop/os-io';
import type { RunEvent } from '@mime-desktop/schema';
import { type ReplayEvent, type ReplayEventListener, toRunEvent } from './events.ts';
import type { Redactor } from './redact.ts';
import type { RunFolder } from './run-folder.ts';

/** Anything that reports events: the event log, or a test's list. */
export interface EventSink {
  emit(event: ReplayEvent): void;
}

export interface EventLogOptions {
  folder: RunFolder;
  redact: Redactor;
  /** Told each event, redacted; must not throw. */
  onEvent?: ReplayEventListener;
  /** Encodes a frame as a PNG at logical size (the caller's: os-io's `encodePng`). */
  encodePng: (frame: RawFrame) => Promise<Buffer>;
}

export class EventLog implements EventSink {
  readonly folder: RunFolder;
  readonly redact: Redactor;
  readonly #onEvent: ReplayEventListener | undefined;
  readonly #encodePng: (frame: RawFrame) => Promise<Buffer>;
  readonly #events: RunEvent[] = [];
  /** File names used so far: a frame or image never overwrites another. */
  readonly #names = new Set<string>();
  #replanFrames = 0;

  constructor(options: EventLogOptions) {
    this.folder = options.folder;
    this.redact = options.redact;
    this.#onEvent = options.onEvent;
    this.#encodePng = options.encodePng;
  }

  /** Redacts the event, appends it to events.jsonl and tells `onEvent`. */
  emit(event: ReplayEvent): void {
    const safe = this.redact.value(event);
    const line = toRunEvent(safe, new Date());
    this.#events.push(line);
    this.folder.appendEvent(line);
    this.#onEvent?.(safe);
  }

  /** Every event emitted so far, as written to events.jsonl (redacted). */
  get events(): readonly RunEvent[] {
    return this.#events;
  }

  /** Writes a JSON file of the run, redacted, atomically. */
  writeJson(name: string, value: unknown): void {
    this.folder.writeJson(name, this.redact.value(value));
  }

  /** Writes a text file of the run, redacted, atomically. */
  writeText(name: string, text: string): void {
    this.folder.writeFile(name, this.redact.text(text));
  }

  /** Saves a full frame under `name`, or under a unique variant when the name was used; returns the name used. */
  saveFrame(name: string, frame: RawFrame): string {
    const unique = this.#claim(name);
    this.folder.savePng(unique, () => this.#encodePng(frame));
    return unique;
  }

  /** Writes an image (a divergence crop) under a unique name; returns the name used. */
  saveImage(name: string, png: Buffer): string {
    const unique = this.#claim(name);
    this.folder.writeFile(unique, png);
    return unique;
  }

  /** The next `replan_<n>.png` name. */
  nextReplanFrame(): string {
    this.#replanFrames += 1;
    return `replan_${this.#replanFrames}.png`;
  }

  /** Waits for every write; throws the first that failed. */
  flush(): Promise<void> {
    return this.folder.flush();
  }

  #claim(name: string): string {
    let unique = name;
    for (let n = 2; this.#names.has(unique); n += 1) unique = name.replace(/(\.\w+)$/, `_${n}$1`);
    this.#names.add(unique);
    return unique;
  }
}
