/**
 * The {@link Accessibility} adapter for Linux: AT-SPI over D-Bus (@particle/dbus-next, a maintained
 * fork of dbus-next). The session bus names the accessibility bus (`org.a11y.Bus`); on it the
 * registry lists the apps, and each app answers for its own elements. Every call has a deadline: an
 * app that hangs makes a lookup miss, never the recorder or a replay wait.
 *
 * The keyboard focus is followed from the toolkits' focus events (registered with the registry);
 * before the first event, it is searched for in the active windows.
 *
 * The parts: atspi-connect.ts (the buses), atspi-calls.ts (one call and what it reads),
 * atspi-extents.ts (boxes on the screen), atspi-element.ts (an element as mime stores it),
 * atspi-tree.ts (walking the tree); here the lookups by point, focus and identity.
 */

import { type AccessibleElement, type ElementBox, isSecretElement } from '@mime-desktop/schema';
import type { Accessibility, FindOptions, OpenedAccessibility, WindowOrigin } from './accessibility.ts';
import {
  ACCESSIBLE,
  APP_ROOT,
  APPLICATION,
  AtspiCalls,
  type Bus,
  COMPONENT,
  NULL_PATH,
  type Ref,
  SCREEN,
} from './atspi-calls.ts';
import { type Buses, connectBuses } from './atspi-connect.ts';
import { AtspiElementReader } from './atspi-element.ts';
import { AtspiExtents } from './atspi-extents.ts';
import { FocusTrail } from './atspi-focus.ts';
import { lineAt } from './atspi-text-lines.ts';
import {
  type AppWindow,
  activeWindows,
  followPath,
  inInactiveWindow,
  PAGE_ROLES,
  ROOT,
  SHOWING,
  sameRef,
  searchTree,
  type ThroughStates,
  topWindows,
  VISIBLE,
  wakeTree,
} from './atspi-tree.ts';
import type { LogicalPoint } from './units.ts';

/** Roles of elements that only hold others. */
const FEATURELESS_ROLES = new Set(['filler', 'panel', 'viewport', 'scroll pane']);
/** Roles of controls whose text is a label inside them. */
const CONTROL_ROLES = new Set([
  'button',
  'push button',
  'toggle button',
  'check box',
  'radio button',
  'link',
]);
/** Most children of a container looked through for children without a box (a notebook's pages). */
const MAX_UNPLACED_CHILDREN = 32;
/** Most children whose boxes are read to tell which one is under a point. */
const MAX_CHILDREN_BY_BOXES = 400;
/**
 * How often, and after how long (ms), a lookup that ended at a page's document or at a container of
 * a page asks again (Chromium answers from its last hit while it asks its renderer: 40 ms idle, more
 * on a busy machine; a blank spot of a page costs the lookup these 300 ms).
 */
const PAGE_RETRIES = 6;
const PAGE_RETRY_MS = 50;
/** Roles of windows that stand over others. */
const DIALOG_ROLES = new Set(['dialog', 'alert', 'file chooser', 'color chooser', 'font chooser']);

/** Toolkits that build a page's tree only when it is first asked for (Firefox, Chromium and Electron). */
const BUILT_WHEN_ASKED = /gecko|chrom/i;
/** Most elements of a window asked for in one walk when waking its tree. */
const WAKE_NODES = 3000;
/** Longest wait for the browsers to build their pages' trees, ms. */
const WAKE_MS = 2500;

const unavailable = (reason: string): OpenedAccessibility => ({ ok: false, reason });

const contains = (box: ElementBox, p: LogicalPoint) =>
  box.width > 0 &&
  box.height > 0 &&
  p.x >= box.x &&
  p.y >= box.y &&
  p.x < box.x + box.width &&
  p.y < box.y + box.height;

class Atspi implements Accessibility {
  readonly #session: Bus;
  readonly #bus: Bus;
  readonly #calls: AtspiCalls;
  readonly #extents: AtspiExtents;
  readonly #elements: AtspiElementReader;
  readonly #focus: FocusTrail;

