/**
 * The part of node-x11 (pure JavaScript, no typings of its own) mime uses: one client connection to
 * an X display, its requests with their replies, and its events. x-keyboard.ts and x-windows.ts
 * each hold a connection of their own.
 */
import { createRequire } from 'node:module';

/** A request's reply callback: `error` set (BadWindow and the like) when there is no reply. */
export type Reply<T> = (error: unknown, reply: T) => unknown;

export interface XEvent {
  name?: string;
  /** `MappingNotify`: what changed. */
  request?: number;
  /** `ClientMessage`: its type and 32-bit data. */
  message_type?: number;
  data?: number[];
}

export interface XTestExtension {
  FakeInput(type: number, keycode: number, time: number, window: number, x: number, y: number): void;
  KeyPress: number;
  KeyRelease: number;
}

export interface XClient {
  GetKeyboardMapping(first: number, count: number, callback: Reply<number[][]>): void;
  ChangeKeyboardMapping(first: number, perKeycode: number, keysyms: number[]): void;
  GetInputFocus(callback: Reply<{ focus: number }>): void;
  QueryPointer(window: number, callback: Reply<{ child: number; rootX: number; rootY: number }>): void;
  QueryTree(window: number, callback: Reply<{ parent: number; children: number[] }>): void;
  GetWindowAttributes(window: number, callback: Reply<{ mapState: number }>): void;
  InternAtom(onlyIfExists: boolean, name: string, callback: Reply<number>): void;
  GetProperty(
    remove: number,
    window: number,
    property: number,
    type: number,
    longOffset: number,
    longLength: number,
    callback: Reply<{ type: number; data: Buffer }>,
  ): void;
  ChangeWindowAttributes(window: number, values: { eventMask: number }): void;
  SendClientMessage(
    destination: number,
    window: number,
    messageType: number,
    format: 32,
    data: number[],
    eventMask: number,
  ): void;
  require(name: 'xtest', callback: Reply<XTestExtension>): void;
  on(event: 'event', listener: (event: XEvent) => void): void;
  on(event: 'error' | 'end', listener: (error?: unknown) => void): void;
  close(callback?: () => void): void;
  stream?: { ref?: () => void; unref?: () => void };
}

/** A connection and what the server told of itself when it opened. */
export interface XDisplay {
  client: XClient;
  min_keycode: number;
  max_keycode: number;
  screen: { root: number }[];
}

interface X11Module {
  createClient(options: { display?: string }, callback: (error: unknown, display: XDisplay) => void): void;
}

/**
 * Connects to `display` (default `$DISPLAY`); rejects with node-x11's error when it cannot, also
 * where node-x11 throws instead of calling back.
 */
export function connectX11(display?: string): Promise<XDisplay> {
  const x11 = createRequire(import.meta.url)('x11') as X11Module;
  return new Promise((resolve, reject) => {
    try {
      x11.createClient(display ? { display } : {}, (error, info) => (error ? reject(error) : resolve(info)));
    } catch (error) {
      reject(error);
    }
  });
}
