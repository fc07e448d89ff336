/**
 * The X display's windows read through one connection of mime's own (node-x11, pure JavaScript):
 * the viewable windows (mapped, their parents too), the root, top levels and their children alike, with their
 * titles and WM_CLASS. It tells what `xdotool search --onlyvisible --name ''`, `xdotool
 * getwindowname` and `xprop WM_CLASS` told, in the same order, without a process per window: the
 * requests of a level of the tree go out together and their replies come back on the one socket.
 */
import { DesktopFailureError } from './errors.ts';
import { connectX11, type Reply, type XClient } from './x11-client.ts';

/** A viewable window: id in decimal (as xdotool prints it), its title and WM_CLASS names. */
export interface XWindow {
  id: string;
  title: string;
  classes: string[];
}

/** `GetWindowAttributes.mapState` of a window mapped with all its parents (`IsViewable`). */
const IS_VIEWABLE = 2;
/** Predefined atoms (X11 protocol). */
const ATOM = { CARDINAL: 6, STRING: 31, WM_NAME: 39, WM_CLASS: 67 } as const;
/** `AnyPropertyType`: the property read whatever type it was stored as. */
const ANY_TYPE = 0;
/** Longest title or class read, in 4-byte units (16 KiB). */
const TEXT_LONGS = 4096;

/** A request's callback; it returns true for an error it handled (node-x11 emits `error` otherwise). */

/** One connection to the X display in `env`. Close it when done. */
export class XWindowReader {
  readonly #client: XClient;
  readonly #roots: number[];
  readonly #netWmName: Promise<number | null>;
  #netWmPid: Promise<number | null> | undefined;
  /** What the requests awaiting a reply do when the connection ends (node-x11 leaves them waiting). */
  readonly #pending = new Set<(error: DesktopFailureError) => void>();
  #ended: DesktopFailureError | null = null;

  private constructor(client: XClient, roots: number[]) {
    this.#client = client;
    this.#roots = roots;
    // Request errors go to their callbacks, so an `error` here is the connection's own.
    client.on('error', (error) => this.#end(`: ${error instanceof Error ? error.message : String(error)}`));
    client.on('end', () => this.#end(''));
    this.#netWmName = this.#ask<number>((callback) => client.InternAtom(true, '_NET_WM_NAME', callback)).then(
      (atom) => atom || null,
    );
    // Awaited by the first title read; a connection ended before it must not leave it unhandled.
    this.#netWmName.catch(() => undefined);
  }

  #end(reason: string): void {
    this.#ended ??= new DesktopFailureError(
      `could not list the windows: the X server closed the connection${reason}`,
    );
    for (const fail of this.#pending) fail(this.#ended);
    this.#pending.clear();
  }

  /**
   * A request's reply, or null where the window went away meanwhile (BadWindow and the like);
   * rejects when the connection ends first.
   */
  #ask<T>(send: (callback: Reply<T>) => void): Promise<T | null> {
    if (this.#ended) return Promise.reject(this.#ended);
    return new Promise((resolve, reject) => {
      this.#pending.add(reject);
      send((error, reply) => {
        this.#pending.delete(reject);
        resolve(error ? null : reply);
        return true;
      });
    });
  }

  /**
   * Connects to `env.DISPLAY`; throws {@link DesktopFailureError} naming the display when it is not
   * set or cannot be reached.
   */
  static async open(env: NodeJS.ProcessEnv): Promise<XWindowReader> {
    const display = env.DISPLAY?.trim();
    if (!display) {
      throw new DesktopFailureError(
        'could not list the windows: DISPLAY is not set; run mime in the X session (or set DISPLAY, e.g. DISPLAY=:0)',
      );
    }
    const connected = await connectX11(display).catch((error: unknown) => {
      throw new DesktopFailureError(
        `could not list the windows: cannot connect to the X display ${display}: ${error instanceof Error ? error.message : String(error)}`,
        { cause: error },
      );
    });
    return new XWindowReader(
      connected.client,
      connected.screen.map((s) => s.root),
    );
  }

  /**
   * The ids of the viewable windows, in xdotool's order: each root, then under it a window's viewable
   * children bottom of the stacking order first, then each one's own, depth first.
   */
  async viewableIds(): Promise<number[]> {
    const trees = await Promise.all(
      this.#roots.map(async (root) => [root, ...(await this.#viewableUnder(root))]),
    );
    return trees.flat();
  }

