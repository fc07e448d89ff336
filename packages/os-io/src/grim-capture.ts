/**
 * Screen capture on wlroots compositors: `grim -t ppm -` (wlr-screencopy; about 35 ms a 1280x800
 * frame, half of what its PNG output takes), decoded from binary PPM into a {@link RawFrame}.
 */
import { execFile } from 'node:child_process';
import type { RawFrame } from './capture.ts';
import { DesktopFailureError } from './errors.ts';
import { epochNow } from './time.ts';

/** Decodes a binary PPM (P6, 8 bits a channel) into opaque RGBA pixels. */
export function decodePpm(data: Buffer): { width: number; height: number; rgba: Buffer } {
  // Header: "P6", width, height, maxval, each after whitespace (comments start with #), then one whitespace byte.
  const fields: string[] = [];
  let offset = 0;
  while (fields.length < 4 && offset < data.length) {
    const byte = data[offset] as number;
    if (byte === 0x23) {
      while (offset < data.length && data[offset] !== 0x0a) offset += 1;
    } else if (byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09) {
      offset += 1;
    } else {
      const start = offset;
      while (offset < data.length && ![0x20, 0x0a, 0x0d, 0x09].includes(data[offset] as number)) offset += 1;
      fields.push(data.toString('ascii', start, offset));
    }
  }
  const [magic, w, h, max] = fields;
  const width = Number(w);
  const height = Number(h);
  if (magic !== 'P6' || max !== '255' || !(width > 0 && height > 0)) {
    throw new DesktopFailureError(`grim gave no 8-bit binary PPM image (header ${JSON.stringify(fields)})`);
  }
  offset += 1;
  if (data.length - offset < width * height * 3) {
    throw new DesktopFailureError(
      `grim's PPM image is cut short (${data.length - offset} of ${width * height * 3} bytes)`,
    );
  }
  const rgba = Buffer.allocUnsafe(width * height * 4);
  for (let i = offset, o = 0; o < rgba.length; i += 3, o += 4) {
    rgba[o] = data[i] as number;
    rgba[o + 1] = data[i + 1] as number;
    rgba[o + 2] = data[i + 2] as number;
    rgba[o + 3] = 255;
  }
  return { width, height, rgba };
}

/**
 * Grabs the whole output layout with grim; `scale` is the outputs' scale (physical per logical pixel).
 * Throws {@link DesktopFailureError} when grim is missing or fails.
 */
export function grimCapture(env: NodeJS.ProcessEnv, scale: number): Promise<RawFrame> {
  return new Promise((resolve, reject) => {
    execFile(
      'grim',
      ['-t', 'ppm', '-'],
      { env, encoding: 'buffer', maxBuffer: 256 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error) {
          const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
          reject(
            new DesktopFailureError(
              missing
                ? 'screen capture on a wlroots compositor needs grim: install it (./setup.sh does; apt install grim)'
                : `grim could not capture the screen: ${stderr.toString().trim() || error.message}`,
              { cause: error },
            ),
          );
          return;
        }
        try {
          const time = epochNow();
          const { width, height, rgba } = decodePpm(stdout);
          resolve({
            data: rgba,
            channelOrder: 'rgba',
            stride: width * 4,
            physical: { width, height },
            logical: { width: Math.round(width / scale), height: Math.round(height / scale) },
            scale,
            time,
          });
        } catch (decodeError) {
          reject(decodeError);
        }
      },
    );
  });
}
