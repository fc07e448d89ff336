import type { HookEvent, HookKeyEvent, HookMouseButtonEvent, HookWheelEvent } from '@mime-desktop/os-io';
import { typedChar } from '@mime-desktop/os-io';
import {
  CLICK_OF_BUTTON,
  formatKeyChord,
  type ManifestEvent,
  MODIFIERS,
  type Modifier,
} from '@mime-desktop/schema';

type ActionEvent = Exclude<ManifestEvent, { action_type: null }>;

/** One recorded action, before it gets its screenshot and is written to the manifest. */
export type RecordedAction = Pick<ActionEvent, 'action_type' | 'action_details'> & {
  /** Epoch ms of the action's first input: its PRE frame is the last frame captured before this. */
  time: number;
};

export interface AggregatorOptions {
  /** Pointer travel, logical px, past which a press becomes a drag. Default 8. */
  dragThreshold?: number;
  /** Longest gap, ms, between two clicks of a double click. Default 400. */
  doubleClickMs?: number;
  /** Farthest apart, logical px, two clicks of a double click may be. Default 6. */
  doubleClickDistance?: number;
  /** Longest pause, ms, inside one scroll burst. Default 600. */
  scrollGapMs?: number;
  /**
   * A tick this much later than the one before it follows a stall (the process or its loop held up,
   * e.g. on a busy machine): input given during the stall may not be delivered yet (the hook's
   * thread wakes up after the timers), so nothing is decided until this long after the stall.
   * Default 250 (the recorder ticks every 50 ms).
   */
  stallMs?: number;
  /** Whether typing is secret right now (its text is never kept). Default: never. */
  isSecret?: () => boolean;
  /**
   * Called with the time of an action's first input as it arrives (a press, the first key of a
   * typing burst, the first wheel notch), before the action is known whole: the moment to keep its
   * PRE frame. Default none.
   */
  onActionStart?: (time: number) => void;
}

interface Press {
  button: HookMouseButtonEvent['button'];
  x: number;
  y: number;
  time: number;
  dragging: boolean;
  /** The second press of a double click. */
  second: boolean;
}

interface PendingClick {
  x: number;
  y: number;
  time: number;
  upTime: number;
}

interface Typing {
  text: string;
  time: number;
  secret: boolean;
  /** Some key of the burst typed something the layout could not tell. */
  unresolved: boolean;
}

interface Scroll {
  x: number;
  y: number;
  dx: number;
  dy: number;
  time: number;
  last: number;
}

const MODIFIER_NAMES = new Set<string>(MODIFIERS);

/**
 * Turns the raw hook stream into the actions a person meant: clicks, double clicks, drags, typing
 * bursts (Backspace applied), key chords and scroll bursts. Feed it every hook event in order with
 * {@link push}, call {@link tick} now and then so a lone click or a scroll burst is emitted once its
 * window has passed, and {@link flush} at the end. Actions come out in the order they started.
 */
export class ActionAggregator {
  readonly #emit: (action: RecordedAction) => void;
  readonly #dragThreshold: number;
  readonly #doubleClickMs: number;
  readonly #doubleClickDistance: number;
  readonly #scrollGapMs: number;
  readonly #stallMs: number;
  readonly #isSecret: () => boolean;
  readonly #onActionStart: (time: number) => void;
  #press: Press | undefined;
  #click: PendingClick | undefined;
  #typing: Typing | undefined;
  #scroll: Scroll | undefined;
  #lastTick: number | undefined;
  #heldUntil = Number.NEGATIVE_INFINITY;

  constructor(emit: (action: RecordedAction) => void, options: AggregatorOptions = {}) {
    this.#emit = emit;
    this.#dragThreshold = options.dragThreshold ?? 8;
    this.#doubleClickMs = options.doubleClickMs ?? 400;
    this.#doubleClickDistance = options.doubleClickDistance ?? 6;
    this.#scrollGapMs = options.scrollGapMs ?? 600;
    this.#stallMs = options.stallMs ?? 250;
    this.#isSecret = options.isSecret ?? (() => false);
    this.#onActionStart = options.onActionStart ?? (() => undefined);
  }

