/**
 * Screenshots and crops of a run as data URLs: scaled down to a maximum width and re-encoded as
 * lossless WebP (a fraction of the run's fast-compressed PNGs, every pixel kept). Encoding is most of
 * a report's cost (~40 ms of CPU a 1280x800 frame), so each picture is encoded once: the same PNG
 * bytes under two names (a subtask's outcome screen and the final frame; a recorded frame the replay
 * saw again pixel for pixel) share one encoding, and a workflow's recorded frames, the same in every
 * report of its runs, are kept encoded in its `.cache/report/`.
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import {
  CHECKS_CACHE_FOLDER,
  MAX_IMAGE_BYTES,
  pngSize,
  readPngInside,
  readRegularFile,
  resolveInside,
  type Size,
  writeFileAtomically,
} from '@mime-desktop/schema';
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

/** One picture encoded for the page. */
interface Encoded {
  data: Buffer;
  size: Size;
  /** Read from the workflow's cache (so nothing is to be written there). */
  cached: boolean;
}

/**
 * Images one `embed` call encodes at once. One: two at once (each a lossless WebP of a 1280x800 frame) were the
 * largest part of a long-lived `mime mcp` server's peak memory (372 MB, 284 MB with one, same replays),
 * and on two busy cores a 5-step run's report took no longer with one (1.0-1.4 s against 1.2-1.8 s).
 */
const CONCURRENCY = 1;

/** The folder of `.cache` that holds encoded recorded frames. */
const REPORT_CACHE_FOLDER = 'report';

/** What an encoding depends on besides the PNG and the width: a new encoder or setting names new entries. */
const ENCODING = `webp lossless effort 1, libvips ${sharp.versions.vips}`;

/**
 * The images of one report. `workflowDir`: the folder of the run's workflow, whose recorded frames
 * are kept encoded in its `.cache/report/` (an entry named by the SHA-256 of the encoding, the width
 * and the PNG's bytes); null: nothing cached. The cache is only an aid: a folder that cannot be
 * written to gets its report, encoded each time.
 */
export class ReportImages {
  readonly #maxWidth: number;
  readonly #workflowDir: string | null;
  /** Each picture's encoding, by its key: asked for twice, encoded once. */
  readonly #encoded = new Map<string, Promise<Encoded | null>>();
  /** The pictures asked to be kept, by key: whether the cache holds it (read from it, or written). */
  readonly #kept = new Map<string, Promise<boolean>>();
  /** False once a write failed (a read-only folder, a full disk): nothing more is written. */
  #writable = true;

  constructor(maxWidth: number, workflowDir: string | null) {
    this.#maxWidth = maxWidth;
    this.#workflowDir = workflowDir;
  }

  /**
   * Embeds the named images of `dir` (paths inside it, e.g. `screenshots/0.png`); `keep`: they are
   * the workflow's recorded frames, kept encoded in its cache. Missing and unreadable images, and paths
   * that leave the folder, are left out of the map.
   */
  async embed(
    dir: string,
    names: Iterable<string>,
    { keep = false } = {},
  ): Promise<Map<string, EmbeddedImage>> {
    const wanted = [...new Set(names)];
    const images = new Map<string, EmbeddedImage>();
    let next = 0;
    const worker = async () => {
      while (next < wanted.length) {
        const name = wanted[next++] as string;
        const image = await this.#embedOne(dir, name, keep);
        if (image) images.set(name, image);
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    return images;
  }

  async #embedOne(dir: string, name: string, keep: boolean): Promise<EmbeddedImage | null> {
    // A path or link that leaves the folder, or a file that is not a bounded PNG, is refused like a missing file.
    const png = await readPngInside(dir, name, 'report image').catch(() => null);
    if (!png) return null;
    const original = pngSize(png);
    const key = createHash('sha256').update(`${ENCODING}\n${this.#maxWidth}\n`).update(png).digest('hex');
    let encoded = this.#encoded.get(key);
    if (!encoded) {
      encoded = this.#encode(png, original.width, key);
      this.#encoded.set(key, encoded);
    }
    const image = await encoded;
    // A damaged or half-written image is shown as missing, not a failed report.
    if (!image) return null;
    if (keep) await this.#keep(key, image);
    return {
      src: `data:image/webp;base64,${image.data.toString('base64')}`,
      original,
      embedded: image.size,
    };
  }

  async #encode(png: Buffer, width: number, key: string): Promise<Encoded | null> {
    const cached = await this.#cached(key, width);
    if (cached) return cached;
    try {
      const { data, info } = await sharp(png)
        .resize({ width: this.#maxWidth, withoutEnlargement: true })
        .webp({ lossless: true, effort: 1 })
        .toBuffer({ resolveWithObject: true });
      return { data, size: { width: info.width, height: info.height }, cached: false };
    } catch {
      return null;
    }
  }

  /** The cache's entry of `key`, or null: none, or not a WebP as wide as the picture is embedded. */
  async #cached(key: string, width: number): Promise<Encoded | null> {
    if (!this.#workflowDir) return null;
    try {
      const file = await resolveInside(this.#workflowDir, this.#entry(key), 'report image cache');
      const data = await readRegularFile(file, MAX_IMAGE_BYTES, 'report image cache');
      const meta = await sharp(data).metadata();
      if (meta.format !== 'webp' || meta.width !== Math.min(width, this.#maxWidth)) return null;
      return { data, size: { width: meta.width, height: meta.height }, cached: true };
    } catch {
      return null;
    }
  }

  /** How many of the pictures asked to be kept the workflow's cache holds. */
  async keptCount(): Promise<number> {
    return (await Promise.all(this.#kept.values())).filter(Boolean).length;
  }

  async #keep(key: string, image: Encoded): Promise<void> {
    if (!this.#workflowDir || this.#kept.has(key)) return;
    const kept = image.cached ? Promise.resolve(true) : this.#write(this.#workflowDir, key, image.data);
    this.#kept.set(key, kept);
    await kept;
  }

  async #write(workflowDir: string, key: string, data: Buffer): Promise<boolean> {
    if (!this.#writable) return false;
    try {
      await writeFileAtomically(join(workflowDir, this.#entry(key)), data, { inside: workflowDir });
      return true;
    } catch {
      // Not kept: the next report encodes it again.
      this.#writable = false;
      return false;
    }
  }

  #entry(key: string): string {
    return join(CHECKS_CACHE_FOLDER, REPORT_CACHE_FOLDER, `${key}.webp`);
  }
}
