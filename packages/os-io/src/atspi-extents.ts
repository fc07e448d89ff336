import type { ElementBox } from '@mime-desktop/schema';
import type { WindowOrigin } from './accessibility.ts';
import {
  ACCESSIBLE,
  APP_ROOT,
  APPLICATION,
  type AtspiCalls,
  DBUS,
  type Ref,
  SCREEN,
  WINDOW,
} from './atspi-calls.ts';
import type { LogicalPoint } from './units.ts';
import { xContentOrigin } from './x-window-origin.ts';
import { readWindowTree } from './x-window-tree.ts';

/**
 * How many screen pixels one of an app's AT-SPI pixels is: Qt 5 (`QT_SCALE_FACTOR`) and GTK 3
 * (`GDK_SCALE`) report extents in their own device-independent pixels, so under a scale of 1.25 a
 * window 875 px wide on the screen says it is 700 wide. Told by a window of the app whose reported
 * box, scaled, is the box of a window on the screen (size and place alike, within 2 px a unit);
 * null when none is.
 */
export function reportedScale(reported: readonly ElementBox[], screen: readonly ElementBox[]): number | null {
  const matches = (r: ElementBox, s: number) =>
    screen.some((b) => {
      const near = (actual: number, expected: number) => Math.abs(actual - expected) <= 2 * Math.max(1, s);
      return (
        near(b.width, r.width * s) && near(b.height, r.height * s) && near(b.x, r.x * s) && near(b.y, r.y * s)
      );
    });
  const windows = reported.filter((r) => r.width >= 32 && r.height >= 32);
  if (windows.some((r) => matches(r, 1))) return 1;
  for (const r of windows) {
    for (const b of screen) {
      const s = Math.round((b.width / r.width) * 100) / 100;
      if (s >= 0.5 && s <= 4 && matches(r, s)) return s;
    }
  }
  return null;
}

/** How long an app whose scale could not be told is taken at 1 before it is looked at again, ms. */
const SCALE_RETRY_MS = 2000;
/**
 * Toolkits whose elements are reported at their windows' scale. Chromium (and Electron) report a
 * scaled window (`--force-device-scale-factor`) in its own pixels but the page's elements in screen
 * pixels already; other toolkits are taken as reporting screen pixels.
 */
const SCALED_TOOLKITS = /^(qt|gtk|gail)/i;

/** An app's scales: of its windows' boxes, and of its elements' boxes. */
export interface AppScale {
  window: number;
  content: number;
}

/** Elements' boxes on the screen: each app's reported boxes scaled and placed by its window. */
export class AtspiExtents {
  readonly #calls: AtspiCalls;
  readonly #env: NodeJS.ProcessEnv;
  readonly #windowOrigin: WindowOrigin | null;
  /** Each app's scale (by its bus name; see {@link reportedScale}), and until when an unknown one holds. */
  readonly #scales = new Map<string, { scale: Promise<AppScale>; until: number }>();
  /**
   * Each app's window origin (by its bus name), asked once a lookup: {@link newLookup} clears it,
   * since a window may have moved since the last one.
   */
  readonly #origins = new Map<string, Promise<LogicalPoint>>();
  /** Whether each app (by its bus name) reports extents relative to its windows. */
  readonly #relative = new Map<string, Promise<boolean>>();

  constructor(calls: AtspiCalls, env: NodeJS.ProcessEnv, windowOrigin: WindowOrigin | null) {
    this.#calls = calls;
    this.#env = env;
    this.#windowOrigin = windowOrigin;
  }

  /** A lookup starts: windows are asked for their place again. */
  newLookup(): void {
    this.#origins.clear();
  }

  /** The element's box on the screen (`window`: the box of one of the app's windows). */
  async of(ref: Ref, kind: keyof AppScale = 'content'): Promise<ElementBox | null> {
    const relative = await this.windowRelative(ref[0]);
    const [box, scales, origin] = await Promise.all([
      this.#calls.reportedExtents(ref, relative ? WINDOW : SCREEN),
      this.scaleOf(ref[0]),
      this.originOfElement(ref).catch(() => null),
    ]);
    const scale = scales[kind];
    if (!box || !origin) return null;
    const at = (v: number) => Math.round(v * scale);
    return { x: origin.x + at(box.x), y: origin.y + at(box.y), width: at(box.width), height: at(box.height) };
  }

  /** The coordinate type to ask the app on bus `name` for points and boxes in. */
  async coordsOf(name: string): Promise<number> {
    return (await this.windowRelative(name)) ? WINDOW : SCREEN;
  }

