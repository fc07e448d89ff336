/** The page itself: its HTML and its files (ES modules served as they are, no build step, and its style sheet). */
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { Hono } from 'hono';
import { fail } from './answers.ts';

const ASSETS = fileURLToPath(new URL('../../assets/', import.meta.url));
const ASSET_NAME = /^[a-z][a-z-]*\.(js|css)$/;
const ASSET_TYPES: Record<string, string> = {
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
};

/** The page's files, read once. */
const assets = new Map<string, Promise<string>>();
function asset(name: string): Promise<string> {
  let text = assets.get(name);
  if (!text) {
    text = readFile(`${ASSETS}${name}`, 'utf8');
    // A name that is no file is not kept.
    text.catch(() => assets.delete(name));
    assets.set(name, text);
  }
  return text;
}

export function assetRoutes(app: Hono): void {
  app.get('/', async (c) => c.html(await asset('index.html')));
  app.get('/assets/:name', async (c) => {
    const name = c.req.param('name');
    const type = ASSET_TYPES[ASSET_NAME.exec(name)?.[1] ?? ''];
    const text = type ? await asset(name).catch(() => null) : null;
    if (!type || text === null) return fail(c, 404, 'MIME_NOT_FOUND', `no asset ${name}`);
    return c.body(text, 200, { 'content-type': type, 'cache-control': 'private, max-age=300' });
  });
}