  async #viewableUnder(parent: number): Promise<number[]> {
    const tree = await this.#ask<{ children: number[] }>((callback) =>
      this.#client.QueryTree(parent, callback),
    );
    const children = tree?.children ?? [];
    const states = await Promise.all(
      children.map((child) =>
        this.#ask<{ mapState: number }>((callback) => this.#client.GetWindowAttributes(child, callback)),
      ),
    );
    // A window that is not viewable has no viewable window under it.
    const viewable = children.filter((_, i) => states[i]?.mapState === IS_VIEWABLE);
    const below = await Promise.all(viewable.map((child) => this.#viewableUnder(child)));
    return [...viewable, ...below.flat()];
  }

  /** The viewable windows with their titles and classes. */
  async viewableWindows(): Promise<XWindow[]> {
    return Promise.all((await this.viewableIds()).map((id) => this.windowOf(id)));
  }

  /**
   * A window's title (`_NET_WM_NAME`, else `WM_NAME`, as xdotool reads it) and WM_CLASS names;
   * empty for a window that has none, or went away.
   */
  async windowOf(id: number): Promise<XWindow> {
    const netWmName = await this.#netWmName;
    const [netName, name, klass] = await Promise.all([
      netWmName === null ? null : this.#property(id, netWmName),
      this.#property(id, ATOM.WM_NAME),
      this.#property(id, ATOM.WM_CLASS),
    ]);
    const titled = netName && netName.data.length > 0 ? netName : name;
    const title = titled ? (textOf(titled).split('\0')[0] ?? '') : '';
    const classes = klass && klass.data.length > 0 ? textOf(klass).replace(/\0$/, '').split('\0') : [];
    return { id: String(id), title, classes };
  }

  /** The window that has the keyboard focus, as `xdotool getwindowfocus` tells it: 0 none, 1 PointerRoot. */
  async focus(): Promise<number> {
    const reply = await this.#ask<{ focus: number }>((callback) => this.#client.GetInputFocus(callback));
    return reply?.focus ?? 0;
  }

  /** Where the pointer is on the (first) screen, as `xdotool getmouselocation` tells it. */
  async pointer(): Promise<{ x: number; y: number }> {
    const reply = await this.#ask<{ rootX: number; rootY: number }>((callback) =>
      this.#client.QueryPointer(this.#roots[0] ?? 0, callback),
    );
    if (!reply) throw new DesktopFailureError('could not read where the pointer is from the X server');
    return { x: reply.rootX, y: reply.rootY };
  }

  /** The process that owns a window (`_NET_WM_PID`, as `xdotool getwindowpid` reads it); null where none is told. */
  async pidOf(id: number): Promise<number | null> {
    this.#netWmPid ??= this.#ask<number>((callback) =>
      this.#client.InternAtom(true, '_NET_WM_PID', callback),
    );
    const atom = await this.#netWmPid;
    if (!atom) return null;
    const pid = await this.#ask<{ type: number; data: Buffer }>((callback) =>
      this.#client.GetProperty(0, id, atom, ATOM.CARDINAL, 0, 1, callback),
    );
    return pid && pid.data.length >= 4 ? pid.data.readUInt32LE(0) : null;
  }

  #property(window: number, property: number): Promise<{ type: number; data: Buffer } | null> {
    return this.#ask((callback) =>
      this.#client.GetProperty(0, window, property, ANY_TYPE, 0, TEXT_LONGS, callback),
    );
  }

  /** Closes the connection (at once where the server already closed it). */
  close(): Promise<void> {
    if (this.#ended) return Promise.resolve();
    return new Promise((resolve) => {
      this.#pending.add(() => resolve());
      this.#client.close(() => resolve());
    });
  }
}

/**
 * A text property's characters: STRING as Latin-1 (ICCCM), anything else (UTF8_STRING, or
 * COMPOUND_TEXT read as the X tools' bytes were before) as UTF-8.
 */
function textOf(property: { type: number; data: Buffer }): string {
  return property.data.toString(property.type === ATOM.STRING ? 'latin1' : 'utf8');
}

/** Opens a connection to the display in `env`, hands it to `use`, and closes it. */
export async function withXWindows<T>(
  env: NodeJS.ProcessEnv,
  use: (reader: XWindowReader) => Promise<T>,
): Promise<T> {
  const reader = await XWindowReader.open(env);
  try {
    return await use(reader);
  } finally {
    await reader.close();
  }
}
