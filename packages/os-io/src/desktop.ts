/**
 * The desktop as record and replay see it: one interface, so they depend on what a desktop can do,
 * not on nut-js. Adapters: nut-desktop.ts (nut-js + uiohook-napi: X11, macOS, Windows),
 * wlroots-desktop.ts (Wayland under sway and other wlroots compositors) and gnome-desktop.ts (Wayland
 * under GNOME's mutter); create-desktop.ts picks one.
 * All coordinates are logical pixels, the space of saved screenshots.
 */
import type { KeyChord } from '@mime-desktop/schema';
import type { Accessibility } from './accessibility.ts';
import type { RawFrame } from './capture.ts';
import type { DisplayFacts } from './display-probe.ts';
import type { FrameRing, FrameRingOptions } from './frame-ring.ts';
import type { HookEvent, HookSubscription, StartHooksOptions } from './hooks.ts';
import type { ClickOptions, DragOptions, MoveOptions, ScrollOptions } from './input.ts';
import type { LogicalPoint, ScreenGeometry, ScrollDirection } from './units.ts';
import type { FoundWindow } from './windows.ts';

/** A top-level window, as the window system shows it. */
export interface ActiveWindow {
  title: string;
}

export interface Desktop {
  /** The display probe's facts, taken when the desktop was created. */
  readonly display: DisplayFacts;
  /** Screen size in both units and the scale, measured when the desktop was created. */
  readonly screen: ScreenGeometry;
  /**
   * Aborts with an {@link AbortedError} (`MIME_ABORTED`) when the fail-safe fires (pointer into a
   * corner, hotkey) or the caller's signal aborts; input rejects from then on.
   */
  readonly signal: AbortSignal;
  /** The fail-safe hotkey in mime's chord syntax, or null when there is none. */
  readonly abortHotkey: string | null;

  /** Grabs the screen now (raw, physical pixels, opaque, about 10 ms). */
  captureFrame(): Promise<RawFrame>;
  /** A ring of recent frames captured from this desktop (not started). */
  createFrameRing(options?: FrameRingOptions): FrameRing;

  pointerPosition(): Promise<LogicalPoint>;
  /** The window that has the keyboard focus now, or null when the platform cannot tell. */
  activeWindow(): Promise<ActiveWindow | null>;
  /**
   * The apps' accessibility trees, opened at the first call (and accessibility turned on for apps
   * started later); null where the platform has none reachable (no accessibility bus).
   */
  accessibility(): Promise<Accessibility | null>;
  /**
   * The app window under a point, as a click there would hit it (title, WM_CLASS, box); null over the
   * bare desktop. Throws `MIME_UNSUPPORTED_PLATFORM` where the window system does not tell (not X11).
   */
  windowAt(point: LogicalPoint): Promise<FoundWindow | null>;
  /**
   * The visible app windows, top of the stacking order first, each with its box (logical px). Same
   * errors as {@link windowAt}.
   */
  windows(): Promise<FoundWindow[]>;
  /** The app window that has the keyboard focus (typing goes there); null when none has. Same errors. */
  focusedWindow(): Promise<FoundWindow | null>;
  movePointer(point: LogicalPoint, options?: MoveOptions): Promise<void>;
  /** Left, right or middle click; `clicks: 2` for a double click. */
  click(point: LogicalPoint, options?: ClickOptions): Promise<void>;
  /** Press at `from`, move in steps, release at `to`. */
  drag(from: LogicalPoint, to: LogicalPoint, options?: DragOptions): Promise<void>;
  /** Turns the wheel `amount` notches. */
  scroll(direction: ScrollDirection, amount: number, options?: ScrollOptions): Promise<void>;
  /** Presses a key chord: `enter`, `ctrl+a`, `ctrl+shift+t`, `alt+f4`. */
  pressKey(chord: string | KeyChord): Promise<void>;
  /**
   * Types text exactly, including symbols and non-ASCII (on X11 by keycode, elsewhere pasted
   * through the clipboard).
   */
  typeText(text: string, options?: { keyDelayMs?: number }): Promise<void>;
  /** The clipboard's text now; null when it holds no text, too much, or does not answer. */
  readClipboard(): Promise<string | null>;

  /** Global input events until the subscription stops (or the desktop closes). */
  startHooks(onEvent: (event: HookEvent) => void, options?: StartHooksOptions): Promise<HookSubscription>;
  /**
   * Calls `onPress` each time the chord (mime's syntax) is pressed, until the subscription stops:
   * through the hooks on X11, through a compositor binding on sway, where no hooks exist. Throws
   * `MIME_UNSUPPORTED_PLATFORM` where neither is there.
   */
  watchHotkey(chord: string, onPress: () => void): Promise<HookSubscription>;
  /** Stops hooks started here and the fail-safe's watch; frame rings are stopped by their owners. */
  close(): Promise<void>;
}
