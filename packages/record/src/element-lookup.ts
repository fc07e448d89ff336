import { setTimeout as delay } from 'node:timers/promises';
import type { Accessibility, Desktop, HookEvent } from '@mime-desktop/os-io';
import { type AccessibleElement, identityOf, isSecretElement, isWholeWindow } from '@mime-desktop/schema';
import type { RecordedAction } from './aggregate.ts';
import type { SecretTyping } from './secret-typing.ts';

/**
 * Longest wait for the answer to a lookup, ms. The ask goes out as the input starts, so a late answer
 * is still about that moment; a busy machine slows the apps' answers to seconds (a Firefox asked for
 * its page's tree the first time did not answer within 1 s beside other tests). A lookup runs beside
 * the hooks: a click waits for its element only as it is written.
 */
export const LOOKUP_MS = 4000;
/** How long the pointer rests before the element under it is looked up ahead of a press, ms. */
const HOVER_REST_MS = 60;
/** Farthest a press may be from where the pointer rested for that lookup to stand for it, px. */
const HOVER_DISTANCE = 3;
/** How long a lookup that named a whole window is asked again after the wake, ms, and the pause between. */
const REASK_MS = 5000;
const REASK_PAUSE_MS = 100;
/** Longest wait, ms, for the apps' trees to be woken before the recording starts. */
const WAKE_MS = 3000;
/**
 * The element each action is about, looked up beside the hooks as the action starts (the element
 * under a press or a wheel, the focus at a burst's first key), never delaying them. Nothing is looked
 * up while a secret is typed: the app may show it (a title, a field).
 */
export class ElementLookup {
  readonly #desktop: Desktop;
  /** The first opening of the accessibility trees, from the start of the recording. */
  readonly #first: Promise<Accessibility | null>;
  readonly #secret: SecretTyping;
  readonly #started = new Map<number, Promise<AccessibleElement | null>>();
  readonly #woken: Promise<void>;
  #lastHook: HookEvent | undefined;
  /** The element under where the pointer last rested, looked up ahead of a press there. */
  #hover: { x: number; y: number; element: Promise<AccessibleElement | null> } | undefined;
  #rest: NodeJS.Timeout | undefined;

  /**
   * Opens accessibility beside the rest of the start and wakes the apps' trees (see {@link woken});
   * a lookup that is not back in time leaves its event without one.
   */
  constructor(desktop: Desktop, secret: SecretTyping) {
    this.#desktop = desktop;
    this.#first = desktop.accessibility().catch(() => null);
    this.#secret = secret;
    this.#woken = this.#wake();
  }

  /**
   * Resolves once the apps' trees were asked for (at most {@link WAKE_MS}): a browser builds its
   * page's tree only then, and a click before would name the page's whole document.
   */
  get woken(): Promise<void> {
    return this.#woken;
  }

  /** The latest hook event given to the aggregator: the input an action starting now starts with. */
  noteHook(event: HookEvent): void {
    this.#lastHook = event;
    if (event.type !== 'mousemove' && event.type !== 'mousedown') return;
    clearTimeout(this.#rest);
    this.#rest = undefined;
    if (event.type !== 'mousemove') return;
    // Where the pointer rests, a press may follow: the element there is looked up ahead, in case the
    // press closes its window before the press's own lookup is answered (an OK button).
    this.#rest = setTimeout(() => {
      if (this.#secret.on) return;
      const { x, y } = event;
      this.#hover = { x, y, element: this.#element((a11y) => a11y.elementAt({ x, y })) };
    }, HOVER_REST_MS).unref();
  }

  /** Stops looking ahead of presses. */
  stop(): void {
    clearTimeout(this.#rest);
    this.#rest = undefined;
  }

  /** An action starts at `time`: looks up the element under its press or wheel, or the focus at its key. */
  startAt(time: number): void {
    const hook = this.#lastHook;
    if (hook?.time !== time || this.#secret.on) return;
    if (hook.type === 'mousedown' || hook.type === 'wheel') {
      const hover = this.#hover;
      const rested = hover && Math.hypot(hover.x - hook.x, hook.y - hover.y) <= HOVER_DISTANCE ? hover : null;
      const pressed = this.#element((a11y) => a11y.elementAt({ x: hook.x, y: hook.y }));
      this.#started.set(time, this.#pressedOrRested(pressed, rested?.element ?? null));
    } else if (hook.type === 'keydown') {
      this.#started.set(
        time,
        this.#element((a11y) => a11y.focused(hook.time)),
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
    return (started ?? this.#element((a11y) => a11y.focused())).then(async (field) => {
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

  /**
   * The element of a press: the one under it as the app answers now; else (its window closed
   * meanwhile) the one under the pointer as it rested there just before. Where the two are of
   * different windows and the rested one's is gone, the press closed it and was answered after:
   * what it names lay under the closed window.
   */
  async #pressedOrRested(
    pressed: Promise<AccessibleElement | null>,
    rested: Promise<AccessibleElement | null> | null,
  ): Promise<AccessibleElement | null> {
    const [now, before] = await Promise.all([pressed, rested]);
    if (!now || !before) return now ?? before ?? null;
    const sameWindow =
      now.app === before.app &&
      now.window.role === before.window.role &&
      now.window.name === before.window.name;
    if (sameWindow) return now;
    const still = await this.#lookUp((a11y) => a11y.find(identityOf(before)));
    return still && still.length > 0 ? now : before;
  }

  /**
   * The element `ask` names, within {@link LOOKUP_MS}; a window or a whole document is none.
   * Such an answer wakes the trees and asks again: a browser builds a page's tree (and learns its
   * elements' places) only once asked, and a page shown after the start's wake (an app the recording
   * launched, a window opened since) was not woken.
   */
  async #element(
    ask: (a11y: Accessibility) => Promise<AccessibleElement | null>,
  ): Promise<AccessibleElement | null> {
    const first = await this.#lookUp(ask);
    if (!first || !isWholeWindow(first)) return first;
    await this.#wake();
    // A busy browser may still be placing the page's elements: asked again for a while.
    const deadline = performance.now() + REASK_MS;
    for (;;) {
      const again = await this.#lookUp(ask);
      if (again && !isWholeWindow(again)) return again;
      if (performance.now() >= deadline) return null;
      await delay(REASK_PAUSE_MS, undefined, { ref: false });
    }
  }

  /**
   * The accessibility trees: the first opening is waited for whole (it runs from the start); where
   * the bus did not answer then (a busy machine), the desktop asks it again (os-io's
   * accessibilityOnce) and a lookup waits for that at most `withinMs`.
   */
  async #opened(withinMs: number): Promise<Accessibility | null> {
    const first = await this.#first;
    if (first) return first;
    return Promise.race([
      this.#desktop.accessibility().catch(() => null),
      delay(withinMs, null, { ref: false }),
    ]);
  }

  /** Wakes the apps' trees, within {@link WAKE_MS}. */
  #wake(): Promise<void> {
    return this.#opened(WAKE_MS)
      .then((a11y) => a11y && Promise.race([a11y.wake(), delay(WAKE_MS, undefined, { ref: false })]))
      .then(
        () => undefined,
        () => undefined,
      );
  }

  /** What `ask` answers, within {@link LOOKUP_MS}; null when it failed or was not back in time. */
  #lookUp<T>(ask: (a11y: Accessibility) => Promise<T | null>): Promise<T | null> {
    return this.#opened(LOOKUP_MS)
      .then((opened) => (opened ? Promise.race([ask(opened), delay(LOOKUP_MS, null, { ref: false })]) : null))
      .catch(() => null);
  }
}
