/**
 * A replay's input is not a person's: the global hooks see synthetic input as they see real input,
 * so a recording watches the display's machine-wide lock (the one every replay takes) and learns when
 * a replay held it. A recording does not start while one does; input that arrives while one does is
 * dropped (never written, reported as ignored).
 */
import { type DisplayLockHolder, displayLockHolder } from '@mime-desktop/os-io';
import { MimeError } from '@mime-desktop/schema';

/** A replay holds the display to record (`MIME_DESKTOP_BUSY`, exit 75 in the CLI). */
export class DisplayReplayingError extends MimeError {
  readonly holder: DisplayLockHolder;

  constructor(holder: DisplayLockHolder) {
    super(
      'MIME_DESKTOP_BUSY',
      `a replay is running on the display ${holder.display}: ${holder.command} (pid ${holder.pid}) since ${holder.since}; its input would be recorded as yours: record once it has ended`,
    );
    this.holder = holder;
  }
}

export interface ReplayWatchOptions {
  /** The environment naming the display. Default `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** The lock folder. Default the machine-wide one. */
  dir?: string;
  /** How often the lock is looked at, ms. Default 200. */
  intervalMs?: number;
}

interface Held {
  holder: DisplayLockHolder;
  /** Epoch ms: when the replay took the display, and the last look that saw it hold it. */
  from: number;
  seen: number;
  /** Epoch ms: the end of its hold once a look saw the display free (null: still held). */
  to: number | null;
}

export class ReplayWatch {
  readonly #options: ReplayWatchOptions;
  readonly #held: Held[] = [];
  readonly #timer: NodeJS.Timeout;
  #looking: Promise<void> = Promise.resolve();

  /** Starts watching (stop it when the recording ends). */
  constructor(options: ReplayWatchOptions = {}) {
    this.#options = options;
    this.#timer = setInterval(() => void this.#look(), options.intervalMs ?? 200);
    this.#timer.unref();
  }

  /** Throws {@link DisplayReplayingError} when a replay holds the display now. */
  static async refuseWhileReplaying(options: Pick<ReplayWatchOptions, 'env' | 'dir'> = {}): Promise<void> {
    const holder = await displayLockHolder(options);
    if (holder) throw new DisplayReplayingError(holder);
  }

  #look(): Promise<void> {
    this.#looking = this.#looking.then(async () => {
      const now = Date.now();
      const holder = await displayLockHolder(this.#options).catch(() => null);
      const open = this.#held.at(-1);
      // Its hold ends where it was last seen: a look comes with every event (heldAt), so the replay's
      // own input is seen while it still holds the display, and a person's input after the replay let
      // go, but before a look saw it free, is the person's.
      if (open && open.to === null && open.holder.since !== holder?.since) open.to = open.seen;
      else if (open && open.to === null) open.seen = now;
      if (holder && (open?.to !== null || open.holder.since !== holder.since)) {
        this.#held.push({ holder, from: Date.parse(holder.since), seen: now, to: null });
      }
    });
    return this.#looking;
  }

  /** The replay that held the display at `time` (epoch ms) or holds it now, else null. */
  async heldAt(time: number): Promise<DisplayLockHolder | null> {
    await this.#look();
    const held = this.#held.find((h) => h.from <= time && (h.to === null || time <= h.to));
    return held?.holder ?? null;
  }

  stop(): void {
    clearInterval(this.#timer);
  }
}
