import { setTimeout as delay } from 'node:timers/promises';
import type { Desktop, HookEvent } from '@mime-desktop/os-io';
import type { SourceWindow } from '@mime-desktop/schema';
import type { RecordedAction } from './aggregate.ts';
import { LOOKUP_MS } from './element-lookup.ts';
import type { SecretTyping } from './secret-typing.ts';

/** Actions whose point a window holds. */
const POINTER_ACTIONS = new Set(['click', 'double_click', 'right_click', 'middle_click', 'scroll', 'drag']);

/**
 * The top-level window under each pointer action and where it stood, looked up beside the hooks as
 * the press or the wheel comes (one listing of the window tree each, never delaying them): replay maps
 * the recorded point into the window where the window moved or changed size. Where the window system
 * does not tell (Wayland but sway, or no window under the point), the event has none; nor while a
 * secret is typed (a title may show it). Its answer is waited for as an element's is ({@link LOOKUP_MS}):
 * one listing of the window tree takes 10-40 ms idle, and over 1 s beside a full CI run (CI 11c, Node 22
 * line: a double click recorded without its window).
 */
export class WindowLookup {
  readonly #desktop: Desktop;
  readonly #secret: SecretTyping;
  readonly #started = new Map<number, Promise<SourceWindow | null>>();
  #lastHook: HookEvent | undefined;

  constructor(desktop: Desktop, secret: SecretTyping) {
    this.#desktop = desktop;
    this.#secret = secret;
  }

  /** The latest hook event given to the aggregator: the input an action starting now starts with. */
  noteHook(event: HookEvent): void {
    this.#lastHook = event;
  }

  /** An action starts at `time`: looks up the window under its press or wheel. */
  startAt(time: number): void {
    const hook = this.#lastHook;
    if (hook?.time !== time || this.#secret.on) return;
    if (hook.type !== 'mousedown' && hook.type !== 'wheel') return;
    const lookup = this.#desktop.windowAt({ x: hook.x, y: hook.y }).then(sourceWindow, () => null);
    this.#started.set(time, Promise.race([lookup, delay(LOOKUP_MS, null, { ref: false })]));
  }

  /** The window of a pointer action (null for other actions, or where none was found). */
  of(action: RecordedAction): Promise<SourceWindow | null> | null {
    const started = this.#started.get(action.time) ?? null;
    for (const time of this.#started.keys()) if (time <= action.time) this.#started.delete(time);
    return POINTER_ACTIONS.has(action.action_type) ? started : null;
  }
}

/** A found window as a recording keeps it; null without a box to map by. */
function sourceWindow(window: Awaited<ReturnType<Desktop['windowAt']>>): SourceWindow | null {
  const box = window?.box;
  if (!window || !box || box.width <= 0 || box.height <= 0) return null;
  return { title: window.title, classes: window.classes.slice(0, 8), box: { ...box } };
}
