/**
 * Reading a file named by a shared recording, workflow or run: a regular file only (a FIFO, a device
 * or a socket would block or never end: `schema.json` as a named pipe, a link to /dev/zero), opened
 * without blocking (so a read never waits on a writer: it is bounded in time), its size checked on
 * the open file before reading, never more than the limit read even when it grows meanwhile, and the
 * file opened inside its own folder (a `schema.json` that links out of its workflow is refused).
 * Every reader of mime's files goes through here; writers go through `json-files.ts`.
 */
import { constants, type Stats } from 'node:fs';
import { type FileHandle, open, readlink, realpath } from 'node:fs/promises';
import { dirname, sep } from 'node:path';
import { FileReadError, UnsafePathError } from './errors.ts';

export interface ReadPlaceOptions {
  /**
   * The folder the file must be inside once links are followed (checked on the open file). Default:
   * the file's own folder; `false` for a file the user named themselves (a params or rows file, a
   * config file), which may be a link anywhere.
   */
  inside?: string | false;
}

/** Whether `error` is a {@link FileReadError} for a file that does not exist (and nothing worse). */
export function isMissingFileError(error: unknown): boolean {
  return (
    error instanceof FileReadError && (error.cause as NodeJS.ErrnoException | undefined)?.code === 'ENOENT'
  );
}

/** Why a file could not be opened, in words. */
function describeOpenFailure(error: NodeJS.ErrnoException): string {
  switch (error.code) {
    case 'ENOENT':
      return 'no such file; check the path';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied; check the file mode and owner';
    default:
      return `cannot be read (${error.code ?? error.message})`;
  }
}

/**
 * Opens a regular file without blocking and checks it: a regular file, inside its folder. The
 * caller closes it.
 */
async function openRegularFile(
  file: string,
  what: string | undefined,
  options: ReadPlaceOptions,
): Promise<FileHandle> {
  const said = (reason: string) => (what ? `${what}: ${reason}` : reason);
  const handle = await open(file, constants.O_RDONLY | constants.O_NONBLOCK).catch(
    (error: NodeJS.ErrnoException) => {
      throw new FileReadError(file, said(describeOpenFailure(error)), { cause: error });
    },
  );
  try {
    checkKind(file, await handle.stat(), said);
    const inside = options.inside ?? dirname(file);
    if (inside !== false) await checkOpenedInside(handle, file, inside, what);
    return handle;
  } catch (error) {
    await handle.close();
    throw error;
  }
}

function checkKind(file: string, info: Stats, said: (reason: string) => string): void {
  if (info.isDirectory()) throw new FileReadError(file, said('is a directory, not a file'));
  if (!info.isFile()) {
    throw new FileReadError(
      file,
      said(`is ${kindOf(info)}, not a regular file: mime reads only regular files`),
    );
  }
}

/** The opened file is inside `folder` once links are followed: asked of the open file, not its name. */
async function checkOpenedInside(
  handle: FileHandle,
  file: string,
  folder: string,
  what: string | undefined,
): Promise<void> {
  const [opened, base] = await Promise.all([
    readlink(`/proc/self/fd/${handle.fd}`).catch(() => realpath(file)),
    realpath(folder),
  ]);
  if (opened !== base && !opened.startsWith(base + sep)) {
    throw new UnsafePathError(
      what ?? 'reading',
      file,
      `it resolves to ${opened}, outside ${base} (a symbolic link?)`,
    );
  }
}

/** What a special file is, for the message. */
function kindOf(info: {
  isFIFO(): boolean;
  isCharacterDevice(): boolean;
  isBlockDevice(): boolean;
  isSocket(): boolean;
}): string {
  if (info.isFIFO()) return 'a named pipe (FIFO)';
  if (info.isCharacterDevice() || info.isBlockDevice()) return 'a device';
  if (info.isSocket()) return 'a socket';
  return 'not a regular file';
}

/**
 * The bytes of a regular file of at most `maxBytes`. Throws {@link FileReadError} naming the file for
 * anything else: missing, not a regular file, too large; `what` (`manifest.jsonl line 3`) starts its message.
 */
export async function readRegularFile(
  file: string,
  maxBytes: number,
  what?: string,
  options: ReadPlaceOptions = {},
): Promise<Buffer> {
  const said = (reason: string) => (what ? `${what}: ${reason}` : reason);
  const handle = await openRegularFile(file, what, options);
  try {
    const info = await handle.stat();
    if (info.size > maxBytes) {
      throw new FileReadError(file, said(`${info.size} bytes is too large (mime reads at most ${maxBytes})`));
    }
    // One byte more than allowed tells a file that grew since it was measured.
    const buffer = Buffer.alloc(Math.min(maxBytes + 1, Math.max(info.size + 1, 1)));
    let length = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length);
      if (bytesRead === 0) break;
      length += bytesRead;
      if (length === buffer.length) break;
    }
    if (length > maxBytes)
      throw new FileReadError(file, said(`grew past ${maxBytes} bytes while it was read`));
    return buffer.subarray(0, length);
  } finally {
    await handle.close();
  }
}
