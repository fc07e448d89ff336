import { setTimeout as delay } from 'node:timers/promises';
import type { Accessibility, Desktop, HookEvent } from '@mime-desktop/os-io';
import { type AccessibleElement, identityOf, isSecretElement } from '@mime-desktop/schema';
import type { RecordedAction } from './aggregate.ts';
import type { SecretTyping } from './secret-typing.ts';

/**
 * Longest wait for the element an action is about, ms (a busy machine slows the apps' answers). A lookup runs beside the click's own
 * double-click wait (400 ms), so a click is not written later for it.
 */
const ELEMENT_LOOKUP_MS = 1000;

/**
 * The element each action is about, looked up beside the hooks as the action starts (the element
 * under a press or a wheel, the focus at a burst's first key), never delaying them. Nothing is looked
 * up while a secret is typed: the app may show it (a title, a field).
 */
export class ElementLookup {
  readonly #a11y: Promise<Accessibility | null>;
  readonly #secret: SecretTyping;
  readonly #started = new Map<number, Promise<AccessibleElement | null>>();
  #lastHook: HookEvent | undefined;

  /** Opens accessibility beside the rest of the start; a lookup that is not back in time leaves its event without one. */
  constructor(desktop: Desktop, secret: SecretTyping) {
    this.#a11y = desktop.accessibility().catch(() => null);
    this.#secret = secret;
  }

  /** The latest hook event given to the aggregator: the input an action starting now starts with. */
  noteHook(event: HookEvent): void {
    this.#lastHook = event;
  }

  /** An action starts at `time`: looks up the element under its press or wheel, or the focus at its key. */
  startAt(time: number): void {
    const hook = this.#lastHook;
    if (hook?.time !== time || this.#secret.on) return;
    if (hook.type === 'mousedown' || hook.type === 'wheel') {
      this.#started.set(
        time,
        this.#lookUp((a11y) => a11y.elementAt({ x: hook.x, y: hook.y })),
      );
    } else if (hook.type === 'keydown') {
      this.#started.set(
        time,
        this.#lookUp((a11y) => a11y.focused()),
      );
    }
  }

  /** The element of an action: for typing, the focused one with its text after the burst (never a secret's). */
  of(action: RecordedAction): Promise<AccessibleElement | null> | null {
    const started = this.#started.get(action.time) ?? null;
    for (const time of this.#started.keys()) if (time <= action.time) this.#started.delete(time);
    if (action.action_type === 'extract') return null;
    // A key goes to the element focused when it went down; its text is the typing's business.
    if (action.action_type === 'key') return started?.then((e) => e && identityOf(e)) ?? null;
    if (action.action_type !== 'type') return started;
    const secret = 'secret' in action.action_details && action.action_details.secret;
    const keysAtCommit = this.#secret.keys;
    // The burst went to the field focused at its first key; its text is read from that field now
    // (the action that ended the burst may already have moved the focus on).
    return (started ?? this.#lookUp((a11y) => a11y.focused())).then(async (field) => {
      if (!field) return null;
      if (secret || isSecretElement(field)) return identityOf(field);
      const now = await this.#lookUp((a11y) => a11y.find(field));
      const text = now?.length === 1 ? now[0]?.text : undefined;
      // A secret typed since the burst ended would be in that text.
      return typeof text === 'string' && this.#secret.keys === keysAtCommit
        ? { ...field, text }
        : identityOf(field);
    });
  }

  #lookUp<T>(ask: (a11y: Accessibility) => Promise<T | null>): Promise<T | null> {
    return this.#a11y
      .then((opened) =>
        opened ? Promise.race([ask(opened), delay(ELEMENT_LOOKUP_MS, null, { ref: false })]) : null,
      )
      .catch(() => null);
  }
}
