/**
 * Global input hooks on uiohook-napi, normalized into typed events. On X11 uiohook listens through
 * XRecord and sees real input and synthetic (XTest) input alike, mime's own included.
 *
 * uiohook is one hook per process, so subscriptions share it: the hook starts with the first
 * subscriber and stops with the last.
 */
import type { Modifier } from '@mime-desktop/schema';
import type { UiohookKeyboardEvent, UiohookMouseEvent, UiohookWheelEvent } from 'uiohook-napi';
import { assertDisplay } from './display-probe.ts';
import { UnsupportedPlatformError } from './errors.ts';
import { KeyTextResolver } from './key-text.ts';
import { buildKeycodeNames, type HookKeyName } from './keymap.ts';
import { loadUiohook, type UiohookModule } from './native.ts';
import { epochNow } from './time.ts';
import type { ScrollDirection } from './units.ts';
import { XKeyboard } from './x-keyboard.ts';

/** Mouse buttons as hooks name them (`back`/`forward` are the side buttons). */
export type HookButton = 'left' | 'right' | 'middle' | 'back' | 'forward';

interface HookEventBase {
  /** When the input happened, epoch ms on the {@link epochNow} clock (estimated from the hook's own timestamps). */
  time: number;
  /** Modifiers held, in the order ctrl, alt, shift, meta. */
  modifiers: Modifier[];
}

export interface HookMouseButtonEvent extends HookEventBase {
  type: 'mousedown' | 'mouseup';
  button: HookButton;
  /** Pointer position, logical pixels. */
  x: number;
  y: number;
  /** 1 for a single press, 2 for the second of a double click, and so on. */
  clicks: number;
}

/** A pointer move; during a drag the moves arrive as these too, between mousedown and mouseup. */
export interface HookMouseMoveEvent extends HookEventBase {
  type: 'mousemove';
  x: number;
  y: number;
}

export interface HookWheelEvent extends HookEventBase {
  type: 'wheel';
  /** Which way the content scrolls: `down` for the wheel turned towards the user. */
  direction: ScrollDirection;
  /** Wheel notches, at least 1. */
  amount: number;
  x: number;
  y: number;
}

export interface HookKeyEvent extends HookEventBase {
  type: 'keydown' | 'keyup';
  /** The key's name (printable keys by their unshifted character), or null for keys mime has no name for. */
  key: HookKeyName | null;
  /** uiohook's keycode, for keys without a name. */
  keycode: number;
  /**
   * keydown on X11: the characters the press typed in the active keyboard layout (`ü`, `@` with AltGr,
   * `é` for the letter after a dead key, `''` for the dead key itself); absent for keys that type none,
   * with a command modifier held, or where mime cannot read the layout (then read `key` as a US key).
   */
  text?: string;
  /** keydown: the press typed something mime cannot tell (a key without a code, an unknown keysym). */
  unresolved?: boolean;
}

export type HookEvent = HookMouseButtonEvent | HookMouseMoveEvent | HookWheelEvent | HookKeyEvent;

export interface StartHooksOptions {
  /**
   * Start even in a Wayland session, where XWayland lets the hook see only X11 windows' input.
   * Default false: throw {@link UnsupportedPlatformError} instead of recording half the events.
   */
  allowXWayland?: boolean;
  /**
   * Resolve key presses through the active keyboard layout (X11): the characters they type
   * (`text`, `unresolved`) and chord keys by the layout's names. Reading the X keymap costs about
   * 20 ms at the first such subscription. The hook is shared: while one subscription asks for it,
   * every subscription's key events carry it. Default false: keys are named as on a US keyboard.
   */
  layoutText?: boolean;
}

/** A running subscription; `stop()` ends it (and the shared hook with the last one). */
export interface HookSubscription {
  stop(): Promise<void>;
}

// uiohook event types (its EventType enum; 10 is libuiohook's "dragged", sent on some platforms).
const KEY_PRESSED = 4;
const KEY_RELEASED = 5;
const MOUSE_PRESSED = 7;
const MOUSE_RELEASED = 8;
const MOUSE_MOVED = 9;
const MOUSE_DRAGGED = 10;
const MOUSE_WHEEL = 11;
const WHEEL_VERTICAL = 3;

const BUTTONS: Record<number, HookButton> = { 1: 'left', 2: 'right', 3: 'middle', 4: 'back', 5: 'forward' };

type UiohookEvent = UiohookKeyboardEvent | UiohookMouseEvent | UiohookWheelEvent;

/**
 * Turns hook timestamps (X server milliseconds on X11, another epoch elsewhere) into epoch ms:
 * offset = the smallest (arrival - stamp) seen, i.e. the least-delayed event; re-anchored when a
 * stamp jumps (32-bit wrap, clock change).
 */
class HookClock {
  #offset: number | undefined;

  toEpoch(stamp: number): number {
    const arrival = epochNow();
    const candidate = arrival - stamp;
    if (this.#offset === undefined || candidate < this.#offset || candidate - this.#offset > 10_000) {
      this.#offset = candidate;
    }
    return stamp + this.#offset;
  }
}

function modifiersOf(event: UiohookEvent): Modifier[] {
  const modifiers: Modifier[] = [];
  if (event.ctrlKey) modifiers.push('ctrl');
  if (event.altKey) modifiers.push('alt');
  if (event.shiftKey) modifiers.push('shift');
  if (event.metaKey) modifiers.push('meta');
  return modifiers;
}

