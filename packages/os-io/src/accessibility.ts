/**
 * The desktop's accessibility trees: what apps say their elements are (role, name, label, text,
 * states, extents), looked up from a screen point, from the keyboard focus, or by the identity an
 * element was recorded with. The interface names no platform API: AT-SPI (atspi.ts) is its adapter
 * on Linux; UI Automation and AX adapters can follow. Lookups start from a point or an app's
 * windows, never from a walk of the whole desktop.
 */
import type { AccessibleElement } from '@mime-desktop/schema';
import type { LogicalPoint } from './units.ts';

export interface FindOptions {
  /** Most elements looked at when the recorded path no longer leads to the element. Default 2000. */
  maxNodes?: number;
}

export interface Accessibility {
  /**
   * The deepest element under a screen point, in the topmost app window there; null when none says
   * (a window whose app keeps no tree under it, as Chromium without its flag, says nothing).
   * With `text`, its text too (never a password field's): what a label or a paragraph shows.
   */
  elementAt(point: LogicalPoint, options?: { text?: boolean }): Promise<AccessibleElement | null>;
  /**
   * The line of text (between its line ends) under a screen point, in the deepest element there that
   * has text, as the app places its characters: an editor's line in its whole text area. Null where
   * no element there says which character is at the point (or it is a password field).
   */
  lineAt(point: LogicalPoint): Promise<string | null>;
  /**
   * The element with the keyboard focus, with its text (never a password field's); null when none.
   * With `at` (epoch ms on the `epochNow` clock), the element that had it then, as the
   * toolkits' focus events told: a key's element is the one focused before the key, not a dialog
   * the key opened.
   */
  focused(at?: number): Promise<AccessibleElement | null>;
  /**
   * Asks the apps' windows for their trees once, so trees built only when first asked for (a
   * browser's page) are there for the first lookup, and takes the focus as it is now. From then on
   * each element is described as it gains the focus, so `focused(at)` names it after its window
   * closed (a key that closed a dialog).
   */
  wake(): Promise<void>;
  /**
   * The elements of the recorded app's windows that are the recorded element: same role and name (or
   * label), found along the recorded path, else by a bounded search of the windows. Live extents,
   * states and text.
   */
  find(identity: AccessibleElement, options?: FindOptions): Promise<AccessibleElement[]>;
  /** The apps that expose a tree now, by name (for `doctor`). */
  apps(): Promise<string[]>;
  /**
   * Where the compositor tells no program where windows are (GNOME's mutter): the trees with extents
   * counted from each element's window, and the place of an app's windows once the caller measured it.
   * Absent where elements are placed on the screen already (X11, sway).
   */
  readonly unplaced?: UnplacedWindows;
  close(): Promise<void>;
}

/**
 * Windows whose place nobody tells: elements are placed only once the caller measured where their
 * app's window is (replay does, from the recorded look of a distinctive element; see the README's
 * Wayland section). Until then, and after `place(app, null)`, their extents are null.
 */
export interface UnplacedWindows {
  /** The elements of the recorded app's windows that are the recorded element, extents counted from their window. */
  findInWindow(identity: AccessibleElement, options?: FindOptions): Promise<AccessibleElement[]>;
  /** Places every element of the app with accessible name `app` by its window's measured origin; null forgets it. */
  place(app: string, origin: LogicalPoint | null): void;
}

/**
 * The environment that makes apps mime starts export their accessibility tree: GTK 3 through its
 * AT-SPI bridge, GTK 4 through its AT-SPI backend (`GTK_A11Y=none`, which turns it off, is
 * overridden), Qt, and Chromium/Electron (which also need {@link ACCESSIBLE_CHROMIUM_FLAG}).
 */
export function accessibleAppEnv(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const modules = (env.GTK_MODULES ?? '').split(':').filter(Boolean);
  return {
    ...env,
    NO_AT_BRIDGE: '0',
    GTK_A11Y: 'atspi',
    GTK_MODULES: [...new Set([...modules, 'atk-bridge'])].join(':'),
    QT_LINUX_ACCESSIBILITY_ALWAYS_ON: '1',
    QT_ACCESSIBILITY: '1',
    ACCESSIBILITY_ENABLED: '1',
  };
}

/**
 * Where the window of a process is on the screen, for toolkits that report extents relative to their
 * window (every toolkit on Wayland), by the app's process and accessible name; null when the
 * compositor does not tell.
 */
export type WindowOrigin = (app: { pid: number; name: string }) => Promise<LogicalPoint | null>;

/** Chromium and Electron expose an empty frame unless started with this flag. */
export const ACCESSIBLE_CHROMIUM_FLAG = '--force-renderer-accessibility';

/** A shell command that starts an app, with what makes it accessible added (Chromium's flag). */
export function accessibleCommand(command: string): string {
  const match = /^(\s*(?:\S*\/)?(?:chromium|chromium-browser|google-chrome\S*|chrome|electron))(\s|$)/u.exec(
    command,
  );
  if (!match?.[1] || command.includes(ACCESSIBLE_CHROMIUM_FLAG)) return command;
  return `${match[1]} ${ACCESSIBLE_CHROMIUM_FLAG}${command.slice(match[1].length)}`;
}

/** The accessibility bus opened, or why it cannot be. */
export type OpenedAccessibility =
  | { ok: true; accessibility: Accessibility }
  /** `retry`: the bus is there but did not answer in time (a busy machine); asking later may succeed. */
  | { ok: false; reason: string; retry?: boolean };
