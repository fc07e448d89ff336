/**
 * Input on GNOME's compositor through `org.gnome.Mutter.RemoteDesktop` on the session bus (the same
 * D-Bus library as AT-SPI), with a `org.gnome.Mutter.ScreenCast` stream of the first monitor tied to
 * it: absolute pointer motion is given in that stream's pixels, and the stream's PipeWire node is
 * where frames come from (pipewire-frames.ts). Called on the session bus mutter asks for no consent.
 *
 * Each event is one method call (about 1 ms once warm); a call resolves once mutter has taken it.
 */
import dbus from '@particle/dbus-next';
import { type Bus, callWithin } from './atspi-calls.ts';
import { DesktopFailureError } from './errors.ts';
import type { LogicalPoint, MouseButton, ScrollDirection } from './units.ts';

const RD = 'org.gnome.Mutter.RemoteDesktop';
const SC = 'org.gnome.Mutter.ScreenCast';
const DISPLAY_CONFIG = 'org.gnome.Mutter.DisplayConfig';
/** How long mutter has to answer one call, ms (session set-up took 310-340 ms here in all). */
const CALL_MS = 5000;

/** Linux input event codes (linux/input-event-codes.h) of the buttons. */
const BUTTON_CODES: Record<MouseButton, number> = { left: 0x110, right: 0x111, middle: 0x112 };

/** The first monitor as mutter's DisplayConfig tells it: connector, current mode, logical scale. */
export interface MutterMonitor {
  connector: string;
  /** The current mode's size, physical pixels (what the stream carries). */
  width: number;
  height: number;
  scale: number;
}

type Mode = [string, number, number, number, number, number[], Record<string, { value: unknown }>];
type Monitor = [[string, string, string, string], Mode[], Record<string, unknown>];
type LogicalMonitor = [number, number, number, number, boolean, Array<[string, ...string[]]>, unknown];

/** Reads the first monitor (the primary one when marked) out of a `GetCurrentState` reply's body. */
export function firstMonitor(state: unknown[]): MutterMonitor | null {
  const monitors = (state[1] ?? []) as Monitor[];
  const logical = (state[2] ?? []) as LogicalMonitor[];
  const primary = logical.find((l) => l[4]) ?? logical[0];
  const connector = primary?.[5]?.[0]?.[0] ?? monitors[0]?.[0][0];
  const monitor = monitors.find((m) => m[0][0] === connector);
  const mode = monitor?.[1].find((m) => m[6]?.['is-current']?.value === true);
  if (!connector || !mode) return null;
  return { connector, width: mode[1], height: mode[2], scale: primary?.[2] ?? 1 };
}

/** `promise`, or a rejection with `what` when it has not settled within `ms`. */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(what)), ms);
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}

export class MutterRemoteDesktop {
  readonly #bus: Bus;
  readonly #session: string;
  readonly #stream: string;
  /** The PipeWire node the monitor's frames come out of. */
  readonly node: number;
  readonly monitor: MutterMonitor;
  #stopped = false;

  private constructor(
    bus: Bus,
    paths: { session: string; stream: string },
    node: number,
    monitor: MutterMonitor,
  ) {
    this.#bus = bus;
    this.#session = paths.session;
    this.#stream = paths.stream;
    this.node = node;
    this.monitor = monitor;
  }