function keyEvent(
  event: UiohookKeyboardEvent,
  time: number,
  modifiers: Modifier[],
  keyNames: ReadonlyMap<number, HookKeyName>,
  resolver: KeyTextResolver,
): HookKeyEvent {
  const { keycode } = event;
  const key = keyNames.get(keycode) ?? null;
  if (event.type !== KEY_PRESSED) {
    resolver.release(keycode);
    return { type: 'keyup', key, keycode, time, modifiers };
  }
  const { key: layoutKey, ...typed } = resolver.press(keycode, modifiers);
  return { type: 'keydown', key: (layoutKey as HookKeyName | undefined) ?? key, keycode, time, ...typed };
}

function normalize(
  event: UiohookEvent,
  time: number,
  keyNames: ReadonlyMap<number, HookKeyName>,
  resolver: KeyTextResolver,
): HookEvent | undefined {
  const modifiers = modifiersOf(event);
  const type: number = event.type;
  switch (type) {
    case KEY_PRESSED:
    case KEY_RELEASED:
      return keyEvent(event as UiohookKeyboardEvent, time, modifiers, keyNames, resolver);
    case MOUSE_PRESSED:
    case MOUSE_RELEASED: {
      const mouse = event as UiohookMouseEvent;
      const button = BUTTONS[Number(mouse.button)];
      if (!button) return undefined;
      return {
        type: type === MOUSE_PRESSED ? 'mousedown' : 'mouseup',
        button,
        x: mouse.x,
        y: mouse.y,
        clicks: mouse.clicks,
        time,
        modifiers,
      };
    }
    case MOUSE_MOVED:
    case MOUSE_DRAGGED: {
      const mouse = event as UiohookMouseEvent;
      return { type: 'mousemove', x: mouse.x, y: mouse.y, time, modifiers };
    }
    case MOUSE_WHEEL: {
      const wheel = event as UiohookWheelEvent;
      if (wheel.rotation === 0) return undefined;
      const vertical = wheel.direction === WHEEL_VERTICAL;
      const direction: ScrollDirection = vertical
        ? wheel.rotation < 0
          ? 'up'
          : 'down'
        : wheel.rotation < 0
          ? 'left'
          : 'right';
      return {
        type: 'wheel',
        direction,
        amount: Math.abs(wheel.rotation),
        x: wheel.x,
        y: wheel.y,
        time,
        modifiers,
      };
    }
    default:
      return undefined; // EVENT_MOUSE_CLICKED: mousedown/mouseup already say it
  }
}

/** The one uiohook of this process, shared by every subscription (uiohook itself is a singleton). */
class HookHub {
  readonly #listeners = new Set<(event: HookEvent) => void>();
  #uiohook: UiohookModule | undefined;
  #keyNames: ReadonlyMap<number, HookKeyName> = new Map();
  #clock = new HookClock();
  #keyboard: XKeyboard | undefined;
  #keyboardOpening: Promise<void> | undefined;
  readonly #resolver = new KeyTextResolver(() => this.#keyboard?.keymap);
  #stopping: Promise<void> = Promise.resolve();

  readonly #dispatch = (raw: UiohookEvent) => {
    const event = normalize(raw, this.#clock.toEpoch(raw.time), this.#keyNames, this.#resolver);
    if (!event) return;
    for (const listener of this.#listeners) listener(event);
  };

  async subscribe(listener: (event: HookEvent) => void, layoutText: boolean): Promise<HookSubscription> {
    const uiohook = await loadUiohook();
    await this.#stopping;
    if (!this.#uiohook) {
      this.#uiohook = uiohook;
      this.#keyNames = buildKeycodeNames(uiohook.UiohookKey);
      this.#clock = new HookClock();
    }
    const first = this.#listeners.size === 0;
    this.#listeners.add(listener);
    if (layoutText && process.platform === 'linux') {
      // The layout is read from X; without it keys are named as on a US keyboard.
      if (!this.#keyboardOpening) {
        const opening: Promise<void> = XKeyboard.open().then(
          async (keyboard) => {
            // Every subscription may have stopped while the keymap was read.
            if (this.#keyboardOpening === opening) this.#keyboard = keyboard;
            else await keyboard.close();
          },
          () => undefined,
        );
        this.#keyboardOpening = opening;
      }
      await this.#keyboardOpening;
    }
    if (first) {
      uiohook.uIOhook.on('input', this.#dispatch);
      uiohook.uIOhook.start();
    }
    let active = true;
    return {
      stop: async () => {
        if (!active) return;
        active = false;
        this.#listeners.delete(listener);
        if (this.#listeners.size > 0) return;
        uiohook.uIOhook.off('input', this.#dispatch);
        const keyboard = this.#keyboard;
        this.#keyboard = undefined;
        this.#keyboardOpening = undefined;
        this.#stopping = Promise.resolve().then(async () => {
          uiohook.uIOhook.stop();
          await keyboard?.close();
        });
        await this.#stopping;
      },
    };
  }
}

const hub = new HookHub();

/**
 * Starts listening to global input; `onEvent` gets every normalized event until `stop()`. Throws
 * {@link DisplayNotFoundError} without a display and {@link UnsupportedPlatformError} in a Wayland
 * session (unless `allowXWayland`).
 */
export async function startHooks(
  onEvent: (event: HookEvent) => void,
  options: StartHooksOptions = {},
): Promise<HookSubscription> {
  const { allowXWayland = false, layoutText = false } = options;
  const facts = await assertDisplay();
  if (facts.sessionType === 'wayland' && !allowXWayland) {
    throw new UnsupportedPlatformError(
      'Global input hooks do not work in a Wayland session: Wayland lets no program watch all input, and ' +
        'through XWayland mime would see only X11 windows. Log in to an X11 ("Xorg") session to record, ' +
        'or pass allowXWayland to accept missing events.',
    );
  }
  return hub.subscribe(onEvent, layoutText);
}
