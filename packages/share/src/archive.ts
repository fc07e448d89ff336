/**
 * Zip archives, read without extracting blindly: every entry's name, kind and declared size is checked
 * before any byte of it is inflated (yauzl), and an archive that breaks a rule is refused whole, never
 * partly unpacked. Written with yazl, entries in a stable order with a fixed time, so one workflow packs
 * to the same bytes twice.
 */
import { unsafePathReason } from '@mime-desktop/schema';
import yauzl, { type Entry } from 'yauzl';
import yazl from 'yazl';
import { ShareError } from './errors.ts';

/** The limits of an archive mime opens. */
export interface ArchiveLimits {
  /** Most entries. Default 10 000. */
  maxEntries?: number;
  /** Largest file, unpacked. Default 64 MiB (the largest screenshot mime reads). */
  maxEntryBytes?: number;
  /** Largest sum of the unpacked files. Default 1 GiB. */
  maxTotalBytes?: number;
}

export const DEFAULT_LIMITS: Required<ArchiveLimits> = {
  maxEntries: 10_000,
  maxEntryBytes: 64 * 1024 * 1024,
  maxTotalBytes: 1024 * 1024 * 1024,
};

/** One file of an archive, unpacked in memory. */
export interface ArchiveFile {
  path: string;
  data: Buffer;
}

const S_IFMT = 0o170000;
const S_IFREG = 0o100000;
const S_IFDIR = 0o040000;
const S_IFLNK = 0o120000;

/** The kind of an entry from its Unix mode (zips made on Unix keep it in the high 16 bits). */
function kindOf(entry: Entry, name: string): 'file' | 'folder' | 'link' | 'other' {
  const mode = (entry.externalFileAttributes >>> 16) & S_IFMT;
  if (name.endsWith('/')) return mode === 0 || mode === S_IFDIR ? 'folder' : 'other';
  if (mode === 0 || mode === S_IFREG) return 'file';
  if (mode === S_IFLNK) return 'link';
  return mode === S_IFDIR ? 'folder' : 'other';
}

const unsafe = (what: string, reason: string) =>
  new ShareError('MIME_PACKAGE_UNSAFE', `${what}: ${reason}; nothing was installed`);

/** Reads a stream to its end, refusing more than `max` bytes. */
async function readAll(stream: NodeJS.ReadableStream, max: number, what: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let length = 0;
  for await (const chunk of stream) {
    const buffer = chunk as Buffer;
    length += buffer.length;
    if (length > max) throw unsafe(what, `unpacks to more than ${max} bytes`);
    chunks.push(buffer);
  }
  return Buffer.concat(chunks, length);
}

/** The path of a file entry, null for a folder; refuses links, other kinds and unsafe paths. */
function checkedPath(entry: Entry, what: string): string | null {
  const name = yauzl.getFileNameLowLevel(
    entry.generalPurposeBitFlag,
    entry.fileNameRaw,
    entry.extraFields,
    false,
  );
  const at = `${what}, entry "${name}"`;
  const kind = kindOf(entry, name);
  if (kind === 'link') throw unsafe(at, 'a symbolic link (packages hold regular files only)');
  if (kind === 'other') throw unsafe(at, 'not a regular file or folder');
  const path = name.replace(/\/$/, '');
  const reason = unsafePathReason(path);
  if (reason) throw unsafe(at, `its path is unsafe (${reason})`);
  return kind === 'folder' ? null : path;
}

/**
 * The files of a zip held in memory (`what` names it in messages). Refused whole, with the entry named,
 * when an entry is a symbolic link or anything but a file or folder, has an absolute path or `..`, when
 * there are more entries or bytes than the limits allow, or when the zip is damaged.
 */
export async function readArchive(
  zip: Buffer,
  what: string,
  limits: ArchiveLimits = {},
): Promise<ArchiveFile[]> {
  const { maxEntries, maxEntryBytes, maxTotalBytes } = { ...DEFAULT_LIMITS, ...limits };
  let archive: yauzl.ZipFile;
  try {
    // Names are checked here, not by yauzl: its check would end the read with a generic message.
    archive = await yauzl.fromBufferPromise(zip, {
      lazyEntries: true,
      decodeStrings: false,
      validateEntrySizes: true,
    });
  } catch (error) {
    throw unsafe(what, `not a zip archive (${(error as Error).message})`);
  }
  try {
    if (archive.entryCount > maxEntries) {
      throw unsafe(what, `${archive.entryCount} entries, more than the ${maxEntries} a package may hold`);
    }
    const files: ArchiveFile[] = [];
    const seen = new Set<string>();
    let total = 0;
    for await (const entry of archive.eachEntry()) {
      const path = checkedPath(entry, what);
      if (path === null) continue;
      const at = `${what}, entry "${path}"`;
      if (seen.has(path)) throw unsafe(at, 'it appears twice');
      seen.add(path);
      if (entry.uncompressedSize > maxEntryBytes) {
        throw unsafe(at, `${entry.uncompressedSize} bytes, more than the ${maxEntryBytes} a file may have`);
      }
      total += entry.uncompressedSize;
      if (total > maxTotalBytes) throw unsafe(what, `unpacks to more than ${maxTotalBytes} bytes`);
      let data: Buffer;
      try {
        data = await readAll(await archive.openReadStreamPromise(entry), entry.uncompressedSize, at);
      } catch (error) {
        if (error instanceof ShareError) throw error;
        throw new ShareError(
          'MIME_PACKAGE_TAMPERED',
          `${at}: damaged (${(error as Error).message}); the archive was changed or cut short on the way: download it again; nothing was installed`,
          { cause: error },
        );
      }
      files.push({ path, data });
    }
    return files;
  } catch (error) {
    if (error instanceof ShareError) throw error;
    throw unsafe(what, `a damaged zip archive (${(error as Error).message})`);
  } finally {
    archive.close();
  }
}

/** A fixed time for every entry: the same workflow packs to the same bytes. */
const ENTRY_TIME = new Date('2000-01-01T00:00:00Z');

/** A zip of `files` (in the order given), each a regular file of mode 0644. */
export async function writeArchive(files: readonly ArchiveFile[]): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  for (const file of files) {
    zip.addBuffer(file.data, file.path, { mtime: ENTRY_TIME, mode: 0o100644, compress: true });
  }
  zip.end();
  return readAll(zip.outputStream, Number.MAX_SAFE_INTEGER, 'zip');
}
