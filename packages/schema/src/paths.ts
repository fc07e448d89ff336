/**
 * Paths read from recordings and workflows. Those files are shared between people, so a path inside
 * them is untrusted: it must name a file inside the folder it belongs to, and stay inside it once
 * symbolic links are followed. Anything else is refused before a byte is read or written.
 */
import { lstat, realpath } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve, sep, win32 } from 'node:path';
import { z } from 'zod';
import { readRegularFile } from './bounded-read.ts';
import { FileReadError, UnsafePathError } from './errors.ts';

/** The longest relative path accepted in a recording or workflow. */
export const MAX_RELATIVE_PATH = 1024;

/** Why a path from a file is not a safe path inside its folder, or null when it is one. */
export function unsafePathReason(path: string): string | null {
  if (path.length === 0) return 'the path is empty';
  if (path.length > MAX_RELATIVE_PATH) return `the path is longer than ${MAX_RELATIVE_PATH} characters`;
  if (path.includes('\0')) return 'the path holds a NUL character';
  if (isAbsolute(path) || win32.isAbsolute(path))
    return 'the path is absolute; it must be relative to the folder';
  if (path.includes('\\')) return 'the path holds a backslash; use / between folders';
  if (path.split('/').some((part) => part === '..')) return 'the path leaves the folder (..)';
  return null;
}

/** A relative path that stays inside the folder of the file that holds it. */
export const RelativePath = z
  .string()
  .superRefine((path, context) => {
    const reason = unsafePathReason(path);
    if (reason)
      context.addIssue({ code: 'custom', message: `${reason}: ${JSON.stringify(path.slice(0, 200))}` });
  })
  .describe('A path relative to the folder, inside it.');

/** The real path of `path`, or of its nearest existing parent joined with the rest. */
async function realOrParent(path: string): Promise<string> {
  try {
    return await realpath(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    const parent = dirname(path);
    if (parent === path) return path;
    return join(await realOrParent(parent), relative(parent, path));
  }
}

/**
 * Resolves a path read from a file (`what` names it, e.g. `manifest.jsonl line 4`) inside `folder`:
 * relative, no `..`, and inside the folder once symbolic links are followed (for a file that does not
 * exist yet, its nearest existing parent). Throws {@link UnsafePathError} otherwise.
 */
export async function resolveInside(folder: string, path: string, what: string): Promise<string> {
  const reason = unsafePathReason(path);
  if (reason) throw new UnsafePathError(what, path, reason);
  const base = await realOrParent(folder);
  const target = await realOrParent(join(folder, path));
  if (target !== base && !target.startsWith(base + sep)) {
    throw new UnsafePathError(what, path, `it resolves to ${target}, outside ${base} (a symbolic link?)`);
  }
  return join(folder, path);
}

/** Whether `path` is `folder` or inside it, by their names (links are not followed). */
export function isInsideFolder(folder: string, path: string): boolean {
  const rel = relative(resolve(folder), resolve(path));
  return rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel);
}

/**
 * Before mime writes `target` (a file or a folder it creates) inside `folder`: neither `target` nor
 * any folder between `folder` and it may be a symbolic link, so a write never lands outside through a
 * `schema.json`, `report.html`, `.replay` or row folder that links elsewhere (`folder` itself may be
 * one: it is the place the user named). What does not exist yet is created as a real folder or file.
 * Throws {@link UnsafePathError}; mime refuses rather than writing beside the link.
 */
export async function assertNoLinkOnTheWay(folder: string, target: string, what = 'writing'): Promise<void> {
  if (!isInsideFolder(folder, target)) throw new UnsafePathError(what, target, `it is not inside ${folder}`);
  const path = relative(resolve(folder), resolve(target));
  if (path === '') return;
  let at = resolve(folder);
  for (const part of path.split(sep)) {
    at = join(at, part);
    const info = await lstat(at).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return null;
      throw error;
    });
    if (!info) return;
    if (info.isSymbolicLink()) {
      throw new UnsafePathError(
        what,
        target,
        `${at} is a symbolic link; mime never writes through a link (remove the link, or replace it with a copy of the file or folder)`,
      );
    }
  }
}

/** The largest image mime reads from a recording or workflow (a 4K frame is about 10 MiB as PNG). */
export const MAX_IMAGE_BYTES = 64 * 1024 * 1024;
/** The widest and tallest screenshot mime reads (an 8K screen is 7680x4320). */
export const MAX_IMAGE_SIDE = 8192;
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** The size a PNG's header (IHDR) gives, 0x0 when the bytes are too few to hold one. */
export function pngSize(bytes: Buffer): { width: number; height: number } {
  if (bytes.length < 24) return { width: 0, height: 0 };
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

/**
 * Reads a PNG named by a recording or workflow (see {@link resolveInside}): a regular file, at most
 * {@link MAX_IMAGE_BYTES}, with the PNG signature. Throws {@link UnsafePathError} or a
 * {@link FileReadError} that names the file and says what is wrong.
 */
export async function readPngInside(folder: string, path: string, what: string): Promise<Buffer> {
  const file = await resolveInside(folder, path, what);
  const bytes = await readRegularFile(file, MAX_IMAGE_BYTES, what).catch((error: FileReadError) => {
    const missing = (error.cause as NodeJS.ErrnoException | undefined)?.code === 'ENOENT';
    throw missing
      ? new FileReadError(file, `${what}: the screenshot is missing`, { cause: error.cause })
      : error;
  });
  if (!bytes.subarray(0, 8).equals(PNG_SIGNATURE)) {
    throw new FileReadError(file, `${what}: not a PNG image; screenshots are PNG files`);
  }
  // The size from the header, before anything decodes the pixels: a small file can hold a huge image.
  const { width, height } = pngSize(bytes);
  if (width === 0 || height === 0 || width > MAX_IMAGE_SIDE || height > MAX_IMAGE_SIDE) {
    throw new FileReadError(
      file,
      `${what}: a ${width}x${height} image; mime reads screenshots of 1 to ${MAX_IMAGE_SIDE} pixels a side`,
    );
  }
  return bytes;
}
