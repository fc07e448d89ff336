/**
 * Screenshots and crops of a run as data URLs: scaled down to a maximum width and re-encoded as
 * lossless WebP (a fraction of the run's fast-compressed PNGs, every pixel kept).
 */
import { readPngInside, type Size } from '@mime-desktop/schema';
import sharp from 'sharp';

/** An image ready to inline. */
export interface EmbeddedImage {
  /** `data:image/webp;base64,...`. */
  src: string;
  /** The size of the file in the run folder, the space its coordinates are in. */
  original: Size;
  /** The size of the embedded image. */
  embedded: Size;
}

/**
 * Images encoded at once. One: two at once (each a lossless WebP of a 1280x800 frame) were the largest
 * part of a long-lived `mime mcp` server's peak memory (372 MB, 284 MB with one, same replays), and on
 * two busy cores a 5-step run's report took no longer with one (1.0-1.4 s against 1.2-1.8 s).
 */
const CONCURRENCY = 1;

async function embedImage(dir: string, name: string, maxWidth: number): Promise<EmbeddedImage | null> {
  try {
    // A path or link that leaves the folder, or a file that is not a bounded PNG, is refused like a missing file.
    const image = sharp(await readPngInside(dir, name, 'report image'));
    const { width, height } = await image.metadata();
    const { data, info } = await image
      .resize({ width: maxWidth, withoutEnlargement: true })
      .webp({ lossless: true, effort: 1 })
      .toBuffer({ resolveWithObject: true });
    return {
      src: `data:image/webp;base64,${data.toString('base64')}`,
      original: { width, height },
      embedded: { width: info.width, height: info.height },
    };
  } catch {
    // A damaged or half-written image is shown as missing, not a failed report.
    return null;
  }
}

/**
 * Embeds the named images of `dir` (paths inside it, e.g. `screenshots/0.png`). Missing and
 * unreadable images, and paths that leave the folder, are left out of the map.
 */
export async function embedImages(
  dir: string,
  names: Iterable<string>,
  maxWidth: number,
): Promise<Map<string, EmbeddedImage>> {
  const wanted = [...new Set(names)];
  const images = new Map<string, EmbeddedImage>();
  let next = 0;
  const worker = async () => {
    while (next < wanted.length) {
      const name = wanted[next++] as string;
      const image = await embedImage(dir, name, maxWidth);
      if (image) images.set(name, image);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return images;
}
