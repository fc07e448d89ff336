/**
 * sway's IPC (the i3 IPC protocol: `i3-ipc`, a 32-bit length and type, then JSON, over the Unix
 * socket `SWAYSOCK` names): commands, the window tree and binding events. Root may use the socket of
 * a sway run by another user (the socket's mode lets it; sway checks no credentials).
 */
import { connect, type Socket } from 'node:net';
import { DesktopFailureError } from './errors.ts';

const MAGIC = Buffer.from('i3-ipc', 'ascii');
const HEADER = MAGIC.length + 8;
/** Event messages have the high bit of their type set. */
const EVENT_BIT = 0x8000_0000;

export const IPC = { command: 0, subscribe: 2, outputs: 3, tree: 4, version: 7, inputs: 100 } as const;

/** A rectangle in the output layout, logical pixels. */
export interface SwayRect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** An app window (a sway "view"), native Wayland or XWayland. */
export interface SwayWindow {
  /** sway's container id. */
  id: number;
  title: string;
  /** The Wayland app id, or null for an XWayland window. */
  appId: string | null;
  /** The app id, or the X11 class and instance of an XWayland window. */
  classes: string[];
  pid: number | null;
  /** Where the window's content is in the layout (the container's rect plus its window_rect). */
  rect: SwayRect;
  focused: boolean;
  visible: boolean;
  shell: string;
}

export interface SwayOutput {
  name: string;
  active: boolean;
  scale: number;
  rect: SwayRect;
}

interface TreeNode {
  id: number;
  name?: string | null;
  type?: string;
  app_id?: string | null;
  pid?: number;
  rect: SwayRect;
  window_rect?: SwayRect;
  focused?: boolean;
  visible?: boolean;
  shell?: string;
  window_properties?: { class?: string; instance?: string };
  nodes?: TreeNode[];
  floating_nodes?: TreeNode[];
}

/** One connection to sway; requests go one at a time, events go to `onEvent`. */
export class SwayIpc {
  readonly #socket: Socket;
  #buffer = Buffer.alloc(0);
  #queue: Promise<unknown> = Promise.resolve();
  #waiting: ((payload: unknown) => void) | undefined;
  #error: Error | null = null;
  onEvent: ((type: number, payload: unknown) => void) | undefined;

  private constructor(socket: Socket) {
    this.#socket = socket;
    socket.on('data', (chunk: Buffer) => this.#onData(chunk));
    socket.on('error', (error) => {
      this.#error ??= error;
    });
    socket.on('close', () => {
      this.#error ??= new Error('sway closed the IPC connection');
    });
  }

  static async open(path: string): Promise<SwayIpc> {
    const socket = await new Promise<Socket>((resolve, reject) => {
      const s = connect({ path });
      s.once('connect', () => resolve(s));
      s.once('error', (error) =>
        reject(
          new DesktopFailureError(`cannot connect to sway's IPC socket ${path}: ${error.message}`, {
            cause: error,
          }),
        ),
      );
    });
    return new SwayIpc(socket);
  }

  /** Sends a message of `type` and resolves its reply (parsed JSON). */
  request<T>(type: number, payload = ''): Promise<T> {
    const result = this.#queue.then(
      () =>
        new Promise<T>((resolve, reject) => {
          if (this.#error) {
            reject(
              new DesktopFailureError(`sway IPC failed: ${this.#error.message}`, { cause: this.#error }),
            );
            return;
          }
          const body = Buffer.from(payload, 'utf8');
          const header = Buffer.alloc(HEADER);
          MAGIC.copy(header, 0);
          header.writeUInt32LE(body.length, MAGIC.length);
          header.writeUInt32LE(type, MAGIC.length + 4);
          const onClose = () => reject(new DesktopFailureError('sway closed the IPC connection'));
          this.#socket.once('close', onClose);
          this.#waiting = (reply) => {
            this.#socket.off('close', onClose);
            resolve(reply as T);
          };
          this.#socket.write(Buffer.concat([header, body]));
        }),
    );
    this.#queue = result.catch(() => undefined);
    return result;
  }

  /** Runs sway commands; throws {@link DesktopFailureError} with sway's reason when one fails. */
  async command(text: string): Promise<void> {
    const replies = await this.request<Array<{ success: boolean; error?: string }>>(IPC.command, text);
    const failed = replies.find((reply) => !reply.success);
    if (failed)
      throw new DesktopFailureError(`sway refused \`${text}\`: ${failed.error ?? 'no reason given'}`);
  }

  /** The app windows of the tree, in tree order. */
  async windows(): Promise<SwayWindow[]> {
    return flattenWindows(await this.request<TreeNode>(IPC.tree));
  }

  async outputs(): Promise<SwayOutput[]> {
    return this.request<SwayOutput[]>(IPC.outputs);
  }

  /** How many keyboards the seats have now (physical and virtual). */
  async keyboards(): Promise<number> {
    const inputs = await this.request<Array<{ type?: string }>>(IPC.inputs);
    return inputs.filter((input) => input.type === 'keyboard').length;
  }

  close(): void {
    this.#socket.destroy();
  }

  #onData(chunk: Buffer): void {
    this.#buffer = Buffer.concat([this.#buffer, chunk]);
    while (this.#buffer.length >= HEADER) {
      const length = this.#buffer.readUInt32LE(MAGIC.length);
      const type = this.#buffer.readUInt32LE(MAGIC.length + 4);
      if (this.#buffer.length < HEADER + length) return;
      const payload: unknown = JSON.parse(this.#buffer.toString('utf8', HEADER, HEADER + length));
      this.#buffer = this.#buffer.subarray(HEADER + length);
      if (type & EVENT_BIT) {
        this.onEvent?.(type & ~EVENT_BIT, payload);
      } else {
        const waiting = this.#waiting;
        this.#waiting = undefined;
        waiting?.(payload);
      }
    }
  }
}

/**
 * The names a native window's app id stands for: itself and, for a reverse-DNS one, its last part
 * (`org.xfce.mousepad`: `mousepad`), the program name X11 knows the same app by (its WM_CLASS).
 */
export function appIdNames(appId: string): string[] {
  const last = appId.includes('.') ? appId.slice(appId.lastIndexOf('.') + 1) : '';
  return last ? [appId, last] : [appId];
}

/** The views of a sway tree (nodes with a pid), tiled and floating. */
export function flattenWindows(root: TreeNode): SwayWindow[] {
  const windows: SwayWindow[] = [];
  const walk = (node: TreeNode) => {
    if (typeof node.pid === 'number' && (node.type === 'con' || node.type === 'floating_con')) {
      const inner = node.window_rect ?? { x: 0, y: 0, width: node.rect.width, height: node.rect.height };
      const x11 = node.window_properties;
      windows.push({
        id: node.id,
        title: node.name ?? '',
        appId: node.app_id ?? null,
        classes: node.app_id
          ? appIdNames(node.app_id)
          : [x11?.instance, x11?.class].filter((c): c is string => !!c),
        pid: node.pid,
        rect: {
          x: node.rect.x + inner.x,
          y: node.rect.y + inner.y,
          width: inner.width,
          height: inner.height,
        },
        focused: node.focused === true,
        visible: node.visible !== false,
        shell: node.shell ?? 'unknown',
      });
    }
    for (const child of [...(node.nodes ?? []), ...(node.floating_nodes ?? [])]) walk(child);
  };
  walk(root);
  return windows;
}
