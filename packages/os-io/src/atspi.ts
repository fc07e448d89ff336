/**
 * The {@link Accessibility} adapter for Linux: AT-SPI over D-Bus (@particle/dbus-next, a maintained
 * fork of dbus-next). The session bus names the accessibility bus (`org.a11y.Bus`); on it the
 * registry lists the apps, and each app answers for its own elements. Every call has a deadline: an
 * app that hangs makes a lookup miss, never the recorder or a replay wait.
 *
 * The keyboard focus is followed from the toolkits' focus events (registered with the registry);
 * before the first event, it is searched for in the active windows.
 */

import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { type AccessibleElement, type ElementBox, isSecretElement } from '@mime-desktop/schema';
import dbus from '@particle/dbus-next';
import type { Accessibility, FindOptions, OpenedAccessibility } from './accessibility.ts';
import type { LogicalPoint } from './units.ts';
import { readWindowTree } from './x-window-tree.ts';

type Ref = readonly [bus: string, path: string];
type Bus = ReturnType<typeof dbus.sessionBus>;

const ACCESSIBLE = 'org.a11y.atspi.Accessible';
const COMPONENT = 'org.a11y.atspi.Component';
const TEXT = 'org.a11y.atspi.Text';
const APPLICATION = 'org.a11y.atspi.Application';
const PROPERTIES = 'org.freedesktop.DBus.Properties';
const REGISTRY = 'org.a11y.atspi.Registry';
const NULL_PATH = '/org/a11y/atspi/null';
/** The path of an app's own root element (its children are its windows). */
const APP_ROOT = '/org/a11y/atspi/accessible/root';
const ROOT: Ref = [REGISTRY, APP_ROOT];
/** AT-SPI coordinate type: screen. */
const SCREEN = 0;
/** AT-SPI relation type: labelled by. */
const LABELLED_BY = 2;
/** One call's deadline, ms: a busy app answers in a few ms. */
const CALL_MS = 1000;
/** The longest text read from an element. */
const MAX_TEXT = 65_536;
/** Roles of elements that only hold others. */
const FEATURELESS_ROLES = new Set(['filler', 'panel', 'viewport', 'scroll pane']);

/** AT-SPI's state names, by bit. */
const STATES = [
  'invalid', 'active', 'armed', 'busy', 'checked', 'collapsed', 'defunct', 'editable', 'enabled',
  'expandable', 'expanded', 'focusable', 'focused', 'has-tooltip', 'horizontal', 'iconified', 'modal',
  'multi-line', 'multiselectable', 'opaque', 'pressed', 'resizable', 'selectable', 'selected',
  'sensitive', 'showing', 'single-line', 'stale', 'transient', 'vertical', 'visible',
  'manages-descendants', 'indeterminate', 'required', 'truncated', 'animated', 'invalid-entry',
  'supports-autocompletion', 'selectable-text', 'is-default', 'visited', 'checkable', 'has-popup',
  'read-only',
] as const; // biome-ignore format: a table

/** Roles of windows that stand over others. */
const DIALOG_ROLES = new Set(['dialog', 'alert', 'file chooser', 'color chooser', 'font chooser']);
/** Roles of fields that are labelled by a label beside them rather than named. */
const FIELD_ROLES = new Set(['text', 'entry', 'password text', 'spin button', 'combo box']);

const unavailable = (reason: string): OpenedAccessibility => ({ ok: false, reason });

const stateNames = (bits: readonly number[]): string[] =>
  STATES.filter((_, i) => ((bits[i >> 5] ?? 0) >>> (i & 31)) & 1);

const contains = (box: ElementBox, p: LogicalPoint) =>
  box.width > 0 &&
  box.height > 0 &&
  p.x >= box.x &&
  p.y >= box.y &&
  p.x < box.x + box.width &&
  p.y < box.y + box.height;

