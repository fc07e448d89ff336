import type { ElementBox } from '@mime-desktop/schema';
import dbus from '@particle/dbus-next';

/** An AT-SPI object: the bus name of its app and its object path. */
export type Ref = readonly [bus: string, path: string];
export type Bus = ReturnType<typeof dbus.sessionBus>;

/** An element's role and name, by its ref. */
export interface Node {
  ref: Ref;
  role: string;
  name: string;
}

export const ACCESSIBLE = 'org.a11y.atspi.Accessible';
export const COMPONENT = 'org.a11y.atspi.Component';
export const APPLICATION = 'org.a11y.atspi.Application';
export const PROPERTIES = 'org.freedesktop.DBus.Properties';
export const REGISTRY = 'org.a11y.atspi.Registry';
export const NULL_PATH = '/org/a11y/atspi/null';
/** The path of an app's own root element (its children are its windows). */
export const APP_ROOT = '/org/a11y/atspi/accessible/root';
/** The bus daemon itself, on any bus. */
export const DBUS: Ref = ['org.freedesktop.DBus', '/org/freedesktop/DBus'];
/** AT-SPI coordinate type: screen. */
export const SCREEN = 0;
/** AT-SPI coordinate type: the element's top-level window. */
export const WINDOW = 1;
export const TEXT = 'org.a11y.atspi.Text';
/** One call's deadline, ms: a busy app answers in a few ms. */
const CALL_MS = 1000;
/** The longest text read from an element. */
const MAX_TEXT = 65_536;

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

const stateNames = (bits: readonly number[]): string[] =>
  STATES.filter((_, i) => ((bits[i >> 5] ?? 0) >>> (i & 31)) & 1);

/**
 * Calls `member` of `ref` on `bus`; rejects with `timeout` when no answer came within `ms`. Resolves
 * with the reply's body.
 */
export async function callWithin(
  bus: Bus,
  call: { ref: Ref; iface: string; member: string; signature?: string; body?: unknown[] },
  ms: number,
  timeout: string,
): Promise<unknown[]> {
  const message = new dbus.Message({
    destination: call.ref[0],
    path: call.ref[1],
    interface: call.iface,
    member: call.member,
    signature: call.signature ?? '',
    body: call.body ?? [],
  });
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(timeout)), ms);
  });
  try {
    const reply = await Promise.race([bus.call(message), deadline]);
    return reply?.body ?? [];
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The calls mime makes on the accessibility bus, each with a deadline: an app that hangs makes a
 * lookup miss, never the recorder or a replay wait.
 */
export class AtspiCalls {
  readonly #bus: Bus;

  constructor(bus: Bus) {
    this.#bus = bus;
  }

  call(ref: Ref, iface: string, member: string, signature = '', body: unknown[] = []): Promise<unknown[]> {
    return callWithin(
      this.#bus,
      { ref, iface, member, signature, body },
      CALL_MS,
      `${member} took over ${CALL_MS} ms`,
    );
  }

  async prop(ref: Ref, iface: string, name: string): Promise<unknown> {
    const [variant] = await this.call(ref, PROPERTIES, 'Get', 'ss', [iface, name]);
    return (variant as { value?: unknown } | undefined)?.value;
  }

  async children(ref: Ref): Promise<Ref[]> {
    const [children] = await this.call(ref, ACCESSIBLE, 'GetChildren');
    return ((children ?? []) as [string, string][]).filter(([, path]) => path !== NULL_PATH);
  }

  /**
   * Whether the app keeps no tree under `ref` and builds none when asked: its children are all AT-SPI's
   * null object (Chromium and Electron started without their accessibility flag name one such child
   * from the first answer on, where a tree being built names none or real ones).
   */
  async keepsNoTree(ref: Ref): Promise<boolean> {
    const [children] = await this.call(ref, ACCESSIBLE, 'GetChildren').catch(() => [null]);
    const all = (children ?? []) as [string, string][];
    return all.length > 0 && all.every(([, path]) => path === NULL_PATH);
  }

  async node(ref: Ref): Promise<Node> {
    const [[role], name] = await Promise.all([
      this.call(ref, ACCESSIBLE, 'GetRoleName'),
      this.prop(ref, ACCESSIBLE, 'Name'),
    ]);
    return { ref, role: String(role ?? ''), name: String(name ?? '') };
  }

  async states(ref: Ref): Promise<string[]> {
    const [bits] = await this.call(ref, ACCESSIBLE, 'GetState');
    return stateNames((bits ?? []) as number[]);
  }

  async parent(ref: Ref): Promise<Ref | null> {
    const parent = (await this.prop(ref, ACCESSIBLE, 'Parent')) as [string, string] | undefined;
    return parent && parent[1] !== NULL_PATH ? [parent[0], parent[1]] : null;
  }

  /** The element's box as its app reports it (in the app's own pixels), counted from the screen or its window. */
  async reportedExtents(ref: Ref, coords = SCREEN): Promise<ElementBox | null> {
    const [box] = await this.call(ref, COMPONENT, 'GetExtents', 'u', [coords]).catch(() => [null]);
    if (!Array.isArray(box)) return null;
    const [x, y, width, height] = box as number[];
    return { x: x ?? 0, y: y ?? 0, width: Math.max(0, width ?? 0), height: Math.max(0, height ?? 0) };
  }

  /**
   * The element's text, its first {@link MAX_TEXT} characters. The end asked for is within the text:
   * Qt answers an end past it with nothing at all (its cursor refuses the position).
   */
  async text(ref: Ref): Promise<string | null> {
    const count = await this.prop(ref, TEXT, 'CharacterCount').catch(() => null);
    const end = typeof count === 'number' && count >= 0 ? Math.min(count, MAX_TEXT) : MAX_TEXT;
    const [text] = await this.call(ref, TEXT, 'GetText', 'ii', [0, end]).catch(() => [null]);
    return typeof text === 'string' ? text : null;
  }
}
