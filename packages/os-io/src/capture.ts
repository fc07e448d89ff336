/**
 * Screen capture: raw frames in about 10 ms through nut-js `screen.grab()` (XGetImage on X11), and
 * PNG encoding with sharp, off the hot path.
 *
 * Channel order: nut-js hands out the screen buffer as it is, BGRA on X11, macOS and Windows (its
 * `ColorMode.BGR`), with an alpha byte that is often 0. {@link captureFrame} keeps that order (no copy,
 * no conversion while recording) and only forces alpha to 255; `channelOrder` says which order a frame
 * holds. {@link encodePng} swaps to RGB while it repacks the pixels for sharp, which reads RGB(A).
 */
import sharp from 'sharp';
import { DesktopFailureError } from './errors.ts';
import { loadNut } from './native.ts';
import { epochNow } from './time.ts';
import type { LogicalSize, PhysicalSize } from './units.ts';

/** One screen image as captured: physical pixels, 4 bytes each, opaque. */
export interface RawFrame {
  /** Pixels row by row from the top-left, `stride` bytes a row, in `channelOrder`; alpha is 255. Do not modify. */
  readonly data: Buffer;
  /** Byte order of each pixel: `bgra` from nut-js on every platform today. */
  readonly channelOrder: 'bgra' | 'rgba';
  /** Bytes from one row to the next (at least `physical.width * 4`). */
  readonly stride: number;
  /** Size of the image in physical pixels. */
  readonly physical: PhysicalSize;
  /** Size of the screen in logical pixels: the space of input, hooks and saved screenshots. */
  readonly logical: LogicalSize;
  /** Physical pixels per logical pixel (1 on X11). */
  readonly scale: number;
  /** When the grab finished, epoch ms on the {@link epochNow} clock: the pixels are no newer than this. */
  readonly time: number;
}

/** Sets every alpha byte to 255 (the X server leaves it 0), in place. */
function forceOpaque(data: Buffer): void {
  if (data.byteOffset % 4 === 0 && data.length % 4 === 0) {
    // Little-endian BGRA/RGBA: alpha is the top byte of each 32-bit pixel.
    const pixels = new Uint32Array(data.buffer, data.byteOffset, data.length / 4);
    for (let i = 0; i < pixels.length; i += 1) pixels[i] = (pixels[i] ?? 0) | 0xff000000;
    return;
  }
  for (let i = 3; i < data.length; i += 4) data[i] = 255;
}

/**
 * A grabbed frame. Forcing alpha costs about 4 ms at 1080p, so it happens on first access to `data`:
 * frames a ring drops unread never pay it.
 */
class GrabbedFrame implements RawFrame {
  readonly channelOrder: 'bgra' | 'rgba';
  readonly stride: number;
  readonly physical: PhysicalSize;
  readonly logical: LogicalSize;
  readonly scale: number;
  readonly time: number;
  readonly #pixels: Buffer;
  #opaque = false;

  constructor(pixels: Buffer, fields: Omit<RawFrame, 'data'>) {
    this.#pixels = pixels;
    this.channelOrder = fields.channelOrder;
    this.stride = fields.stride;
    this.physical = fields.physical;
    this.logical = fields.logical;
    this.scale = fields.scale;
    this.time = fields.time;
  }

  get data(): Buffer {
    if (!this.#opaque) {
      forceOpaque(this.#pixels);
      this.#opaque = true;
    }
    return this.#pixels;
  }
}

/**
 * Grabs the whole primary screen. Loads nut-js (after the display probe) on first use. The grab
 * itself is a synchronous native call: it holds the event loop for its ~10 ms.
 */
export async function captureFrame(): Promise<RawFrame> {
  const nut = await loadNut();
  let image: Awaited<ReturnType<typeof nut.screen.grab>>;
  try {
    image = await nut.screen.grab();
  } catch (error) {
    throw new DesktopFailureError(`screen capture failed: ${String(error)}`, { cause: error });
  }
  const time = epochNow();
  const scale = image.pixelDensity.scaleX || 1;
  return new GrabbedFrame(image.data, {
    channelOrder: image.colorMode === nut.ColorMode.RGB ? 'rgba' : 'bgra',
    stride: image.byteWidth,
    physical: { width: image.width, height: image.height },
    logical: { width: Math.round(image.width / scale), height: Math.round(image.height / scale) },
    scale,
    time,
  });
}

/** Packed RGB bytes (3 a pixel, no row padding) of a frame, in a new buffer. */
export function frameToRgb(frame: RawFrame): Buffer {
  const { width, height } = frame.physical;
  const data = frame.data;
  const out = Buffer.allocUnsafe(width * height * 3);
  const [r, b] = frame.channelOrder === 'bgra' ? [2, 0] : [0, 2];
  let o = 0;
  for (let y = 0; y < height; y += 1) {
    let i = y * frame.stride;
    for (let x = 0; x < width; x += 1, i += 4, o += 3) {
      out[o] = data[i + r] ?? 0;
      out[o + 1] = data[i + 1] ?? 0;
      out[o + 2] = data[i + b] ?? 0;
    }
  }
  return out;
}

export interface EncodePngOptions {
  /** zlib level 0-9: 1 encodes 1080p in about 15 ms, 6 (sharp's default) about 45 ms, for a few % less size. Default 1. */
  compressionLevel?: number;
  /** `logical` scales HiDPI frames down to the logical size that coordinates use; `physical` keeps every pixel. Default `logical`. */
  size?: 'logical' | 'physical';
}

/** Encodes a frame as an opaque RGB PNG (alpha dropped); async, runs sharp off the main thread. */
export async function encodePng(frame: RawFrame, options: EncodePngOptions = {}): Promise<Buffer> {
  const { compressionLevel = 1, size = 'logical' } = options;
  const { width, height } = frame.physical;
  let image = sharp(frameToRgb(frame), { raw: { width, height, channels: 3 } });
  if (size === 'logical' && (frame.logical.width !== width || frame.logical.height !== height)) {
    image = image.resize(frame.logical.width, frame.logical.height, { fit: 'fill' });
  }
  return image.png({ compressionLevel, adaptiveFiltering: false }).toBuffer();
}