  /**
   * Starts a remote desktop session with a screen cast of the first monitor on the session bus at
   * `address`. Throws {@link DesktopFailureError} when mutter does not answer (not a GNOME session,
   * or mutter without its remote desktop: it needs PipeWire running).
   */
  static async open(address: string): Promise<MutterRemoteDesktop> {
    const bus = dbus.sessionBus({ busAddress: address });
    bus.on('error', () => undefined);
    const call = async (
      dest: string,
      path: string,
      iface: string,
      member: string,
      sig = '',
      body: unknown[] = [],
    ) =>
      callWithin(
        bus,
        { ref: [dest, path], iface, member, signature: sig, body },
        CALL_MS,
        `${member} took over ${CALL_MS} ms`,
      );
    let session: string | undefined;
    try {
      const state = await call(
        DISPLAY_CONFIG,
        '/org/gnome/Mutter/DisplayConfig',
        DISPLAY_CONFIG,
        'GetCurrentState',
      );
      const monitor = firstMonitor(state);
      if (!monitor) throw new Error('mutter reports no monitor with a current mode');
      [session] = (await call(RD, '/org/gnome/Mutter/RemoteDesktop', RD, 'CreateSession')) as [string];
      const [id] = await call(RD, session, 'org.freedesktop.DBus.Properties', 'Get', 'ss', [
        `${RD}.Session`,
        'SessionId',
      ]);
      const sessionId = String((id as { value: unknown }).value);
      const [screenCast] = (await call(SC, '/org/gnome/Mutter/ScreenCast', SC, 'CreateSession', 'a{sv}', [
        { 'remote-desktop-session-id': new dbus.Variant('s', sessionId) },
      ])) as [string];
      // Cursor mode 0 (hidden): frames show the apps alone, as recorded under X11.
      const [stream] = (await call(SC, screenCast, `${SC}.Session`, 'RecordMonitor', 'sa{sv}', [
        monitor.connector,
        { 'cursor-mode': new dbus.Variant('u', 0) },
      ])) as [string];
      const proxy = await bus.getProxyObject(SC, stream);
      const added = new Promise<number>((resolve) =>
        proxy.getInterface(`${SC}.Stream`).once('PipeWireStreamAdded', (node: number) => resolve(node)),
      );
      await call(RD, session, `${RD}.Session`, 'Start');
      const node = await within(added, CALL_MS, `mutter gave no PipeWire stream within ${CALL_MS} ms`);
      return new MutterRemoteDesktop(bus, { session, stream }, node, monitor);
    } catch (error) {
      if (session) await call(RD, session, `${RD}.Session`, 'Stop').catch(() => undefined);
      bus.disconnect();
      throw new DesktopFailureError(
        `GNOME's remote desktop (org.gnome.Mutter.RemoteDesktop on the session bus) did not start a session: ${error instanceof Error ? error.message : String(error)}. ` +
          'It needs a GNOME (mutter) Wayland session with PipeWire and WirePlumber running in it.',
        { cause: error },
      );
    }
  }

  async moveTo(point: LogicalPoint): Promise<void> {
    const { scale } = this.monitor;
    await this.#notify('NotifyPointerMotionAbsolute', 'sdd', [
      this.#stream,
      point.x * scale,
      point.y * scale,
    ]);
  }

  async button(button: MouseButton, down: boolean): Promise<void> {
    await this.#notify('NotifyPointerButton', 'ib', [BUTTON_CODES[button], down]);
  }

  /** One wheel notch; `down` and `right` turn the content that way (positive steps). */
  async wheel(direction: ScrollDirection): Promise<void> {
    const axis = direction === 'up' || direction === 'down' ? 0 : 1;
    const steps = direction === 'down' || direction === 'right' ? 1 : -1;
    await this.#notify('NotifyPointerAxisDiscrete', 'ui', [axis, steps]);
  }

  /** Presses or releases the key of an X keysym; mutter finds it a key on the session's layout. */
  async keysym(keysym: number, down: boolean): Promise<void> {
    await this.#notify('NotifyKeyboardKeysym', 'ub', [keysym, down]);
  }

  async close(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    await this.#notify('Stop', '', []).catch(() => undefined);
    this.#bus.disconnect();
  }

  async #notify(member: string, signature: string, body: unknown[]): Promise<void> {
    try {
      await callWithin(
        this.#bus,
        { ref: [RD, this.#session], iface: `${RD}.Session`, member, signature, body },
        CALL_MS,
        `no answer in ${CALL_MS} ms`,
      );
    } catch (error) {
      throw new DesktopFailureError(`mutter's remote desktop refused ${member}: ${String(error)}`, {
        cause: error,
      });
    }
  }
}