/** The label left of a field on its row, else the nearest above it; null when none stands there. */
function nearestLabel(
  field: ElementBox,
  labels: readonly { name: string; box: ElementBox }[],
): string | null {
  let best: { name: string; distance: number } | null = null;
  const middle = field.y + field.height / 2;
  for (const { name, box } of labels) {
    const sameRow = box.y <= middle && middle <= box.y + box.height && box.x + box.width <= field.x + 4;
    const above =
      box.y + box.height <= field.y + 4 && box.x < field.x + field.width && field.x < box.x + box.width;
    const distance = sameRow
      ? field.x - (box.x + box.width)
      : above
        ? field.y - (box.y + box.height) + 1000
        : Number.POSITIVE_INFINITY;
    if (distance < (best?.distance ?? Number.POSITIVE_INFINITY)) best = { name, distance };
  }
  return best?.name ?? null;
}

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
interface AppScale {
  window: number;
  content: number;
}

/**
 * Where the window of a process is on the screen, for toolkits that report extents relative to their
 * window (every toolkit on Wayland); null when the compositor does not tell.
 */
export type WindowOrigin = (pid: number) => Promise<LogicalPoint | null>;

interface Node {
  ref: Ref;
  role: string;
  name: string;
}

class Atspi implements Accessibility {
  readonly #session: Bus;
  readonly #bus: Bus;
  readonly #env: NodeJS.ProcessEnv;
  /** The element that last gained the keyboard focus, from the toolkits' events. */
  #focus: Ref | null = null;
  /** Each app's scale (by its bus name; see {@link reportedScale}), and until when an unknown one holds. */
  readonly #scales = new Map<string, { scale: Promise<AppScale>; until: number }>();
  readonly #windowOrigin: WindowOrigin | null;
  /**
   * Each app's window origin (by its bus name), asked once a lookup: the lookups below clear it when
   * they start, since a window may have moved since the last one.
   */
  readonly #origins = new Map<string, Promise<LogicalPoint>>();

