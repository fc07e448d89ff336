/**
 * The X keyboard through a connection of mime's own (node-x11, pure JavaScript): the active layout's
 * keymap, kept current on `MappingNotify`, and XTest key presses by keycode.
 *
 * Typing by keycode is what makes text exact on any layout: a character is typed with the key and
 * shift level that give it in the active layout (`@` is AltGr+Q on a German keyboard), and a
 * character no key gives (`中`, `É` on a US layout) with a spare keycode bound to it for the time of
 * the typing, as `xdotool type` does. Unlike xdotool, the spare keys are bound once for the whole
 * text, and they are unbound only once the app has handled the keys typed with them: GTK and Qt read
 * the keymap from the server when they handle the mapping change (Qt) or the first key after it
 * (GTK), so an app that lags behind the typing reads the mapping as it is then, and loses every
 * character typed through a spare key already unbound (FeatherPad, Mousepad on a busy machine).
 *
 * Whether the app has handled the keys is observed with an EWMH `_NET_WM_PING` to its window
 * ({@link XKeyboard.ping}): GTK, Qt and Chromium answer it when they reach it in their event
 * queue, after every key event the server queued to them before it.
 */
import { DesktopFailureError } from './errors.ts';
import { charToKeysym, Keymap, type KeyPlace } from './x-keymap.ts';
import type { WindowTraits } from './x-toolkit.ts';
import { connectX11, type XClient, type XEvent, type XTestExtension } from './x11-client.ts';

/** `GetInputFocus` answers 1 for PointerRoot (keys go to the window under the pointer), 0 for none. */
const FOCUS_POINTER_ROOT = 1;
/** Windows walked up from the focus (a toolkit's focus child, a window manager's frame) to the app's top level. */
const MAX_DEPTH = 8;
/** Longest property value read, in 4-byte units: the traits are short strings and a number. */
const PROPERTY_LONGS = 64;

/** `MappingNotify.request` for a keyboard mapping change (0 is modifiers, 2 the pointer). */
const MAPPING_KEYBOARD = 1;
/**
 * The event mask that gets the ping answers apps send to the root window: GTK and Chromium send them
 * to clients selecting SubstructureNotify there, Qt to those selecting StructureNotify.
 */
const PING_ANSWER_MASK = 0x0002_0000 | 0x0008_0000;

function xError(what: string, error: unknown): DesktopFailureError {
  return new DesktopFailureError(`X keyboard: ${what} failed: ${String(error)}`, { cause: error });
}

/** The top-level window typed keys go to. */
export interface FocusedWindow {
  id: number;
  traits: WindowTraits;
  /** It lists `_NET_WM_PING` in `WM_PROTOCOLS`: it answers {@link XKeyboard.ping} (GTK, Qt, Chromium; not Tk). */
  answersPing: boolean;
}

/** A key press plan for one character. */
export interface KeyStroke extends KeyPlace {
  char: string;
}

/** One connection to the X server for the keyboard. Close it when done. */
export class XKeyboard {
  readonly #client: XClient;
  readonly #root: number;
  /** Atoms by name, 0 for one the server does not know (no window can have that property then). */
  readonly #atoms = new Map<string, Promise<number>>();
  readonly #minKeycode: number;
  readonly #count: number;
  #keymap: Keymap;
  #xtest: XTestExtension | undefined;
  #closed = false;
  #waiting = 0;
  /** Ping answers awaited, by the ping's number (sent as its timestamp): the message each expects. */
  readonly #pongs = new Map<number, { message: number[]; messageType: number; answer: () => void }>();
  #pingSerial = 0;
  #rootSelected = false;
  /** Windows that left a ping unanswered: not asked again (an app that lists pings but ignores them). */
  readonly #silent = new Set<number>();

  private constructor(client: XClient, root: number, minKeycode: number, count: number, keymap: Keymap) {
    this.#client = client;
    this.#root = root;
    this.#minKeycode = minKeycode;
    this.#count = count;
    this.#keymap = keymap;
    client.on('event', (event) => {
      if (event.name === 'MappingNotify' && event.request === MAPPING_KEYBOARD) void this.#reload();
      if (event.name === 'ClientMessage') this.#pong(event);
    });
    client.on('error', () => undefined);
  }

  /** Connects to `display` (default `$DISPLAY`) and reads the keymap. */
  static async open(display?: string): Promise<XKeyboard> {
    const connected = await connectX11(display).catch((error: unknown) => {
      throw xError('connecting to the display', error);
    });
    const { client, min_keycode: min, max_keycode: max, screen } = connected;
    const rows = await readMapping(client, min, max - min + 1);
    // The connection must not keep a process alive that is otherwise done (see #awaiting).
    client.stream?.unref?.();
    return new XKeyboard(client, screen[0]?.root ?? 0, min, max - min + 1, new Keymap(min, rows));
  }

