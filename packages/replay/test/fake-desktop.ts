/**
 * An in-memory Desktop for loop tests: frames are a solid colour that changes when `react` says an
 * action changed the screen, with the lines of text `shows` gives for the inputs so far (drawn, so
 * OCR reads them); every input is logged as text.
 */

import {
  AbortedError,
  type Accessibility,
  type Desktop,
  type FoundWindow,
  type LogicalPoint,
  type RawFrame,
} from '@mime-desktop/os-io';
import sharp from 'sharp';

/** Where the fake desktop draws line `k` of the text `shows` gives (before an `offset`): its left and baseline. */
export const textLine = (k: number) => ({ x: 8, baseline: 24 + 22 * k });

/** The one app window of the fake desktop, over the whole screen. */
export const FAKE_APP_WINDOW: FoundWindow = { id: '1', title: 'Fake app', classes: ['fake-app', 'Fake-app'] };

export interface FakeDesktop extends Desktop {
  /** Inputs received, e.g. `click left 640,400 x1`, `type Faint`, `key enter`. */
  readonly inputs: string[];
  /** Fires the fail-safe as if the pointer hit a corner. */
  failSafe(): void;
}

export function createFakeDesktop(
  options: {
    width?: number;
    height?: number;
    react?: (input: string) => boolean;
    /** The window under a point. Default: the fake app's, everywhere. */
    windowAt?: (point: LogicalPoint) => FoundWindow | null;
    /** The window with the keyboard focus. Default: the fake app's. */
    focusedWindow?: () => FoundWindow | null;
    /** Lines of text the screen shows after these inputs. Default: none. */
    shows?: (inputs: readonly string[]) => readonly string[];
    /** Where the text is drawn, moved from its place (see textLine), as a moved window shows it. Default none. */
    offset?: { dx: number; dy: number };
    /** The accessibility tree of the apps. Default none (null). */
    accessibility?: Accessibility;
  } = {},
): FakeDesktop {
  const { width = 320, height = 200, offset = { dx: 0, dy: 0 } } = options;
  const react = options.react ?? (() => true);
  const controller = new AbortController();
  const inputs: string[] = [];
  let version = 0;
  const record = async (input: string) => {
    controller.signal.throwIfAborted();
    inputs.push(input);
    if (react(input)) version += 1;
  };
  const drawn = new Map<string, Promise<Buffer>>();
  /** The frame's BGRA pixels: the background's colour, and the lines (each frame drawn once). */
  const pixels = (lines: readonly string[]): Promise<Buffer> => {
    const key = `${version}\n${lines.join('\n')}`;
    let data = drawn.get(key);
    if (!data) {
      // Blue varies with the version: BGRA's first byte, as a plain frame has it.
      const fill = `rgb(255,255,${(version * 40) % 256})`;
      const text = lines.map(
        (line, k) =>
          `<text x="${textLine(k).x + offset.dx}" y="${textLine(k).baseline + offset.dy}" font-family="DejaVu Sans, sans-serif" font-size="15">${line.replace(/[<&>]/g, '')}</text>`,
      );
      const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><rect width="100%" height="100%" fill="${fill}"/>${text.join('')}</svg>`;
      data = sharp(Buffer.from(svg))
        .ensureAlpha()
        .raw()
        .toBuffer()
        .then((rgba) => {
          for (let i = 0; i < rgba.length; i += 4) [rgba[i], rgba[i + 2]] = [rgba[i + 2] ?? 0, rgba[i] ?? 0];
          return rgba;
        });
      drawn.set(key, data);
    }
    return data;
  };
  const captureFrame = async (): Promise<RawFrame> => {
    const lines = options.shows?.(inputs) ?? [];
    let data = Buffer.alloc(width * height * 4, 255);
    if (lines.length > 0) data = Buffer.from(await pixels(lines));
    else for (let i = 0; i < data.length; i += 4) data[i] = (version * 40) % 256;
    return {
      data,
      channelOrder: 'bgra',
      stride: width * 4,
      physical: { width, height },
      logical: { width, height },
      scale: 1,
      time: Date.now(),
    };
  };
  const unsupported = () => {
    throw new Error('not in the fake desktop');
  };
  return {
    inputs,
    failSafe: () => controller.abort(new AbortedError('corner', 'the pointer hit a screen corner')),
    display: {
      platform: 'linux',
      sessionType: 'x11',
      display: ':fake',
      waylandDisplay: null,
      compositor: null,
      adapter: 'x11',
      endpoint: null,
      reachable: true,
      problem: null,
      limitations: [],
    },
    screen: { logical: { width, height }, physical: { width, height }, scale: 1 },
    signal: controller.signal,
    abortHotkey: null,
    captureFrame,
    createFrameRing: unsupported,
    pointerPosition: async () => ({ x: 0, y: 0 }),
    movePointer: (p) => record(`move ${p.x},${p.y}`),
    click: (p, o) => record(`click ${o?.button ?? 'left'} ${p.x},${p.y} x${o?.clicks ?? 1}`),
    drag: (a, b) => record(`drag ${a.x},${a.y} ${b.x},${b.y}`),
    scroll: (d, n) => record(`scroll ${d} ${n}`),
    pressKey: (chord) => record(`key ${String(chord)}`),
    typeText: (text) => record(`type ${text}`),
    readClipboard: unsupported,
    startHooks: unsupported,
    watchHotkey: unsupported,
    activeWindow: async () => null,
    windowAt: async (point) => (options.windowAt ? options.windowAt(point) : FAKE_APP_WINDOW),
    windows: async () => [{ ...FAKE_APP_WINDOW, box: { x: 0, y: 0, width, height } }],
    focusedWindow: async () => (options.focusedWindow ? options.focusedWindow() : FAKE_APP_WINDOW),
    accessibility: async () => options.accessibility ?? null,
    close: async () => undefined,
  };
}
