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

import type { AccessibleElement, ElementBox } from '@mime-desktop/schema';
import type { Accessibility, FindOptions, OpenedAccessibility, WindowOrigin } from './accessibility.ts';
import {
  ACCESSIBLE,
  AtspiCalls,
  type Bus,
  COMPONENT,
  DBUS,
  NULL_PATH,
  REGISTRY,
  type Ref,
  SCREEN,
} from './atspi-calls.ts';
import { type Buses, connectBuses } from './atspi-connect.ts';
import { AtspiElementReader } from './atspi-element.ts';
import { AtspiExtents } from './atspi-extents.ts';
import { type AppWindow, followPath, ROOT, searchTree, topWindows } from './atspi-tree.ts';
import type { LogicalPoint } from './units.ts';

/** Roles of elements that only hold others. */
const FEATURELESS_ROLES = new Set(['filler', 'panel', 'viewport', 'scroll pane']);
/** Roles of windows that stand over others. */
const DIALOG_ROLES = new Set(['dialog', 'alert', 'file chooser', 'color chooser', 'font chooser']);

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
  /** The element that last gained the keyboard focus, from the toolkits' events. */
  #focus: Ref | null = null;

  constructor(session: Bus, bus: Bus, env: NodeJS.ProcessEnv, windowOrigin: WindowOrigin | null) {
    this.#session = session;
    this.#bus = bus;
    this.#calls = new AtspiCalls(bus);
    this.#extents = new AtspiExtents(this.#calls, env, windowOrigin);
    this.#elements = new AtspiElementReader(this.#calls, this.#extents);
    bus.on('message', (message) => {
      if (message.member !== 'StateChanged' || message.body[0] !== 'focused') return;
      if (message.body[1] === 1) this.#focus = [message.sender, message.path];
      else if (this.#focus?.[0] === message.sender && this.#focus[1] === message.path) this.#focus = null;
    });
  }

  /** Starts following the focus: the registry tells the toolkits someone listens. */
  async watchFocus(): Promise<void> {
    await this.#calls.call(DBUS, DBUS[0], 'AddMatch', 's', [
      "type='signal',interface='org.a11y.atspi.Event.Object',member='StateChanged'",
    ]);
    await this.#calls.call([REGISTRY, '/org/a11y/atspi/registry'], REGISTRY, 'RegisterEvent', 's', [
      'object:state-changed:focused',
    ]);
  }

  async elementAt(point: LogicalPoint, options: { text?: boolean } = {}): Promise<AccessibleElement | null> {
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
    const scale = (await this.#extents.scaleOf(current[0])).content;
    const origin = await this.#extents.originOf(current[0]).catch(() => null);
    if (!origin) return null;
    for (let depth = 0; depth < 64; depth += 1) {
      const [child] = await this.#calls
        .call(current, COMPONENT, 'GetAccessibleAtPoint', 'iiu', [
          Math.round((point.x - origin.x) / scale),
          Math.round((point.y - origin.y) / scale),
          SCREEN,
        ])
        .catch(() => [null]);
      const next = child as [string, string] | null;
      if (!next || next[1] === NULL_PATH || (next[0] === current[0] && next[1] === current[1])) break;
      current = [next[0], next[1]];
    }
    const parent = await this.#calls.parent(current).catch(() => null);
    if (parent && (await this.#coversParent(current, parent))) current = parent;
    return this.#elements.describe(current, options.text === true);
  }

  /**
   * Whether `ref` is a nameless container over all of its parent, as Qt's viewport (a `filler`) lies
   * over the editor it scrolls: the parent is then what is under the point.
   */
  async #coversParent(ref: Ref, parent: Ref): Promise<boolean> {
    const [node, box, parentBox] = await Promise.all([
      this.#calls.node(ref),
      this.#extents.of(ref),
      this.#extents.of(parent),
    ]).catch(() => [null, null, null] as const);
    if (!node || !box || !parentBox) return false;
    if (node.name !== '' || !FEATURELESS_ROLES.has(node.role)) return false;
    return (['x', 'y', 'width', 'height'] as const).every((k) => box[k] === parentBox[k]);
  }

  async focused(): Promise<AccessibleElement | null> {
    this.#extents.newLookup();
    const tracked = this.#focus;
    if (tracked && (await this.#calls.states(tracked).catch((): string[] => [])).includes('focused')) {
      return this.#elements.describe(tracked, true);
    }
    for (const { window } of await topWindows(this.#calls)) {
      const found = await searchTree(this.#calls, window.ref, 800, async (n) =>
        (await this.#calls.states(n.ref)).includes('focused'),
      );
      if (found[0]) return this.#elements.describe(found[0].ref, true);
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
    return unavailable(
      `the accessibility bus does not answer (${why}): install at-spi2-core (./setup.sh does)`,
    );
  }
}