  push(event: HookEvent): void {
    switch (event.type) {
      case 'mousemove':
        if (
          this.#press &&
          Math.hypot(event.x - this.#press.x, event.y - this.#press.y) > this.#dragThreshold
        ) {
          this.#press.dragging = true;
        }
        return;
      case 'mousedown':
        this.#mouseDown(event);
        return;
      case 'mouseup':
        this.#mouseUp(event);
        return;
      case 'wheel':
        this.#wheel(event);
        return;
      case 'keydown':
        this.#keyDown(event);
        return;
      case 'keyup':
        return;
    }
  }

  /**
   * Emits what has waited long enough: a click with no second click, a scroll burst that stopped.
   * Input times are the X server's, so a notch given during a stall is in time for its burst once
   * delivered: the ticks for `stallMs` after a stall decide nothing.
   */
  tick(now: number): void {
    if (this.#lastTick !== undefined && now - this.#lastTick > this.#stallMs)
      this.#heldUntil = now + this.#stallMs;
    this.#lastTick = now;
    if (now < this.#heldUntil) return;
    if (this.#click && now - this.#click.upTime > this.#doubleClickMs) this.#flushClick();
    if (this.#scroll && now - this.#scroll.last > this.#scrollGapMs) this.#flushScroll();
  }

  /** Emits everything pending (at the end of a recording, or before an annotation). */
  flush(): void {
    this.#flushClick();
    this.#flushScroll();
    this.#flushTyping();
  }

  /** True while an action is half done (a button held, a click that may become a double click). */
  get busy(): boolean {
    return this.#press !== undefined || this.#click !== undefined;
  }

  #mouseDown(event: HookMouseButtonEvent): void {
    const click = this.#click;
    const second =
      event.button === 'left' &&
      click !== undefined &&
      event.time - click.upTime <= this.#doubleClickMs &&
      Math.hypot(event.x - click.x, event.y - click.y) <= this.#doubleClickDistance;
    if (second) {
      this.#flushScroll();
      this.#flushTyping();
    } else {
      this.flush();
      this.#onActionStart(event.time);
    }
    this.#press = { button: event.button, x: event.x, y: event.y, time: event.time, dragging: false, second };
  }

  #mouseUp(event: HookMouseButtonEvent): void {
    const press = this.#press;
    if (!press || press.button !== event.button) return;
    this.#press = undefined;
    if (press.button === 'back' || press.button === 'forward') return;
    if (press.dragging) {
      this.#flushClick();
      this.#emit({
        action_type: 'drag',
        action_details: { button: press.button, x: press.x, y: press.y, to_x: event.x, to_y: event.y },
        time: press.time,
      });
    } else if (press.button !== 'left') {
      this.#emit({
        action_type: CLICK_OF_BUTTON[press.button],
        action_details: { button: press.button, x: press.x, y: press.y },
        time: press.time,
      });
    } else if (press.second && this.#click) {
      const first = this.#click;
      this.#click = undefined;
      this.#emit({
        action_type: 'double_click',
        action_details: { button: 'left', x: first.x, y: first.y },
        time: first.time,
      });
    } else {
      this.#click = { x: press.x, y: press.y, time: press.time, upTime: event.time };
    }
  }

  #wheel(event: HookWheelEvent): void {
    this.#flushClick();
    this.#flushTyping();
    const scroll = this.#scroll;
    const continues =
      scroll !== undefined &&
      event.time - scroll.last <= this.#scrollGapMs &&
      Math.hypot(event.x - scroll.x, event.y - scroll.y) <= 50;
    if (!continues) {
      this.#flushScroll();
      this.#onActionStart(event.time);
      this.#scroll = { x: event.x, y: event.y, dx: 0, dy: 0, time: event.time, last: event.time };
    }
    const burst = this.#scroll as Scroll;
    burst.last = event.time;
    if (event.direction === 'down') burst.dy += event.amount;
    else if (event.direction === 'up') burst.dy -= event.amount;
    else if (event.direction === 'right') burst.dx += event.amount;
    else burst.dx -= event.amount;
  }

  #keyDown(event: HookKeyEvent): void {
    if (event.text !== undefined || event.unresolved) {
      this.#type(event.text ?? '', event.time, event.unresolved === true);
      return;
    }
    const key = event.key;
    if (key === null || MODIFIER_NAMES.has(key)) return;
    const commandModifiers = event.modifiers.filter((m): m is Modifier => m !== 'shift');
    // Without the layout's word on it (no X keymap, keypad keys), a key types its US character.
    const char =
      commandModifiers.length === 0 ? typedChar(key, event.modifiers.includes('shift')) : undefined;
    if (char !== undefined) {
      this.#type(char, event.time);
      return;
    }
    const typing = this.#typing;
    if (
      key === 'backspace' &&
      commandModifiers.length === 0 &&
      typing &&
      (typing.secret || typing.text !== '')
    ) {
      typing.text = Array.from(typing.text).slice(0, -1).join('');
      return;
    }
    this.flush();
    this.#onActionStart(event.time);
    this.#emit({
      action_type: 'key',
      action_details: { key: formatKeyChord({ modifiers: event.modifiers, key }) },
      time: event.time,
    });
  }

  #type(text: string, time: number, unresolved = false): void {
    const secret = this.#isSecret();
    if (this.#typing && this.#typing.secret !== secret) this.#flushTyping();
    if (!this.#typing) {
      this.#flushClick();
      this.#flushScroll();
      this.#onActionStart(time);
      this.#typing = { text: '', time, secret, unresolved: false };
    }
    if (!secret) this.#typing.text += text;
    if (unresolved) this.#typing.unresolved = true;
  }

  #flushClick(): void {
    const click = this.#click;
    if (!click) return;
    this.#click = undefined;
    this.#emit({
      action_type: 'click',
      action_details: { button: 'left', x: click.x, y: click.y },
      time: click.time,
    });
  }

  #flushScroll(): void {
    const scroll = this.#scroll;
    if (!scroll) return;
    this.#scroll = undefined;
    if (scroll.dx === 0 && scroll.dy === 0) return;
    this.#emit({
      action_type: 'scroll',
      action_details: { x: scroll.x, y: scroll.y, dx: scroll.dx, dy: scroll.dy },
      time: scroll.time,
    });
  }

  #flushTyping(): void {
    const typing = this.#typing;
    if (!typing) return;
    this.#typing = undefined;
    if (!typing.secret && typing.text === '' && !typing.unresolved) return;
    this.#emit({
      action_type: 'type',
      action_details: {
        text: typing.text,
        secret: typing.secret,
        ...(typing.unresolved && !typing.secret ? { unresolved: true } : {}),
      },
      time: typing.time,
    });
  }
}
