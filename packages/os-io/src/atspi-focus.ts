import type { AccessibleElement } from '@mime-desktop/schema';
import { type AtspiCalls, DBUS, REGISTRY, type Ref } from './atspi-calls.ts';
import type { AtspiElementReader } from './atspi-element.ts';
import { epochNow } from './time.ts';

/** The toolkits' focus event (`focus:`), which Gecko and Chromium send beside the state change. */
const FOCUS_EVENT = 'org.a11y.atspi.Event.Focus';
/** Focus changes remembered. */
const HISTORY = 64;

/** A change of the keyboard focus: from `time` (epoch ms), `ref` had it. */
export interface FocusChange {
  time: number;
  ref: Ref | null;
  /**
   * The element as it was when it gained the focus (without its text), once {@link FocusTrail.keep}
   * was called: what a lookup answers when the element's window closed since.
   */
  kept?: Promise<AccessibleElement | null>;
}

/** What a bus message says of the focus, as dbus-next gives it. */
interface FocusMessage {
  interface?: string | undefined;
  member?: string | undefined;
  sender?: string | undefined;
  path?: string | undefined;
  body: unknown[];
}

/**
 * The keyboard focus as the toolkits' events tell it (`object:state-changed:focused`, `focus:`),
 * each change stamped with when it arrived: the element that had the focus at a given moment is
 * known after the focus moved on (a key that opened a dialog), and, kept, after its window closed.
 */
export class FocusTrail {
  readonly #calls: AtspiCalls;
  readonly #elements: AtspiElementReader;
  /** Oldest first. */
  readonly #changes: FocusChange[] = [];
  #keep = false;

  constructor(calls: AtspiCalls, elements: AtspiElementReader) {
    this.#calls = calls;
    this.#elements = elements;
  }

  /** Starts following the focus: the registry tells the toolkits someone listens. */
  async watch(): Promise<void> {
    await this.#calls.call(DBUS, DBUS[0], 'AddMatch', 's', [
      "type='signal',interface='org.a11y.atspi.Event.Object',member='StateChanged'",
    ]);
    await this.#calls.call(DBUS, DBUS[0], 'AddMatch', 's', [`type='signal',interface='${FOCUS_EVENT}'`]);
    const registry: Ref = [REGISTRY, '/org/a11y/atspi/registry'];
    await this.#calls.call(registry, REGISTRY, 'RegisterEvent', 's', ['object:state-changed:focused']);
    await this.#calls.call(registry, REGISTRY, 'RegisterEvent', 's', ['focus:']).catch(() => undefined);
  }

  /** From now on, each element is described as it gains the focus (see {@link FocusChange.kept}). */
  keep(): void {
    this.#keep = true;
  }

  /** Takes a message from the accessibility bus: a focus gained or lost. */
  onMessage(message: FocusMessage): void {
    if (!message.sender || !message.path) return;
    const ref: Ref = [message.sender, message.path];
    const focusedState = message.member === 'StateChanged' && message.body[0] === 'focused';
    if (
      (focusedState && message.body[1] === 1) ||
      (message.interface === FOCUS_EVENT && message.member === 'Focus')
    ) {
      const last = this.latest;
      if (last?.ref?.[0] === ref[0] && last.ref[1] === ref[1]) return;
      this.note(ref);
    } else if (focusedState && message.body[1] === 0) {
      const last = this.latest?.ref;
      if (last?.[0] === ref[0] && last[1] === ref[1]) this.note(null);
    }
  }

  /** Notes that `ref` has the focus from `time` (null: nothing said to have it). */
  note(ref: Ref | null, time = epochNow()): void {
    const change: FocusChange = { time, ref };
    if (ref && this.#keep) {
      change.kept = this.#elements.describe(ref, false).catch(() => null);
      change.kept.catch(() => undefined);
    }
    this.#changes.push(change);
    if (this.#changes.length > HISTORY) this.#changes.shift();
  }

  /** The last change, or undefined before any. */
  get latest(): FocusChange | undefined {
    return this.#changes.at(-1);
  }

  /** The change in force at `time`; undefined when none came before it. */
  at(time: number): FocusChange | undefined {
    for (let i = this.#changes.length - 1; i >= 0; i -= 1) {
      const change = this.#changes[i];
      if (change && change.time <= time) return change;
    }
    return undefined;
  }
}