  constructor(session: Bus, bus: Bus, env: NodeJS.ProcessEnv, windowOrigin: WindowOrigin | null) {
    this.#session = session;
    this.#bus = bus;
    this.#calls = new AtspiCalls(bus);
    this.#extents = new AtspiExtents(this.#calls, env, windowOrigin);
    this.#elements = new AtspiElementReader(this.#calls, this.#extents);
    this.#focus = new FocusTrail(this.#calls, this.#elements);
    bus.on('message', (message) => this.#focus.onMessage(message));
  }

  /** Starts following the focus. */
  watchFocus(): Promise<void> {
    return this.#focus.watch();
  }

  /** Whether an app (bus name) is a browser's: a toolkit that builds its tree only when asked. */
  #buildsWhenAsked(name: string): Promise<boolean> {
    return this.#calls.prop([name, APP_ROOT], APPLICATION, 'ToolkitName').then(
      (t) => BUILT_WHEN_ASKED.test(String(t ?? '')),
      () => false,
    );
  }

  /** Whether `window` is a browser's that keeps no tree. */
  async #keepsNoBrowserTree(window: Ref): Promise<boolean> {
    return (await this.#buildsWhenAsked(window[0])) && (await this.#calls.keepsNoTree(window));
  }

  async wake(): Promise<void> {
    this.#extents.newLookup();
    const windows = await topWindows(this.#calls);
    const browsers = new Map<string, Promise<boolean>>();
    const buildsWhenAsked = (name: string) => {
      let known = browsers.get(name);
      if (!known) {
        known = this.#buildsWhenAsked(name);
        browsers.set(name, known);
      }
      return known;
    };
    const deadline = performance.now() + WAKE_MS;
    await Promise.all(
      windows.map(async ({ window }) => {
        // Each app's scale is told once, ahead of the first lookup (a quick click's must be quick).
        await this.#extents.scaleOf(window.ref[0]);
        if (!(await buildsWhenAsked(window.ref[0]))) return;
        if (!(await this.#calls.states(window.ref).catch((): string[] => [])).includes('showing')) return;
        // An app that keeps no tree of the window builds none however long it is asked.
        if (await this.#calls.keepsNoTree(window.ref)) return;
        await wakeTree(this.#calls, window.ref, WAKE_NODES, deadline);
      }),
    );
    this.#focus.keep();
    if (this.#focus.latest === undefined) {
      const found = await this.#searchFocus();
      if (found && this.#focus.latest === undefined) this.#focus.note(found);
    }
  }

  async elementAt(point: LogicalPoint, options: { text?: boolean } = {}): Promise<AccessibleElement | null> {
    const at = await this.#refAt(point);
    return at ? this.#elements.describe(at.ref, options.text === true, at.line) : null;
  }

  async lineAt(point: LogicalPoint): Promise<string | null> {
    const at = await this.#refAt(point);
    if (!at) return null;
    const [node, states] = await Promise.all([
      this.#calls.node(at.ref).catch(() => null),
      this.#calls.states(at.ref).catch(() => null),
    ]);
    if (!node || !states || isSecretElement({ role: node.role, states })) return null;
    return lineAt(this.#calls, at.ref, at.reported, at.coords);
  }

  /**
   * The element under a screen point, with the point in its app's own pixels and their coordinate
   * type, and the line of elements the lookup went down from its window to it.
   */
  async #refAt(
    point: LogicalPoint,
  ): Promise<{ ref: Ref; reported: LogicalPoint; coords: number; line: Ref[] } | null> {
    this.#extents.newLookup();
    const windows = await topWindows(this.#calls);
    const placed = await Promise.all(
      windows.map(async (w) => {
        const [box, states] = await Promise.all([
          this.#extents.of(w.window.ref, 'window'),
          this.#calls.states(w.window.ref),
        ]);
        return box && contains(box, point) && states.includes('showing') ? { ...w, box, states } : null;
      }),
    );
    // AT-SPI knows no stacking order: a dialog first (it stands over its parent), then the active
    // window, then the smallest.
    const rank = (w: AppWindow & { states: string[] }) =>
      (DIALOG_ROLES.has(w.window.role) ? 2 : 0) + (w.states.includes('active') ? 1 : 0);
    const [top] = placed
      .flatMap((w) => (w ? [w] : []))
      .sort((a, b) => rank(b) - rank(a) || a.box.width * a.box.height - b.box.width * b.box.height);
    if (!top) return null;
    let current: Ref = top.window.ref;
    const [scales, origin, coords] = await Promise.all([
      this.#extents.scaleOf(current[0]),
      this.#extents.originOfElement(current).catch(() => null),
      this.#extents.coordsOf(current[0]),
    ]);
    if (!origin) return null;
    const reported = {
      x: Math.round((point.x - origin.x) / scales.content),
      y: Math.round((point.y - origin.y) / scales.content),
    };
    const line = [current, ...(await this.#descend(current, reported, coords))];
    current = line.at(-1) ?? current;
    // A browser window whose app keeps no tree under it names nothing there, now or when asked again.
    // Only a browser's: a GTK dialog a press just closed names the same null children, and the
    // recorder then takes the element the pointer rested on (CI 8d: the OK button lost under load).
    if (sameRef(current, top.window.ref) && (await this.#keepsNoBrowserTree(current))) return null;
    // A browser may answer with its page's document, or a container of the page, from what it last
    // knew (Chromium keeps the last hit's answer while it asks its page again; right after a search
    // the demo's <main> for its search field): asked again a moment later, it names the element.
    let inPage: boolean | undefined;
    for (let retry = 0; retry < PAGE_RETRIES; retry += 1) {
      const role = (await this.#calls.node(current).catch(() => null))?.role ?? '';
      if (!PAGE_ROLES.has(role)) {
        // A leaf (an entry, a text) is the answer; a container is asked again where it is a page's
        // (only a browser's app is walked up: a GTK or Qt container pays one call, not its ancestors).
        const children = await this.#calls.prop(current, ACCESSIBLE, 'ChildCount').catch(() => 0);
        if (typeof children !== 'number' || children === 0) break;
        inPage ??= (await this.#buildsWhenAsked(current[0])) && (await this.#inPage(current));
        if (!inPage) break;
      }
      await new Promise((resolve) => setTimeout(resolve, PAGE_RETRY_MS));
      line.push(...(await this.#descend(current, reported, coords)));
      current = line.at(-1) ?? current;
    }
    const parent = await this.#calls.parent(current).catch(() => null);
    if (parent && (await this.#coversParent(current, parent))) {
      current = parent;
      line.pop();
    }
    return { ref: current, reported, coords, line };
  }

  /** Whether an element is in a browser's page: one of its ancestors is a page's document. */
  async #inPage(element: Ref): Promise<boolean> {
    let ref: Ref | null = element;
    for (let depth = 0; ref && depth < 32; depth += 1) {
      ref = await this.#calls.parent(ref).catch(() => null);
      if (ref && PAGE_ROLES.has((await this.#calls.node(ref).catch(() => null))?.role ?? '')) return true;
    }
    return false;
  }

  /** The elements under the reported point from `from` down, each the child of the one before. */
  async #descend(from: Ref, reported: LogicalPoint, coords: number): Promise<Ref[]> {
    const line: Ref[] = [];
    let current = from;
    for (let depth = 0; depth < 64; depth += 1) {
      const [child] =
        coords === SCREEN
          ? await this.#calls
              .call(current, COMPONENT, 'GetAccessibleAtPoint', 'iiu', [reported.x, reported.y, coords])
              .catch(() => [null])
          : [await this.#childByBoxes(current, reported, coords)];
      const hit = child as readonly [string, string] | null;
      const hops: Ref[] | null =
        !hit || hit[1] === NULL_PATH
          ? coords === SCREEN
            ? await this.#throughUnplaced(current, reported)
            : null
          : [[hit[0], hit[1]]];
      const next = hops?.at(-1);
      if (!hops || !next || sameRef(next, current)) break;
      line.push(...hops);
      current = next;
    }
    return line;
  }

  /**
   * Where a container answers no child at a point (GTK 3's notebook answers only for its tabs'
   * labels): the shown child of a child without a box of its own (its page tab) whose box holds the
   * point, after that child.
   */
  async #throughUnplaced(ref: Ref, point: LogicalPoint): Promise<Ref[] | null> {
    const children = await this.#calls.children(ref).catch((): Ref[] => []);
    if (children.length > MAX_UNPLACED_CHILDREN) return null;
    for (const child of children) {
      const box = await this.#calls.reportedExtents(child, SCREEN);
      if (box && box.width > 0 && box.height > 0) continue;
      const inside = await this.#childByBoxes(child, point, SCREEN);
      // Only the page shown: another tab's page may report the same box.
      if (inside && (await this.#calls.states(inside).catch((): string[] => [])).includes('showing')) {
        return [child, inside];
      }
    }
    return null;
  }

  /** Which subtrees of the app on bus `name` a search looks through: GTK 4.8 says no element is `showing`. */
  async #through(name: string): Promise<ThroughStates> {
    return (await this.#extents.windowRelative(name)) ? VISIBLE : SHOWING;
  }

  /**
   * The child of `ref` whose reported box holds the reported point (the smallest), for toolkits that
   * answer no point lookup in window coordinates (GTK 4.8 answers none).
   */
  async #childByBoxes(ref: Ref, point: LogicalPoint, coords: number): Promise<Ref | null> {
    const children = await this.#calls.children(ref).catch((): Ref[] => []);
    if (children.length > MAX_CHILDREN_BY_BOXES) return null;
    const boxes = await Promise.all(
      children.map(async (child) => ({ child, box: await this.#calls.reportedExtents(child, coords) })),
    );
    const [smallest] = boxes
      .flatMap(({ child, box }) =>
        box && contains(box, point) ? [{ child, area: box.width * box.height }] : [],
      )
      .sort((a, b) => a.area - b.area);
    return smallest?.child ?? null;
  }

  /**
   * Whether `ref` is a nameless container over all of its parent, as Qt's viewport (a `filler`) lies
   * over the editor it scrolls, or a control's own label: the parent is then what is under the point.
   */
  async #coversParent(ref: Ref, parent: Ref): Promise<boolean> {
    const [node, box, parentBox] = await Promise.all([
      this.#calls.node(ref),
      this.#extents.of(ref),
      this.#extents.of(parent),
    ]).catch(() => [null, null, null] as const);
    if (!node || !box || !parentBox) return false;
    // A button's own text (GTK 4 gives it as a label inside): the button is what is pressed.
    if (
      node.role === 'label' &&
      CONTROL_ROLES.has((await this.#calls.node(parent).catch(() => null))?.role ?? '')
    ) {
      return true;
    }
    if (node.name !== '' || !FEATURELESS_ROLES.has(node.role)) return false;
    return (['x', 'y', 'width', 'height'] as const).every((k) => box[k] === parentBox[k]);
  }

  async focused(at?: number): Promise<AccessibleElement | null> {
    // Taken before anything is awaited: the focus as the events told it when asked.
    const change = this.#focus.at(at ?? Number.POSITIVE_INFINITY);
    const tracked = change?.ref;
    this.#extents.newLookup();
    if (at !== undefined && tracked) {
      // As it is now, else (its window closed since) as it was when it gained the focus.
      const now = await this.#elements.describe(tracked, true).catch(() => null);
      return now ?? (await change.kept) ?? null;
    }
    // The focus moved since then, from an element no event named: which one had it is not known.
    if (at !== undefined && (this.#focus.latest?.time ?? 0) > at) return null;
    if (
      tracked &&
      (await this.#calls.states(tracked).catch((): string[] => [])).includes('focused') &&
      !(await inInactiveWindow(this.#calls, tracked))
    ) {
      return this.#elements.describe(tracked, true);
    }
    const found = await this.#searchFocus();
    return found ? this.#elements.describe(found, true) : null;
  }

  /** The element whose state says it has the focus, searched for in the windows. */
  async #searchFocus(): Promise<Ref | null> {
    const windows = await topWindows(this.#calls);
    const active = await activeWindows(this.#calls, windows);
    // Where a toolkit says which window is active, only that one gets the keys.
    const searched = active.length > 0 ? active.map((ref) => ({ window: { ref } })) : windows;
    for (const { window } of searched) {
      const found = await searchTree(
        this.#calls,
        window.ref,
        800,
        async (n) => (await this.#calls.states(n.ref)).includes('focused'),
        await this.#through(window.ref[0]),
      );
      if (found[0]) return found[0].ref;
    }
    return null;
  }

  async find(identity: AccessibleElement, options: FindOptions = {}): Promise<AccessibleElement[]> {
    this.#extents.newLookup();
    const windows = (await topWindows(this.#calls))
      .filter((w) => w.app === identity.app)
      .sort(
        (a, b) =>
          Number(b.window.name === identity.window.name) - Number(a.window.name === identity.window.name),
      );
    const same = (e: AccessibleElement | null): e is AccessibleElement =>
      e !== null &&
      e.role === identity.role &&
      e.name === identity.name &&
      (identity.name !== '' || identity.label === null || e.label === identity.label);
    for (const { window } of windows) {
      const along = (await followPath(this.#calls, window.ref, identity.path).catch(() => [])).map((ref) =>
        this.#elements.describe(ref, true),
      );
      const onPath = (await Promise.all(along)).filter(same);
      if (onPath.length > 0) return onPath;
    }
    for (const { window } of windows) {
      const nodes = await searchTree(
        this.#calls,
        window.ref,
        options.maxNodes ?? 2000,
        async (n) => n.role === identity.role && n.name === identity.name,
        await this.#through(window.ref[0]),
      );
      const found = (await Promise.all(nodes.map((n) => this.#elements.describe(n.ref, true)))).filter(same);
      if (found.length > 0) return found;
    }
    return [];
  }

  async apps(): Promise<string[]> {
    const apps = await this.#calls.children(ROOT);
    const names = await Promise.all(apps.map((a) => this.#calls.prop(a, ACCESSIBLE, 'Name').catch(() => '')));
    return names.map((n) => String(n ?? '')).filter(Boolean);
  }

  async close(): Promise<void> {
    this.#bus.disconnect();
    this.#session.disconnect();
  }
}

/**
 * Connects to the accessibility bus of the session in `env` and turns accessibility on for apps
 * that start later (`org.a11y.Status.IsEnabled`). Returns why not when there is no session bus, no
 * accessibility bus (at-spi2-core not installed) or it does not answer.
 */
export async function openAtspi(
  env: NodeJS.ProcessEnv = process.env,
  windowOrigin: WindowOrigin | null = null,
): Promise<OpenedAccessibility> {
  const address = env.DBUS_SESSION_BUS_ADDRESS;
  if (!address) return unavailable('no D-Bus session bus (DBUS_SESSION_BUS_ADDRESS is not set)');
  let buses: Buses | undefined;
  try {
    buses = await connectBuses(address);
    const atspi = new Atspi(buses.session, buses.bus, env, windowOrigin);
    await atspi.watchFocus();
    return { ok: true, accessibility: atspi };
  } catch (error) {
    buses?.bus.disconnect();
    buses?.session.disconnect();
    const why = error instanceof Error ? error.message : String(error);
    return {
      ok: false,
      reason: `the accessibility bus does not answer (${why}): install at-spi2-core (./setup.sh does)`,
      retry: true,
    };
  }
}
