import sharp from 'sharp';

/** An image as 8-bit RGBA pixels, row by row, no padding. Coordinates are its own pixels. */
export interface RgbaImage {
  readonly width: number;
  readonly height: number;
  readonly data: Uint8Array;
}

/** A box in an image's pixels. */
export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** Whether this machine stores a word's low byte first (every platform mime runs on does). */
const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/**
 * 4-byte pixels as 32-bit words (one a pixel), for comparing two pixels in one step; null when the
 * buffer does not start on a 4-byte boundary.
 */
export function pixelWords(data: Uint8Array): Uint32Array | null {
  return data.byteOffset % 4 === 0 ? new Uint32Array(data.buffer, data.byteOffset, data.length >> 2) : null;
}

/**
 * Tells whether a row holds the same bytes in two images of one size: compared natively (memcmp), so
 * the many rows a change does not touch cost next to nothing, even before the JIT warms up.
 */
export function rowsAlike(a: RgbaImage, b: RgbaImage): (y: number) => boolean {
  const left = bytesOf(a.data);
  const right = bytesOf(b.data);
  const row = a.width * 4;
  return (y) => left.compare(right, y * row, (y + 1) * row, y * row, (y + 1) * row) === 0;
}

/** The bytes as a Buffer, without a copy. */
function bytesOf(data: Uint8Array): Buffer {
  return Buffer.isBuffer(data) ? data : Buffer.from(data.buffer, data.byteOffset, data.length);
}

/** Decodes a PNG (or any image sharp reads) into RGBA. */
export async function decodeImage(input: Buffer | string): Promise<RgbaImage> {
  const { data, info } = await sharp(input).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return { width: info.width, height: info.height, data };
}

/**
 * Wraps raw 4-byte pixels (a screen capture) as RGBA, swapping BGRA and dropping row padding.
 * `stride` is the bytes from one row to the next.
 */
export function rgbaFromPixels(
  pixels: Uint8Array,
  width: number,
  height: number,
  options: { channelOrder: 'bgra' | 'rgba'; stride?: number },
): RgbaImage {
  const stride = options.stride ?? width * 4;
  if (options.channelOrder === 'rgba' && stride === width * 4) return { width, height, data: pixels };
  const out = new Uint8Array(width * height * 4);
  const words = LITTLE_ENDIAN && stride % 4 === 0 ? pixelWords(pixels) : null;
  if (words) {
    // A word at a time: [b, g, r, a] or [r, g, b, a] in, [r, g, b, 255] out.
    const swap = options.channelOrder === 'bgra';
    const to = new Uint32Array(out.buffer);
    const rowWords = stride / 4;
    for (let y = 0; y < height; y += 1) {
      let i = y * rowWords;
      const end = (y + 1) * width;
      for (let o = y * width; o < end; o += 1, i += 1) {
        const w = words[i] as number;
        to[o] = swap ? 0xff000000 | ((w & 0xff) << 16) | (w & 0xff00) | ((w >>> 16) & 0xff) : w | 0xff000000;
      }
    }
    return { width, height, data: out };
  }
  const [r, b] = options.channelOrder === 'bgra' ? [2, 0] : [0, 2];
  for (let y = 0; y < height; y += 1) {
    let i = y * stride;
    let o = y * width * 4;
    for (let x = 0; x < width; x += 1, i += 4, o += 4) {
      out[o] = pixels[i + r] ?? 0;
      out[o + 1] = pixels[i + 1] ?? 0;
      out[o + 2] = pixels[i + b] ?? 0;
      out[o + 3] = 255;
    }
  }
  return { width, height, data: out };
}

/** The box moved inside the image (and shrunk if it is larger). */
export function clampBox(box: Box, image: { width: number; height: number }): Box {
  const width = Math.max(1, Math.min(Math.round(box.width), image.width));
  const height = Math.max(1, Math.min(Math.round(box.height), image.height));
  return {
    x: Math.max(0, Math.min(Math.round(box.x), image.width - width)),
    y: Math.max(0, Math.min(Math.round(box.y), image.height - height)),
    width,
    height,
  };
}

