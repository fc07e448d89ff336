import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { RgbaImage } from './image.ts';

/**
 * Results remembered by what they were computed from, the least recently used forgotten first. A step
 * that waits for its target looks again until the step timeout, mostly at the same pixels (a screen
 * that has not changed, a caret blinking between two frames): each look then costs a hash instead of
 * a template search or an OCR read. A computation that fails is forgotten, so the next asks again.
 */
export class Remembered<T> {
  readonly #results: LRUCache<string, Promise<T>>;

  constructor(max: number) {
    this.#results = new LRUCache({ max });
  }

  get(key: string, compute: () => Promise<T>): Promise<T> {
    const known = this.#results.get(key);
    if (known) return known;
    const result = compute();
    this.#results.set(key, result);
    result.catch(() => {
      if (this.#results.peek(key) === result) this.#results.delete(key);
    });
    return result;
  }
}

/** The digest of each image's pixels, once per image: an image is never changed once made. */
const digests = new WeakMap<RgbaImage, string>();

export function digestOf(image: RgbaImage | Uint8Array): string {
  if (image instanceof Uint8Array) return createHash('sha256').update(image).digest('hex');
  let digest = digests.get(image);
  if (digest === undefined) {
    digest = createHash('sha256').update(`${image.width}x${image.height};`).update(image.data).digest('hex');
    digests.set(image, digest);
  }
  return digest;
}