  /**
   * Where the extents of `ref` are counted from: its window's content where its app reports them
   * relative to it on X11 (see {@link windowRelative}), else as {@link originOf}.
   */
  async originOfElement(ref: Ref): Promise<LogicalPoint> {
    if (this.#windowOrigin || !(await this.windowRelative(ref[0]))) return this.originOf(ref[0]);
    const window = await this.#toplevel(ref);
    const key = `${window[0]} ${window[1]}`;
    const known = this.#origins.get(key);
    if (known) return known;
    const origin = (async () => {
      const [[pid], title, box] = await Promise.all([
        this.#calls.call(DBUS, DBUS[0], 'GetConnectionUnixProcessID', 's', [window[0]]),
        this.#calls.prop(window, ACCESSIBLE, 'Name'),
        this.#calls.reportedExtents(window, WINDOW),
      ]);
      const point =
        typeof pid === 'number' && box
          ? await xContentOrigin(this.#env, { pid, title: String(title ?? ''), ...box })
          : null;
      if (!point) throw new Error(`no X window shows the window ${String(title ?? '')} of ${window[0]}`);
      return point;
    })();
    origin.catch(() => undefined);
    this.#origins.set(key, origin);
    return origin;
  }

  /**
   * Whether the app on bus `name` reports extents relative to its windows though asked for the
   * screen's: GTK 4 does on X11 ("Screen coordinates not supported" for a point, window coordinates
   * given for a box). An app that did not say (a call past its deadline: a GTK 4 app busy starting on
   * a loaded machine) is taken as the screen's this once and asked again next time: kept, its boxes
   * would all be stored counted from the wrong corner.
   */
  windowRelative(name: string): Promise<boolean> {
    const known = this.#relative.get(name);
    if (known) return known;
    const app: Ref = [name, APP_ROOT];
    const relative = Promise.all([
      this.#calls.prop(app, APPLICATION, 'ToolkitName'),
      this.#calls.prop(app, APPLICATION, 'Version'),
    ]).then(
      ([toolkit, version]) => /^gtk$/i.test(String(toolkit ?? '')) && /^4\./.test(String(version ?? '')),
      () => {
        this.#relative.delete(name);
        return false;
      },
    );
    this.#relative.set(name, relative);
    return relative;
  }

  /** The top-level window `ref` is in (itself, for a window). */
  async #toplevel(ref: Ref): Promise<Ref> {
    let current = ref;
    for (let depth = 0; depth < 64; depth += 1) {
      const parent = await this.#calls.parent(current);
      if (!parent) return current;
      const [role] = await this.#calls.call(parent, ACCESSIBLE, 'GetRoleName');
      if (role === 'application') return current;
      current = parent;
    }
    return current;
  }

  /**
   * Where the app on bus `name` draws its extents from: (0, 0) where they are the screen's (X11), the
   * window's place where they are the window's (Wayland: the compositor tells, by the app's process).
   * Rejects for an app whose window the compositor does not name: its elements have no place then.
   */
  originOf(name: string): Promise<LogicalPoint> {
    const windowOrigin = this.#windowOrigin;
    if (!windowOrigin) return Promise.resolve({ x: 0, y: 0 });
    const known = this.#origins.get(name);
    if (known) return known;
    const origin = (async () => {
      const [[pid], app] = await Promise.all([
        this.#calls.call(DBUS, DBUS[0], 'GetConnectionUnixProcessID', 's', [name]),
        this.#calls.prop([name, APP_ROOT], ACCESSIBLE, 'Name').catch(() => ''),
      ]);
      const point = typeof pid === 'number' ? await windowOrigin({ pid, name: String(app ?? '') }) : null;
      if (!point) throw new Error(`the compositor names no window of the app on ${name}`);
      return point;
    })();
    origin.catch(() => undefined);
    this.#origins.set(name, origin);
    return origin;
  }

  /**
   * The scales of the app on bus `name`: its windows' reported boxes against the screen's windows
   * (see {@link reportedScale}), and its elements' by its toolkit.
   */
  scaleOf(name: string): Promise<AppScale> {
    const known = this.#scales.get(name);
    if (known && known.until > performance.now()) return known.scale;
    const entry = { scale: Promise.resolve({ window: 1, content: 1 }), until: Number.POSITIVE_INFINITY };
    entry.scale = (async () => {
      // Boxes counted from a window tell no scale by their place on the screen: taken as the screen's.
      if (await this.windowRelative(name)) return { window: 1, content: 1 };
      const app: Ref = [name, APP_ROOT];
      const [windows, toolkit] = await Promise.all([
        this.#calls.children(app).catch((): Ref[] => []),
        this.#calls.prop(app, APPLICATION, 'ToolkitName').catch(() => ''),
      ]);
      const [reported, screen] = await Promise.all([
        Promise.all(windows.map((w) => this.#calls.reportedExtents(w))),
        readWindowTree(this.#env).catch(() => []),
      ]);
      const scale = reportedScale(
        reported.flatMap((b) => (b ? [b] : [])),
        screen.map((w) => w.box),
      );
      if (scale === null) entry.until = performance.now() + SCALE_RETRY_MS;
      const window = scale ?? 1;
      return { window, content: SCALED_TOOLKITS.test(String(toolkit ?? '')) ? window : 1 };
    })();
    this.#scales.set(name, entry);
    return entry.scale;
  }
}
