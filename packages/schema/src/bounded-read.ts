/**
 * Reading a file named by a shared recording, workflow or run: a regular file only (a FIFO, a device
 * or a socket would block or never end: `schema.json` as a named pipe, a link to /dev/zero), opened
 * without blocking, its size checked on the open file before reading, and never more than the limit
 * read even when it grows meanwhile.
 */
import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { FileReadError } from './errors.ts';

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
export async function readRegularFile(file: string, maxBytes: number, what?: string): Promise<Buffer> {
  const said = (reason: string) => (what ? `${what}: ${reason}` : reason);
  const handle = await open(file, constants.O_RDONLY | constants.O_NONBLOCK).catch(
    (error: NodeJS.ErrnoException) => {
      throw new FileReadError(file, said(describeOpenFailure(error)), { cause: error });
    },
  );
  try {
    const info = await handle.stat();
    if (info.isDirectory()) throw new FileReadError(file, said('is a directory, not a file'));
    if (!info.isFile()) {
      throw new FileReadError(
        file,
        said(`is ${kindOf(info)}, not a regular file: mime reads only regular files`),
      );
    }
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