  constructor(session: Bus, bus: Bus, env: NodeJS.ProcessEnv, windowOrigin: WindowOrigin | null) {
    this.#session = session;
    this.#bus = bus;
    this.#env = env;
    this.#windowOrigin = windowOrigin;
    bus.on('message', (message) => {
      if (message.member !== 'StateChanged' || message.body[0] !== 'focused') return;
      if (message.body[1] === 1) this.#focus = [message.sender, message.path];
      else if (this.#focus?.[0] === message.sender && this.#focus[1] === message.path) this.#focus = null;
    });
  }

  /** Starts following the focus: the registry tells the toolkits someone listens. */
  async watchFocus(): Promise<void> {
    await this.#call(
      ['org.freedesktop.DBus', '/org/freedesktop/DBus'],
      'org.freedesktop.DBus',
      'AddMatch',
      's',
      ["type='signal',interface='org.a11y.atspi.Event.Object',member='StateChanged'"],
    );
    await this.#call([REGISTRY, '/org/a11y/atspi/registry'], REGISTRY, 'RegisterEvent', 's', [
      'object:state-changed:focused',
    ]);
  }

  async #call(
    ref: Ref,
    iface: string,
    member: string,
    signature = '',
    body: unknown[] = [],
  ): Promise<unknown[]> {
    const message = new dbus.Message({
      destination: ref[0],
      path: ref[1],
      interface: iface,
      member,
      signature,
      body,
    });
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${member} took over ${CALL_MS} ms`)), CALL_MS);
    });
    try {
      const reply = await Promise.race([this.#bus.call(message), deadline]);
      return reply?.body ?? [];
    } finally {
      clearTimeout(timer);
    }
  }

  async #prop(ref: Ref, iface: string, name: string): Promise<unknown> {
    const [variant] = await this.#call(ref, PROPERTIES, 'Get', 'ss', [iface, name]);
    return (variant as { value?: unknown } | undefined)?.value;
  }

  async #children(ref: Ref): Promise<Ref[]> {
    const [children] = await this.#call(ref, ACCESSIBLE, 'GetChildren');
    return ((children ?? []) as [string, string][]).filter(([, path]) => path !== NULL_PATH);
  }

  async #node(ref: Ref): Promise<Node> {
    const [[role], name] = await Promise.all([
      this.#call(ref, ACCESSIBLE, 'GetRoleName'),
      this.#prop(ref, ACCESSIBLE, 'Name'),
    ]);
    return { ref, role: String(role ?? ''), name: String(name ?? '') };
  }

  async #states(ref: Ref): Promise<string[]> {
    const [bits] = await this.#call(ref, ACCESSIBLE, 'GetState');
    return stateNames((bits ?? []) as number[]);
  }

  /** The element's box as its app reports it (in the app's own pixels). */
  async #reportedExtents(ref: Ref): Promise<ElementBox | null> {
    const [box] = await this.#call(ref, COMPONENT, 'GetExtents', 'u', [SCREEN]).catch(() => [null]);
    if (!Array.isArray(box)) return null;
    const [x, y, width, height] = box as number[];
    return { x: x ?? 0, y: y ?? 0, width: Math.max(0, width ?? 0), height: Math.max(0, height ?? 0) };
  }

  /** The element's box on the screen (`window`: the box of one of the app's windows). */
  async #extents(ref: Ref, kind: keyof AppScale = 'content'): Promise<ElementBox | null> {
    const [box, scales, origin] = await Promise.all([
      this.#reportedExtents(ref),
      this.#scaleOf(ref[0]),
      this.#originOf(ref[0]).catch(() => null),
    ]);
    const scale = scales[kind];
    if (!box || !origin) return null;
    const at = (v: number) => Math.round(v * scale);
    return { x: origin.x + at(box.x), y: origin.y + at(box.y), width: at(box.width), height: at(box.height) };
  }

  /**
   * Where the app on bus `name` draws its extents from: (0, 0) where they are the screen's (X11), the
   * window's place where they are the window's (Wayland: the compositor tells, by the app's process).
   * Rejects for an app whose window the compositor does not name: its elements have no place then.
   */
  #originOf(name: string): Promise<LogicalPoint> {
    const windowOrigin = this.#windowOrigin;
    if (!windowOrigin) return Promise.resolve({ x: 0, y: 0 });
    const known = this.#origins.get(name);
    if (known) return known;
    const origin = (async () => {
      const [pid] = await this.#call(
        ['org.freedesktop.DBus', '/org/freedesktop/DBus'],
        'org.freedesktop.DBus',
        'GetConnectionUnixProcessID',
        's',
        [name],
      );
      const point = typeof pid === 'number' ? await windowOrigin(pid) : null;
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
  #scaleOf(name: string): Promise<AppScale> {
    const known = this.#scales.get(name);
    if (known && known.until > performance.now()) return known.scale;
    const entry = { scale: Promise.resolve({ window: 1, content: 1 }), until: Number.POSITIVE_INFINITY };
    entry.scale = (async () => {
      const app: Ref = [name, APP_ROOT];
      const [windows, toolkit] = await Promise.all([
        this.#children(app).catch((): Ref[] => []),
        this.#prop(app, APPLICATION, 'ToolkitName').catch(() => ''),
      ]);
      const [reported, screen] = await Promise.all([
        Promise.all(windows.map((w) => this.#reportedExtents(w))),
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

  /**
   * The element's text, its first {@link MAX_TEXT} characters. The end asked for is within the text:
   * Qt answers an end past it with nothing at all (its cursor refuses the position).
   */
  async #text(ref: Ref): Promise<string | null> {
    const count = await this.#prop(ref, TEXT, 'CharacterCount').catch(() => null);
    const end = typeof count === 'number' && count >= 0 ? Math.min(count, MAX_TEXT) : MAX_TEXT;
    const [text] = await this.#call(ref, TEXT, 'GetText', 'ii', [0, end]).catch(() => [null]);
    return typeof text === 'string' ? text : null;
  }

  async #parent(ref: Ref): Promise<Ref | null> {
    const parent = (await this.#prop(ref, ACCESSIBLE, 'Parent')) as [string, string] | undefined;
    return parent && parent[1] !== NULL_PATH ? [parent[0], parent[1]] : null;
  }

  /** The top-level windows of every app, with their app's name. */
  async #windows(): Promise<{ app: string; window: Node }[]> {
    const apps = await this.#children(ROOT);
    const perApp = await Promise.all(
      apps.map(async (app) => {
        const [name, windows] = await Promise.all([
          this.#prop(app, ACCESSIBLE, 'Name').catch(() => ''),
          this.#children(app).catch(() => [] as Ref[]),
        ]);
        const nodes = await Promise.all(windows.map((w) => this.#node(w).catch(() => null)));
        return nodes.flatMap((window) => (window ? [{ app: String(name ?? ''), window }] : []));
      }),
    );
    return perApp.flat();
  }

  /** The label a nameless field is known by: its labelled-by, else the label left of it or above it. */
  async #label(ref: Ref, role: string, extents: ElementBox | null): Promise<string | null> {
    const [relations] = await this.#call(ref, ACCESSIBLE, 'GetRelationSet').catch(() => [[]]);
    for (const [type, targets] of (relations ?? []) as [number, [string, string][]][]) {
      const target = targets[0];
      if (type !== LABELLED_BY || !target) continue;
      const name = String((await this.#prop(target, ACCESSIBLE, 'Name').catch(() => '')) ?? '');
      if (name) return name;
    }
    const parent = FIELD_ROLES.has(role) && extents ? await this.#parent(ref) : null;
    if (!parent || !extents) return null;
    const siblings = await Promise.all(
      (await this.#children(parent)).map(async (s) => {
        const node = await this.#node(s);
        return node.role === 'label' && node.name ? { name: node.name, box: await this.#extents(s) } : null;
      }),
    );
    return nearestLabel(
      extents,
      siblings.flatMap((l) => (l?.box ? [{ name: l.name, box: l.box }] : [])),
    );
  }

  /** The element as mime stores it: identity, path from its window, states, extents (and its text). */
  async #describe(ref: Ref, withText: boolean): Promise<AccessibleElement | null> {
    const [node, states, extents] = await Promise.all([
      this.#node(ref),
      this.#states(ref),
      this.#extents(ref),
    ]);
    const path: AccessibleElement['path'] = [];
    let current: Node = node;
    for (let depth = 0; depth < 64; depth += 1) {
      const parentRef = await this.#parent(current.ref);
      if (!parentRef) return null;
      const [parent, [index]] = await Promise.all([
        this.#node(parentRef),
        this.#call(current.ref, ACCESSIBLE, 'GetIndexInParent'),
      ]);
      if (parent.role === 'application') {
        const label = node.name ? null : await this.#label(ref, node.role, extents);
        const element: AccessibleElement = {
          role: node.role,
          name: node.name,
          label,
          app: parent.name,
          window: { role: current.role, name: current.name },
          path: path.reverse(),
          states,
          extents,
        };
        if (withText && !isSecretElement(element)) element.text = await this.#text(ref);
        return element;
      }
      path.push({ role: current.role, name: current.name, index: Math.max(0, Number(index ?? 0)) });
      current = parent;
    }
    return null;
  }

  async elementAt(point: LogicalPoint): Promise<AccessibleElement | null> {
    this.#origins.clear();
    const windows = await this.#windows();
    const placed = await Promise.all(
      windows.map(async (w) => {
        const [box, states] = await Promise.all([
          this.#extents(w.window.ref, 'window'),
          this.#states(w.window.ref),
        ]);
        return box && contains(box, point) && states.includes('showing') ? { ...w, box, states } : null;
      }),
    );
    // AT-SPI knows no stacking order: a dialog first (it stands over its parent), then the active
    // window, then the smallest.
    const rank = (w: { window: Node; states: string[] }) =>
      (DIALOG_ROLES.has(w.window.role) ? 2 : 0) + (w.states.includes('active') ? 1 : 0);
    const [top] = placed
      .flatMap((w) => (w ? [w] : []))
      .sort((a, b) => rank(b) - rank(a) || a.box.width * a.box.height - b.box.width * b.box.height);
    if (!top) return null;
    let current: Ref = top.window.ref;
    const scale = (await this.#scaleOf(current[0])).content;
    const origin = await this.#originOf(current[0]).catch(() => null);
    if (!origin) return null;
    for (let depth = 0; depth < 64; depth += 1) {
      const [child] = await this.#call(current, COMPONENT, 'GetAccessibleAtPoint', 'iiu', [
        Math.round((point.x - origin.x) / scale),
        Math.round((point.y - origin.y) / scale),
        SCREEN,
      ]).catch(() => [null]);
      const next = child as [string, string] | null;
      if (!next || next[1] === NULL_PATH || (next[0] === current[0] && next[1] === current[1])) break;
      current = [next[0], next[1]];
    }
    const parent = await this.#parent(current).catch(() => null);
    if (parent && (await this.#coversParent(current, parent))) current = parent;
    return this.#describe(current, false);
  }

  /**
   * Whether `ref` is a nameless container over all of its parent, as Qt's viewport (a `filler`) lies
   * over the editor it scrolls: the parent is then what is under the point.
   */
  async #coversParent(ref: Ref, parent: Ref): Promise<boolean> {
    const [node, box, parentBox] = await Promise.all([
      this.#node(ref),
      this.#extents(ref),
      this.#extents(parent),
    ]).catch(() => [null, null, null] as const);
    if (!node || !box || !parentBox) return false;
    if (node.name !== '' || !FEATURELESS_ROLES.has(node.role)) return false;
    return (['x', 'y', 'width', 'height'] as const).every((k) => box[k] === parentBox[k]);
  }

  async focused(): Promise<AccessibleElement | null> {
    this.#origins.clear();
    const tracked = this.#focus;
    if (tracked && (await this.#states(tracked).catch((): string[] => [])).includes('focused')) {
      return this.#describe(tracked, true);
    }
    for (const { window } of await this.#windows()) {
      const found = await this.#search(window.ref, 800, async (n) =>
        (await this.#states(n.ref)).includes('focused'),
      );
      if (found[0]) return this.#describe(found[0].ref, true);
    }
    return null;
  }

  /** Breadth-first under `root` (excluded), at most `max` nodes, only through showing subtrees. */
  async #search(root: Ref, max: number, match: (node: Node) => Promise<boolean>): Promise<Node[]> {
    const found: Node[] = [];
    let level = await this.#children(root).catch(() => [] as Ref[]);
    let seen = 0;
    while (level.length > 0 && seen < max) {
      const batch = level.slice(0, max - seen);
      seen += batch.length;
      const nodes = await Promise.all(
        batch.map(async (ref) => {
          const [node, states] = await Promise.all([this.#node(ref), this.#states(ref)]);
          return { node, showing: states.includes('showing'), matched: await match(node) };
        }),
      ).catch(() => []);
      found.push(...nodes.filter((n) => n.matched).map((n) => n.node));
      const next = await Promise.all(
        nodes.filter((n) => n.showing).map((n) => this.#children(n.node.ref).catch(() => [] as Ref[])),
      );
      level = next.flat();
    }
    return found;
  }

  /** Follows the recorded path from a window: at each level the children with the recorded role and name. */
  async #follow(window: Ref, path: AccessibleElement['path']): Promise<Ref[]> {
    let level: Ref[] = [window];
    for (const step of path) {
      const next: Ref[] = [];
      for (const ref of level) {
        const children = await this.#children(ref);
        const nodes = await Promise.all(children.map((c) => this.#node(c)));
        const same = nodes.filter((n) => n.role === step.role && n.name === step.name);
        const atIndex = children[step.index];
        const exact = same.find((n) => atIndex && n.ref[1] === atIndex[1] && n.ref[0] === atIndex[0]);
        next.push(...(exact ? [exact.ref] : same.map((n) => n.ref)));
      }
      if (next.length === 0 || next.length > 16) return [];
      level = next;
    }
    return level;
  }

  async find(identity: AccessibleElement, options: FindOptions = {}): Promise<AccessibleElement[]> {
    this.#origins.clear();
    const windows = (await this.#windows())
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
      const along = (await this.#follow(window.ref, identity.path).catch(() => [])).map((ref) =>
        this.#describe(ref, true),
      );
      const onPath = (await Promise.all(along)).filter(same);
      if (onPath.length > 0) return onPath;
    }
    for (const { window } of windows) {
      const nodes = await this.#search(
        window.ref,
        options.maxNodes ?? 2000,
        async (n) => n.role === identity.role && n.name === identity.name,
      );
      const found = (await Promise.all(nodes.map((n) => this.#describe(n.ref, true)))).filter(same);
      if (found.length > 0) return found;
    }
    return [];
  }

  async apps(): Promise<string[]> {
    const apps = await this.#children(ROOT);
    const names = await Promise.all(apps.map((a) => this.#prop(a, ACCESSIBLE, 'Name').catch(() => '')));
    return names.map((n) => String(n ?? '')).filter(Boolean);
  }

  async close(): Promise<void> {
    this.#bus.disconnect();
    this.#session.disconnect();
  }
}

/** The session bus and the accessibility bus, both open. */
interface Buses {
  session: Bus;
  bus: Bus;
  /** The accessibility bus's address. */
  a11yAddress: string;
}

/**
 * Connects to the accessibility bus of the session at `address`, turns accessibility on for apps
 * that start later (`org.a11y.Status.IsEnabled`) and starts the registry; rejects when the bus does
 * not answer (both connections closed).
 */
async function connectBuses(address: string): Promise<Buses> {
  let session: Bus | undefined;
  let bus: Bus | undefined;
  try {
    session = dbus.sessionBus({ busAddress: address });
    session.on('error', () => undefined);
    const within = <T>(call: Promise<T>) =>
      Promise.race([
        call,
        new Promise<never>((_, reject) =>
          setTimeout(() => reject(new Error('no answer in 3 s')), 3000).unref(),
        ),
      ]);
    const ask = (member: string, iface: string, signature = '', body: unknown[] = []) =>
      within(
        (session as Bus).call(
          new dbus.Message({
            destination: 'org.a11y.Bus',
            path: '/org/a11y/bus',
            interface: iface,
            member,
            signature,
            body,
          }),
        ),
      );
    const reply = await ask('GetAddress', 'org.a11y.Bus');
    await ask('Set', PROPERTIES, 'ssv', ['org.a11y.Status', 'IsEnabled', new dbus.Variant('b', true)]);
    const a11yAddress = String(reply?.body[0] ?? '');
    bus = dbus.sessionBus({ busAddress: a11yAddress });
    bus.on('error', () => undefined);
    // The registry runs before an app mime starts looks for it.
    await within(
      bus.call(
        new dbus.Message({
          destination: 'org.freedesktop.DBus',
          path: '/org/freedesktop/DBus',
          interface: 'org.freedesktop.DBus',
          member: 'StartServiceByName',
          signature: 'su',
          body: [REGISTRY, 0],
        }),
      ),
    ).catch(() => undefined);
    return { session, bus, a11yAddress };
  } catch (error) {
    bus?.disconnect();
    session?.disconnect();
    throw error;
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

/**
 * Turns accessibility on and starts the registry for an app about to start, then lets go of the
 * buses; best effort (without an accessibility bus the app simply exports no tree).
 */
export async function wakeAtspi(address: string, env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const buses = await connectBuses(address).catch(() => undefined);
  buses?.bus.disconnect();
  buses?.session.disconnect();
  if (buses && env.DISPLAY) await publishBusAddress(buses.a11yAddress, env);
}

const runFile = promisify(execFile);

/**
 * Names the accessibility bus on the X display's root window (`AT_SPI_BUS`), as at-spi-bus-launcher
 * does when it knows the display. Started by D-Bus activation (`dbus-run-session`, a service manager)
 * it does not, and Qt 5's bridge then asks the session bus for the address asynchronously and
 * registers its app before the answer comes ("Error in contacting registry: Not connected to D-Bus
 * server"): the app never joins the tree. With the property there, Qt connects at once. Measured with
 * FeatherPad (Qt 5.15) under Xvfb: registered 0 times in 3 without it, 4 in 4 with it. A property
 * already there is left alone. Best effort: xprop (x11-utils) missing changes nothing.
 */
async function publishBusAddress(a11yAddress: string, env: NodeJS.ProcessEnv): Promise<void> {
  if (!a11yAddress) return;
  const options = { env, timeout: 3000 };
  try {
    const { stdout } = await runFile('xprop', ['-root', 'AT_SPI_BUS'], options);
    if (/^AT_SPI_BUS\(STRING\) = "/.test(stdout)) return;
    await runFile('xprop', ['-root', '-f', 'AT_SPI_BUS', '8s', '-set', 'AT_SPI_BUS', a11yAddress], options);
  } catch {
    // No xprop, or no display to set it on: the app may still join the tree by itself.
  }
}
