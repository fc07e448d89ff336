/**
 * Counts the model's unusable replies in a row across a run (output that cannot be read, an unknown
 * tool, a call that breaks a rule): each is handed back to the model with what is wrong, but a model
 * that cannot speak the protocol is stopped after `limit` of them (`MIME_MODEL_OUTPUT`), never
 * replanned around. A usable reply starts the count again.
 */
import type { Problem } from '@mime-desktop/schema';
import { ModelProtocolError } from '../errors.ts';

/** Default of `ReplayOptions.maxUnusableReplies`. */
export const DEFAULT_MAX_UNUSABLE_REPLIES = 3;

export class UnusableReplies {
  readonly limit: number;
  #streak = 0;

  constructor(limit: number) {
    this.limit = limit;
  }

  /** Replies the model may still give unusable before the run stops (at least 1 while it goes on). */
  get left(): number {
    return this.limit - this.#streak;
  }

  usable(): void {
    this.#streak = 0;
  }

  /**
   * Counts `count` unusable replies, the last one `raw` (redacted) with `problems`; throws
   * {@link ModelProtocolError} when they reach the limit.
   */
  unusable(count: number, raw: string, problems: readonly Problem[]): void {
    this.#streak += count;
    if (this.#streak >= this.limit) throw new ModelProtocolError(this.#streak, raw, problems);
  }
}