  /** The active layout's keymap (re-read whenever the server announces a change). */
  get keymap(): Keymap {
    return this.#keymap;
  }

  async #reload(): Promise<void> {
    if (this.#closed) return;
    try {
      this.#keymap = new Keymap(
        this.#minKeycode,
        await this.#awaiting(readMapping(this.#client, this.#minKeycode, this.#count)),
      );
    } catch {
      // Keep the last keymap: a failed read here has no caller to report to.
    }
  }

  /**
   * Plans the keys for `chars`: each character's place in the layout, or a spare keycode bound to it
   * by {@link bind}. Throws when the text needs more spare keys than the keyboard has free.
   */
  plan(chars: readonly string[]): { strokes: KeyStroke[]; bindings: Map<number, number> } {
    const keymap = this.#keymap;
    const spare = keymap.spareKeycodes();
    const bound = new Map<string, number>();
    const bindings = new Map<number, number>();
    const strokes = chars.map((char): KeyStroke => {
      const place = keymap.placeOf(char);
      if (place) return { char, ...place };
      let keycode = bound.get(char);
      if (keycode === undefined) {
        keycode = spare[bound.size];
        if (keycode === undefined) {
          throw new DesktopFailureError(
            `cannot type ${bound.size + 1} different characters the keyboard layout lacks in one text: only ${spare.length} spare keys`,
          );
        }
        bound.set(char, keycode);
        bindings.set(keycode, charToKeysym(char));
      }
      return { char, keycode, level: 0 };
    });
    return { strokes, bindings };
  }

  /** Binds keysyms to spare keycodes (both levels), or unbinds them with `0`; waits until the server has it. */
  async bind(bindings: ReadonlyMap<number, number>): Promise<void> {
    for (const [keycode, keysym] of bindings) {
      this.#client.ChangeKeyboardMapping(keycode, 2, [keysym, keysym]);
    }
    await this.sync();
  }

  /** Presses or releases a key by keycode through XTest. */
  async key(keycode: number, down: boolean): Promise<void> {
    const xtest = await this.#xtestExtension();
    xtest.FakeInput(down ? xtest.KeyPress : xtest.KeyRelease, keycode, 0, 0, 0, 0);
  }

  /**
   * The top-level window typed keys go to: the input focus, or the window under the pointer when the
   * focus follows it (no window manager), walked up to the window that has a `WM_CLASS`; with what it
   * tells about its toolkit. Null when there is none or it is gone.
   */
  async focusedWindow(): Promise<FocusedWindow | null> {
    const client = this.#client;
    const reply = <T>(send: (callback: (error: unknown, value: T) => void) => void) =>
      this.#awaiting(
        new Promise<T>((resolve, reject) =>
          send((error, value) =>
            error ? reject(xError('reading the focused window', error)) : resolve(value),
          ),
        ),
      );
    const property = async (window: number, name: string) => {
      const atom = await this.#atom(name);
      if (atom === 0) return null;
      const value = await reply<{ type: number; data: Buffer }>((callback) =>
        client.GetProperty(0, window, atom, 0, 0, PROPERTY_LONGS, callback),
      );
      return value.type === 0 ? null : value.data;
    };
    try {
      const { focus } = await reply<{ focus: number }>((callback) => client.GetInputFocus(callback));
      let window =
        focus > FOCUS_POINTER_ROOT
          ? focus
          : (await reply<{ child: number }>((callback) => client.QueryPointer(this.#root, callback))).child;
      for (let depth = 0; window !== 0 && window !== this.#root && depth < MAX_DEPTH; depth += 1) {
        if ((await property(window, 'WM_CLASS')) !== null) {
          const [gtk, role, pid, machine, protocols, ping] = await Promise.all([
            property(window, '_GTK_THEME_VARIANT'),
            property(window, 'WM_WINDOW_ROLE'),
            property(window, '_NET_WM_PID'),
            property(window, 'WM_CLIENT_MACHINE'),
            property(window, 'WM_PROTOCOLS'),
            this.#atom('_NET_WM_PING'),
          ]);
          const text = (data: Buffer | null) =>
            data === null ? null : data.toString('latin1').replace(/\0.*$/s, '');
          return {
            id: window,
            traits: {
              gtk: gtk !== null,
              role: text(role),
              pid: pid !== null && pid.length >= 4 ? pid.readUInt32LE(0) : null,
              machine: text(machine),
            },
            answersPing: ping !== 0 && protocols !== null && atomList(protocols).includes(ping),
          };
        }
        window = (await reply<{ parent: number }>((callback) => client.QueryTree(window, callback))).parent;
      }
      return null;
    } catch {
      // The window went away between two requests (BadWindow): nothing to tell by.
      return null;
    }
  }

  #atom(name: string): Promise<number> {
    let atom = this.#atoms.get(name);
    if (atom === undefined) {
      atom = this.#awaiting(
        new Promise<number>((resolve, reject) =>
          this.#client.InternAtom(true, name, (error, value) => (error ? reject(error) : resolve(value))),
        ),
      );
      this.#atoms.set(name, atom);
      atom.catch(() => this.#atoms.delete(name));
    }
    return atom;
  }

  /**
   * Sends `window` an EWMH `_NET_WM_PING` and resolves true when its app answers: the app has then
   * handled every event the server queued to it before, such as the keys pressed so far and keymap
   * changes. False when no answer came within `timeoutMs`, and from then on for that window (ask
   * only windows that {@link FocusedWindow.answersPing}).
   */
  async ping(window: number, timeoutMs: number): Promise<boolean> {
    const [protocols, ping] = await Promise.all([this.#atom('WM_PROTOCOLS'), this.#atom('_NET_WM_PING')]);
    if (protocols === 0 || ping === 0 || this.#silent.has(window)) return false;
    if (!this.#rootSelected) {
      // Apps answer to the root window, to clients that select its (sub)structure changes.
      this.#client.ChangeWindowAttributes(this.#root, { eventMask: PING_ANSWER_MASK });
      this.#rootSelected = true;
    }
    // The number is sent as the ping's timestamp and comes back in the answer; 0 is never used.
    this.#pingSerial = (this.#pingSerial % 0xffff_fffe) + 1;
    const serial = this.#pingSerial;
    const message = [ping, serial, window, 0, 0];
    let timer: NodeJS.Timeout | undefined;
    const answered = new Promise<boolean>((resolve) => {
      this.#pongs.set(serial, { message, messageType: protocols, answer: () => resolve(true) });
      timer = setTimeout(() => resolve(false), timeoutMs);
    });
    try {
      this.#client.SendClientMessage(window, window, protocols, 32, message, 0);
      const answer = await this.#awaiting(answered);
      if (!answer) this.#silent.add(window);
      return answer;
    } finally {
      clearTimeout(timer);
      this.#pongs.delete(serial);
    }
  }

  /** Settles the ping that `event` answers, if it is one: the app sends the ping back as it came. */
  #pong(event: XEvent): void {
    const pong = this.#pongs.get(event.data?.[1] ?? 0);
    if (
      pong &&
      event.message_type === pong.messageType &&
      pong.message.every((n, i) => event.data?.[i] === n)
    ) {
      pong.answer();
    }
  }

  /** A round trip: every request sent before has been handled by the server when this resolves. */
  sync(): Promise<void> {
    return this.#awaiting(
      new Promise((resolve, reject) =>
        this.#client.GetInputFocus((error) => (error ? reject(xError('sync', error)) : resolve())),
      ),
    );
  }

  async #xtestExtension(): Promise<XTestExtension> {
    this.#xtest ??= await this.#awaiting(
      new Promise<XTestExtension>((resolve, reject) =>
        this.#client.require('xtest', (error, ext) =>
          error ? reject(xError('XTEST', error)) : resolve(ext),
        ),
      ),
    );
    return this.#xtest;
  }

  /**
   * The socket is unreferenced while idle, so an open keyboard never keeps a process alive; while a
   * reply is awaited it is referenced, or Node would exit with the reply still on its way.
   */
  async #awaiting<T>(reply: Promise<T>): Promise<T> {
    if (this.#waiting++ === 0) this.#client.stream?.ref?.();
    try {
      return await reply;
    } finally {
      this.#waiting -= 1;
      if (this.#waiting === 0) this.#client.stream?.unref?.();
    }
  }

  close(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    this.#closed = true;
    return this.#awaiting(new Promise((resolve) => this.#client.close(() => resolve())));
  }
}

/** The atoms in a property of type `ATOM` (32-bit, little-endian as node-x11 reads). */
function atomList(data: Buffer): number[] {
  const atoms: number[] = [];
  for (let offset = 0; offset + 4 <= data.length; offset += 4) atoms.push(data.readUInt32LE(offset));
  return atoms;
}

function readMapping(client: XClient, first: number, count: number): Promise<number[][]> {
  return new Promise((resolve, reject) =>
    client.GetKeyboardMapping(first, count, (error, rows) =>
      error ? reject(xError('reading the keyboard mapping', error)) : resolve(rows),
    ),
  );
}