/** A copy of the pixels inside a box (clamped to the image). */
export function crop(image: RgbaImage, box: Box): RgbaImage {
  const b = clampBox(box, image);
  const out = new Uint8Array(b.width * b.height * 4);
  for (let y = 0; y < b.height; y += 1) {
    const from = ((b.y + y) * image.width + b.x) * 4;
    out.set(image.data.subarray(from, from + b.width * 4), y * b.width * 4);
  }
  return { width: b.width, height: b.height, data: out };
}

/** Encodes an image as PNG (for divergence crops in a run folder). */
export function encodeImage(image: RgbaImage): Promise<Buffer> {
  return sharp(image.data, { raw: { width: image.width, height: image.height, channels: 4 } })
    .png({ compressionLevel: 1 })
    .toBuffer();
}

/** The most common grey of an image (its ground), 0..255, in buckets of 16. */
function groundGrey(greys: Float32Array): number {
  const histogram = new Uint32Array(16);
  for (const grey of greys) {
    const bucket = Math.min(15, Math.floor(grey / 16));
    histogram[bucket] = (histogram[bucket] ?? 0) + 1;
  }
  return histogram.indexOf(Math.max(...histogram)) * 16 + 8;
}

/**
 * Paints over the long straight lines of a crop (a field's frame, a table rule) with its ground:
 * tesseract reads no text inside a frame. Runs of ink longer than 40 px across, or taller than most
 * of the crop, are lines; the strokes of screen text are not.
 */
function eraseLines(greys: Float32Array, width: number, height: number, ground: number): void {
  const ink = (i: number) => Math.abs((greys[i] ?? ground) - ground) > 50;
  const erase = [
    ...longRuns(height, width, 40, (line, k) => ink(line * width + k), (line, k) => line * width + k),
    ...longRuns(width, height, Math.max(24, Math.round(height * 0.6)), (line, k) => ink(k * width + line), (line, k) => k * width + line),
  ]; // biome-ignore format: rows, then columns
  for (const i of erase) greys[i] = ground;
}

/** The pixels of runs of ink at least `long` along each of `lines` lines of `length` pixels. */
function longRuns(
  lines: number,
  length: number,
  long: number,
  ink: (line: number, k: number) => boolean,
  index: (line: number, k: number) => number,
): number[] {
  const found: number[] = [];
  for (let line = 0; line < lines; line += 1) {
    let start = -1;
    for (let k = 0; k <= length; k += 1) {
      const on = k < length && ink(line, k);
      if (on && start < 0) start = k;
      if (on || start < 0) continue;
      if (k - start >= long) for (let j = start; j < k; j += 1) found.push(index(line, j));
      start = -1;
    }
  }
  return found;
}

/**
 * A crop as OCR reads it best: grey, dark text on a light ground (a dark theme is inverted), the
 * frames around fields erased, at its own size (tesseract misreads screen text enlarged with smoothing).
 */
export async function encodeForOcr(image: RgbaImage): Promise<Buffer> {
  const { width, height, data } = image;
  const greys = new Float32Array(width * height);
  for (let i = 0; i < greys.length; i += 1) {
    greys[i] = (data[i * 4] ?? 0) * 0.3 + (data[i * 4 + 1] ?? 0) * 0.59 + (data[i * 4 + 2] ?? 0) * 0.11;
  }
  const ground = groundGrey(greys);
  eraseLines(greys, width, height, ground);
  const dark = ground < 128;
  const out = Buffer.alloc(width * height);
  for (let i = 0; i < greys.length; i += 1) {
    const grey = Math.round(greys[i] ?? 0);
    out[i] = dark ? 255 - grey : grey;
  }
  return sharp(out, { raw: { width, height, channels: 1 } })
    .png({ compressionLevel: 1 })
    .toBuffer();
}
