import { join } from 'node:path';
import { encodePng, type RawFrame } from '@mime-desktop/os-io';
import { appendJsonl, type ManifestEvent, writeFileAtomically } from '@mime-desktop/schema';

/** An event to write, with the frame to save as its PRE screenshot. */
export interface PendingEvent {
  event: Omit<ManifestEvent, 'screenshot'>;
  frame: RawFrame | undefined;
}

/**
 * Writes a session's events in order, each screenshot first (written atomically) and then its
 * manifest line (appended and flushed), so a process killed at any moment leaves a manifest whose
 * every line is complete and whose screenshots exist. PNG encoding runs in sharp's threads, off the
 * capture and hook path; `add` only queues.
 */
export class SessionWriter {
  readonly #dir: string;
  readonly #onError: (error: unknown) => void;
  #queue: Promise<void> = Promise.resolve();
  #next = 0;

  constructor(dir: string, onError: (error: unknown) => void) {
    this.#dir = dir;
    this.#onError = onError;
  }

  /** Events queued so far. */
  get count(): number {
    return this.#next;
  }

  /** Queues an event; resolves with its index once it is on disk. */
  add(pending: PendingEvent): Promise<number> {
    const index = this.#next;
    this.#next += 1;
    const png = pending.frame ? encodePng(pending.frame) : undefined;
    png?.catch(() => undefined);
    const written = this.#queue.then(async () => {
      let screenshot: string | null = null;
      if (png) {
        screenshot = `screenshots/${index}.png`;
        await writeFileAtomically(join(this.#dir, screenshot), await png);
      }
      await appendJsonl(join(this.#dir, 'manifest.jsonl'), { ...pending.event, screenshot });
      return index;
    });
    this.#queue = written.then(
      () => undefined,
      (error: unknown) => this.#onError(error),
    );
    return written;
  }

  /** Resolves when everything queued is on disk. */
  async drain(): Promise<void> {
    await this.#queue;
  }
}
