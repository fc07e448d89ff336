/**
 * Screenshots as the page shows them: the full PNG, or (`?w=`) WebP at the width the page shows it,
 * made once with sharp and kept in memory. Each carries an ETag of its content, and `no-cache` so a
 * reload asks again and is answered 304 Not Modified while the frame is unchanged.
 */
import { createHash } from 'node:crypto';
import type { Context } from 'hono';
import sharp from 'sharp';
import { fail } from './answers.ts';

/** Widths a page may ask for (a thumbnail, the trace's strip, its large view). */
const MIN_WIDTH = 32;
const MAX_WIDTH = 2560;
/** Scaled frames kept in memory, oldest dropped first: about 12 KiB each at a card's width. */
const KEPT = 1000;
const scaled = new Map<string, Buffer>();

/** The width `w` of the query, undefined for the full frame; a string when it is not one. */
export function askedWidth(c: Context): number | undefined | string {
  const w = c.req.query('w');
  if (w === undefined) return undefined;
  const width = Number(w);
  return Number.isInteger(width) && width >= MIN_WIDTH && width <= MAX_WIDTH
    ? width
    : `w must be a whole number of pixels from ${MIN_WIDTH} to ${MAX_WIDTH}, got ${JSON.stringify(w)}`;
}

async function scale(png: Buffer, width: number, key: string): Promise<Buffer> {
  const kept = scaled.get(key);
  if (kept) return kept;
  const webp = await sharp(png).resize({ width, withoutEnlargement: true }).webp({ quality: 80 }).toBuffer();
  scaled.set(key, webp);
  if (scaled.size > KEPT) scaled.delete(scaled.keys().next().value as string);
  return webp;
}

/** Answers `png` as asked (full, or scaled to `?w=`), 304 when the page has it already. */
export async function answerFrame(
  c: Context,
  read: () => Promise<Buffer>,
  extra: Record<string, string> = {},
) {
  const width = askedWidth(c);
  if (typeof width === 'string') return fail(c, 400, 'MIME_BAD_REQUEST', width);
  const png = await read();
  const digest = createHash('sha256').update(png).digest('base64url').slice(0, 22);
  const etag = `"${digest}${width === undefined ? '' : `-w${width}`}"`;
  const headers = { etag, 'cache-control': 'private, no-cache', ...extra };
  const known = c.req.header('if-none-match');
  if (known?.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag)) {
    return c.body(null, 304, headers);
  }
  if (width === undefined)
    return c.body(new Uint8Array(png), 200, { 'content-type': 'image/png', ...headers });
  const webp = await scale(png, width, etag);
  return c.body(new Uint8Array(webp), 200, { 'content-type': 'image/webp', ...headers });
}
