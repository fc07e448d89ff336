/**
 * The drafts pages are editing, held by the studio so an edit names the draft it applies to (a key)
 * rather than sending it whole: an edit of a 200-step workflow is a few hundred bytes, not 111 KiB. A
 * key is the hash of the workflow's id and the draft, so a page can only name a draft it was given;
 * one the studio no longer holds (restarted, or dropped as the oldest) is asked for whole again. Saving
 * is unchanged: the page sends the draft with the version it opened, and a change on disk is refused.
 */
import { createHash } from 'node:crypto';
import { MimeError } from '@mime-desktop/schema';

/** Drafts held, the oldest used dropped first. */
const HELD = 64;

/** The studio no longer holds the draft an edit named: the page sends it whole. */
export class DraftGoneError extends MimeError {
  constructor() {
    super(
      'MIME_DRAFT_GONE',
      'the studio no longer holds this draft (it restarted, or many drafts came since): send it whole as {"workflow": {...}, "edit": {...}}',
      { exit: 'usage' },
    );
  }
}

export class DraftCache {
  readonly #drafts = new Map<string, { id: string; draft: unknown }>();

  /** Holds `draft` of workflow `id`; returns its key. */
  put(id: string, draft: unknown): string {
    const key = createHash('sha256')
      .update(id)
      .update('\0')
      .update(JSON.stringify(draft))
      .digest('base64url');
    this.#drafts.delete(key);
    this.#drafts.set(key, { id, draft });
    if (this.#drafts.size > HELD) this.#drafts.delete(this.#drafts.keys().next().value as string);
    return key;
  }

  /** The draft of workflow `id` held under `key`; throws {@link DraftGoneError} when it is not held. */
  get(id: string, key: string): unknown {
    const held = this.#drafts.get(key);
    if (held?.id !== id) throw new DraftGoneError();
    // Used now: the last to be dropped.
    this.#drafts.delete(key);
    this.#drafts.set(key, held);
    return held.draft;
  }
}
