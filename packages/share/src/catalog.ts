/**
 * Catalogs and packages from a path or an http(s) URL: a static `manifest.json` as ai_mime's
 * marketplace serves it (its app downloads an item's `package_url`, relative to the manifest, and
 * checks its `sha256`), every download bounded in size and time.
 */
import { createHash } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { dirname, isAbsolute, resolve } from 'node:path';
import { parseJsonText, readRegularFile } from '@mime-desktop/schema';
import { ShareError } from './errors.ts';
import { Catalog, type CatalogItem } from './manifest.ts';

/** The largest package mime downloads or opens. */
export const MAX_PACKAGE_BYTES = 512 * 1024 * 1024;
/** The largest catalog. */
export const MAX_CATALOG_BYTES = 8 * 1024 * 1024;

export interface FetchOptions {
  /** How long one download may take, ms. Default 30 000. */
  timeoutMs?: number;
}

/** What to throw when the bytes at a location are more than allowed. */
type TooLarge = (maxBytes: number) => ShareError;

const isUrl = (location: string) => /^https?:\/\//i.test(location);

/** The bytes at a path or an http(s) URL, at most `maxBytes` (`what` names it in messages). */
export async function readLocation(
  location: string,
  maxBytes: number,
  what: string,
  options: FetchOptions & { tooLarge?: TooLarge } = {},
): Promise<Buffer> {
  const tooLarge =
    options.tooLarge ??
    ((max: number) =>
      new ShareError(
        'MIME_CATALOG_INVALID',
        `${what} ${location}: larger than ${max} bytes; mime reads no more`,
      ));
  if (!isUrl(location)) {
    const file = resolve(location);
    const size = await stat(file).then(
      (info) => info.size,
      () => 0,
    );
    if (size > maxBytes) throw tooLarge(maxBytes);
    return readRegularFile(file, maxBytes, what);
  }
  const timeoutMs = options.timeoutMs ?? 30_000;
  const failed = (reason: string, cause?: unknown) =>
    new ShareError('MIME_CATALOG_INVALID', `${what} ${location}: ${reason}`, { cause });
  let response: Response;
  try {
    response = await fetch(location, { signal: AbortSignal.timeout(timeoutMs), redirect: 'follow' });
  } catch (error) {
    const reason =
      (error as Error).name === 'TimeoutError' ? `no answer in ${timeoutMs} ms` : (error as Error).message;
    throw failed(`cannot be downloaded (${reason}); check the URL and the network`, error);
  }
  if (!response.ok || !response.body)
    throw failed(`the server answered ${response.status} ${response.statusText}`);
  const chunks: Buffer[] = [];
  let length = 0;
  try {
    const reader = response.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      length += value.length;
      if (length > maxBytes) {
        await reader.cancel().catch(() => undefined);
        throw tooLarge(maxBytes);
      }
      chunks.push(Buffer.from(value));
    }
  } catch (error) {
    if (error instanceof ShareError) throw error;
    throw failed(`the download broke off (${(error as Error).message})`, error);
  }
  return Buffer.concat(chunks, length);
}

/** A catalog read from a path or an http(s) URL. */
export async function readCatalog(location: string, options: FetchOptions = {}): Promise<Catalog> {
  const data = await readLocation(location, MAX_CATALOG_BYTES, 'catalog', options);
  const parsed = Catalog.safeParse(parseJsonText(data.toString('utf8'), location));
  if (parsed.success) return parsed.data;
  const first = parsed.error.issues[0];
  throw new ShareError(
    'MIME_CATALOG_INVALID',
    `${location} is not a package catalog (${first?.path.join('.') || 'document'}: ${first?.message}): it needs "items", each with id, package_url, sha256 and size_bytes`,
  );
}

/** Where an item's package is: its `package_url` read relative to the catalog. */
export function packageLocation(catalog: string, item: CatalogItem): string {
  const url = item.package_url;
  if (isUrl(catalog)) {
    const target = new URL(url, catalog);
    if (target.protocol !== 'http:' && target.protocol !== 'https:') {
      throw new ShareError(
        'MIME_CATALOG_INVALID',
        `item "${item.id}": package_url ${url} is not an http(s) URL`,
      );
    }
    return target.href;
  }
  if (isUrl(url)) return url;
  if (isAbsolute(url)) {
    throw new ShareError(
      'MIME_CATALOG_INVALID',
      `item "${item.id}": package_url ${url} is an absolute path; it must be relative to the catalog or an http(s) URL`,
    );
  }
  return resolve(dirname(resolve(catalog)), url);
}

/** An item's zip, downloaded and checked against its catalog's `size_bytes` and `sha256`. */
export async function fetchItemPackage(
  catalog: string,
  item: CatalogItem,
  options: FetchOptions = {},
): Promise<{ location: string; zip: Buffer }> {
  const location = packageLocation(catalog, item);
  if (item.size_bytes > MAX_PACKAGE_BYTES) {
    throw new ShareError(
      'MIME_PACKAGE_UNSAFE',
      `item "${item.id}": ${item.size_bytes} bytes is more than the ${MAX_PACKAGE_BYTES} mime opens`,
    );
  }
  const zip = await readLocation(location, item.size_bytes, 'package', {
    ...options,
    tooLarge: () => tampered(location, `larger than the ${item.size_bytes} bytes its catalog says`),
  });
  if (zip.length !== item.size_bytes) {
    throw tampered(location, `${zip.length} bytes where its catalog says ${item.size_bytes}`);
  }
  const sha256 = createHash('sha256').update(zip).digest('hex');
  if (sha256 !== item.sha256)
    throw tampered(location, `its sha256 is ${sha256} where its catalog says ${item.sha256}`);
  return { location, zip };
}

export function tampered(location: string, reason: string): ShareError {
  return new ShareError(
    'MIME_PACKAGE_TAMPERED',
    `${location}: ${reason}; it was changed or damaged on the way: do not install it, download it again or ask its author; nothing was installed`,
  );
}
