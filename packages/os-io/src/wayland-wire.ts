/**
 * A minimal Wayland client spoken over the compositor's Unix socket: the wire format (little-endian
 * 32-bit words: object id, then size << 16 | opcode, then the arguments), the registry, binding a
 * global and round trips. Enough for protocols that pass no file descriptors (Node's `net` cannot
 * send them), such as `zwlr_virtual_pointer_v1`. No npm package speaks the protocol without
 * libwayland, hence this one.
 */
import { connect, type Socket } from 'node:net';
import { isAbsolute, join } from 'node:path';
import { DesktopFailureError } from './errors.ts';

/** A global the compositor announces: its interface name, the name to bind it by, and its version. */
export interface WaylandGlobal {
  name: number;
  interface: string;
  version: number;
}

/** One argument of a request: an unsigned or signed 32-bit integer, or a string. */
export type WireArg = { uint: number } | { int: number } | { string: string };

const DISPLAY_ID = 1;

/** The socket of `WAYLAND_DISPLAY` (a name under `XDG_RUNTIME_DIR`, or an absolute path). */
export function waylandSocketPath(env: NodeJS.ProcessEnv): string | null {
  const display = env.WAYLAND_DISPLAY?.trim();
  if (!display) return null;
  if (isAbsolute(display)) return display;
  const runtime = env.XDG_RUNTIME_DIR?.trim();
  return runtime ? join(runtime, display) : null;
}

function encodeArgs(args: readonly WireArg[]): Buffer {
  const parts: Buffer[] = [];
  for (const arg of args) {
    if ('string' in arg) {
      const text = Buffer.from(`${arg.string}\0`, 'utf8');
      const padded = Buffer.alloc(4 + Math.ceil(text.length / 4) * 4);
      padded.writeUInt32LE(text.length, 0);
      text.copy(padded, 4);
      parts.push(padded);
    } else {
      const word = Buffer.alloc(4);
      if ('uint' in arg) word.writeUInt32LE(arg.uint >>> 0, 0);
      else word.writeInt32LE(arg.int | 0, 0);
      parts.push(word);
    }
  }
  return Buffer.concat(parts);
}

/** A string argument at `offset` of an event's payload, and where the next argument starts. */
function readString(payload: Buffer, offset: number): { text: string; next: number } {
  const length = payload.readUInt32LE(offset);
  const text = payload.toString('utf8', offset + 4, offset + 4 + Math.max(0, length - 1));
  return { text, next: offset + 4 + Math.ceil(length / 4) * 4 };
}

/** A connection to a Wayland compositor; requests are written at once, events read as they come. */
export class WaylandConnection {
  readonly #socket: Socket;
  readonly globals = new Map<string, WaylandGlobal>();
  #nextId = 2;
  #buffer = Buffer.alloc(0);
  #error: Error | null = null;
  readonly #callbacks = new Map<number, () => void>();
  readonly #registry: number;

  private constructor(socket: Socket) {
    this.#socket = socket;
    socket.on('data', (chunk: Buffer) => this.#onData(chunk));
    socket.on('error', (error) => this.#fail(error));
    socket.on('close', () => this.#fail(new Error('the compositor closed the connection')));
    this.#registry = this.newId();
    this.request(DISPLAY_ID, 1, [{ uint: this.#registry }]); // wl_display.get_registry
  }

  /** Connects and reads the globals; rejects with {@link DesktopFailureError} when it cannot. */
  static async open(path: string): Promise<WaylandConnection> {
    const socket = await new Promise<Socket>((resolve, reject) => {
      const s = connect({ path });
      s.once('connect', () => resolve(s));
      s.once('error', (error) =>
        reject(
          new DesktopFailureError(`cannot connect to the Wayland compositor at ${path}: ${error.message}`, {
            cause: error,
          }),
        ),
      );
    });
    const connection = new WaylandConnection(socket);
    await connection.roundtrip();
    return connection;
  }

  newId(): number {
    const id = this.#nextId;
    this.#nextId += 1;
    return id;
  }

  /** Sends request `opcode` of object `id`. */
  request(id: number, opcode: number, args: readonly WireArg[] = []): void {
    if (this.#error) throw this.#error;
    const body = encodeArgs(args);
    const header = Buffer.alloc(8);
    header.writeUInt32LE(id, 0);
    header.writeUInt32LE(((8 + body.length) << 16) | opcode, 4);
    this.#socket.write(Buffer.concat([header, body]));
  }

  /** Binds global `iface` at `version` (at most what the compositor has); returns the new object's id. */
  bind(iface: string, version: number): number {
    const global = this.globals.get(iface);
    if (!global) throw new DesktopFailureError(`the compositor has no ${iface}`);
    const id = this.newId();
    this.request(this.#registry, 0, [
      { uint: global.name },
      { string: iface },
      { uint: Math.min(version, global.version) },
      { uint: id },
    ]);
    return id;
  }

  /** Resolves once the compositor has handled every request sent before it (wl_display.sync). */
  roundtrip(): Promise<void> {
    if (this.#error) return Promise.reject(this.#error);
    return new Promise((resolve, reject) => {
      const id = this.newId();
      const onClose = () => reject(this.#error);
      this.#socket.once('close', onClose);
      this.#callbacks.set(id, () => {
        this.#socket.off('close', onClose);
        resolve();
      });
      this.request(DISPLAY_ID, 0, [{ uint: id }]);
    });
  }

  close(): void {
    this.#socket.destroy();
  }

  #fail(error: Error): void {
    this.#error ??= new DesktopFailureError(`Wayland connection failed: ${error.message}`, { cause: error });
  }

  #onData(chunk: Buffer): void {
    this.#buffer = Buffer.concat([this.#buffer, chunk]);
    while (this.#buffer.length >= 8) {
      const id = this.#buffer.readUInt32LE(0);
      const word = this.#buffer.readUInt32LE(4);
      const size = word >>> 16;
      if (size < 8 || this.#buffer.length < size) break;
      this.#onEvent(id, word & 0xffff, this.#buffer.subarray(8, size));
      this.#buffer = this.#buffer.subarray(size);
    }
  }

  #onEvent(id: number, opcode: number, payload: Buffer): void {
    if (id === DISPLAY_ID && opcode === 0) {
      // wl_display.error(object, code, message)
      const { text } = readString(payload, 8);
      this.#fail(
        new Error(`protocol error ${payload.readUInt32LE(4)} on object ${payload.readUInt32LE(0)}: ${text}`),
      );
      this.#socket.destroy();
      return;
    }
    if (id === this.#registry && opcode === 0) {
      // wl_registry.global(name, interface, version)
      const { text, next } = readString(payload, 4);
      this.globals.set(text, {
        name: payload.readUInt32LE(0),
        interface: text,
        version: payload.readUInt32LE(next),
      });
      return;
    }
    const done = this.#callbacks.get(id);
    if (done && opcode === 0) {
      this.#callbacks.delete(id);
      done();
    }
  }
}
