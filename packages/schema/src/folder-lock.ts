/**
 * One writer at a time per workflow folder: heal, edit, reflect (and any server that writes one) hold
 * an advisory lock on it while they check and write (proper-lockfile: a lock directory made atomically,
 * refreshed while held, taken over once stale, so a killed holder never blocks for good). A second
 * writer waits a short time, then fails with `MIME_WORKFLOW_LOCKED` naming who holds the lock.
 */
import { existsSync } from 'node:fs';
import { readdir, rename, rm } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import lockfile from 'proper-lockfile';
import { readRegularFile } from './bounded-read.ts';
import { MimeError, namedWriteError } from './errors.ts';
import { writeFileAtomically } from './json-files.ts';
import { unsafePathReason } from './paths.ts';

/** The largest lock note or commit journal read (each is a line or a short list of names). */
const MAX_NOTE_BYTES = 1024 * 1024;

/** A small JSON file of the folder, bounded and without waiting (a FIFO or a link out reads as none). */
async function readNote(file: string): Promise<unknown> {
  return JSON.parse((await readRegularFile(file, MAX_NOTE_BYTES)).toString('utf8'));
}

/** The lock of a folder: a directory made by proper-lockfile, and a note of who holds it. */
const LOCK = '.mime.lock';
const HOLDER = '.mime.lock.holder';

/** Another writer holds the folder's lock. */
export class WorkflowLockedError extends MimeError {
  constructor(folder: string, holder: string) {
    super(
      'MIME_WORKFLOW_LOCKED',
      `${folder} is being written by ${holder}; wait for it to finish, then run this again (a lock left by a killed process is taken over)`,
    );
  }
}

export interface FolderLockOptions {
  /** Who writes, for the other writer's message: `mime heal --apply`. */
  holder: string;
  /** How long a second writer waits for the lock, ms. Default 3000. */
  waitMs?: number;
}

/** The holder's note: who, which process on which host, since when. */
interface Holder {
  holder: string;
  pid: number;
  host: string;
  since: string;
}

async function readHolder(folder: string): Promise<Holder | null> {
  try {
    return (await readNote(join(folder, HOLDER))) as Holder;
  } catch {
    return null;
  }
}

/** A holder on this host whose process is gone (killed): its lock is taken over at once. */
function isDead(holder: Holder | null): boolean {
  if (!holder || holder.host !== hostname() || !Number.isInteger(holder.pid)) return false;
  try {
    process.kill(holder.pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

function take(folder: string, waitMs: number): Promise<() => Promise<void>> {
  return lockfile.lock(folder, {
    lockfilePath: join(folder, LOCK),
    realpath: false,
    stale: 10_000,
    update: 2_000,
    retries: { retries: Math.max(1, Math.ceil(waitMs / 100)), minTimeout: 100, maxTimeout: 100, factor: 1 },
  });
}

/** Runs `write` holding the folder's lock; throws {@link WorkflowLockedError} when it stays taken. */
export async function withFolderLock<T>(
  folder: string,
  options: FolderLockOptions,
  write: () => Promise<T>,
): Promise<T> {
  const waitMs = options.waitMs ?? 3000;
  let release: () => Promise<void>;
  try {
    release = await take(folder, isDead(await readHolder(folder)) ? 0 : waitMs).catch(async (error) => {
      const holder = await readHolder(folder);
      if ((error as NodeJS.ErrnoException).code !== 'ELOCKED' || !isDead(holder)) throw error;
      // Left by a killed process on this host: taken over.
      await rm(join(folder, LOCK), { recursive: true, force: true });
      return take(folder, waitMs);
    });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // A full disk or a read-only folder: named, with what to do.
    if (code !== 'ELOCKED') throw namedWriteError(join(folder, LOCK), error);
    const holder = await readHolder(folder);
    throw new WorkflowLockedError(
      folder,
      holder
        ? `${holder.holder} (pid ${holder.pid} on ${holder.host}, since ${holder.since})`
        : 'another mime process',
    );
  }
  try {
    const note: Holder = {
      holder: options.holder,
      pid: process.pid,
      host: hostname(),
      since: new Date().toISOString(),
    };
    // Only a note for the other writer's message: a full disk must not stop the write it guards.
    await writeFileAtomically(join(folder, HOLDER), `${JSON.stringify(note)}\n`).catch(() => undefined);
    await recoverCommit(folder);
    return await write();
  } finally {
    await rm(join(folder, HOLDER), { force: true });
    await release();
  }
}

/** The journal of a commit of several files: written before the first rename, removed after the last. */
const JOURNAL = '.mime-commit.json';
/** What a file's new content is written to before the commit renames it into place. */
const NEW = '.mime-new';

/** A new file a commit writes, or the temporary file it is written through. */
const UNCOMMITTED = /\.mime-new(\.\d+)?$/;

/**
 * Finishes a commit a killed writer left half done: every new file it had written is renamed into
 * place (they were all durably written before its journal was), then the journal is removed. One
 * killed before its journal changed nothing: the new files it left are removed.
 */
async function recoverCommit(folder: string): Promise<void> {
  if (!existsSync(join(folder, JOURNAL))) {
    for (const name of await uncommitted(folder)) await rm(join(folder, name), { force: true });
    return;
  }
  let files: string[];
  try {
    files = ((await readNote(join(folder, JOURNAL))) as { files: string[] }).files;
  } catch {
    return;
  }
  // Names from a file in a shared folder: only plain names inside it are renamed.
  for (const file of Array.isArray(files) ? files : []) {
    if (typeof file !== 'string' || unsafePathReason(file)) continue;
    await rename(join(folder, `${file}${NEW}`), join(folder, file)).catch(() => undefined);
  }
  await rm(join(folder, JOURNAL), { force: true });
}

/**
 * Writes several files of a folder as one change (call it holding the folder's lock): each new file
 * is written and flushed beside its old one, a journal lists them, then each is renamed into place.
 * Killed at any moment, the folder holds the old files or, once the journal is written, the next
 * writer's lock finishes the change: never some old files and some new.
 */
export async function commitFiles(
  folder: string,
  files: ReadonlyArray<{ path: string; data: string | Buffer }>,
): Promise<void> {
  for (const { path, data } of files) await writeFileAtomically(join(folder, `${path}${NEW}`), data);
  await writeFileAtomically(join(folder, JOURNAL), JSON.stringify({ files: files.map((f) => f.path) }));
  for (const { path } of files) await rename(join(folder, `${path}${NEW}`), join(folder, path));
  await rm(join(folder, JOURNAL), { force: true });
}

/**
 * Before reading a workflow folder: a change a killed writer left half done is finished first (under
 * the folder's lock), so a reader never sees some of its files old and some new.
 */
export async function settleFolder(folder: string): Promise<void> {
  const holder = 'mime (finishing an interrupted change)';
  if (existsSync(join(folder, JOURNAL))) {
    await withFolderLock(folder, { holder }, async () => undefined);
    return;
  }
  // New files without a journal: a writer at work, or one killed before its commit (CI 9d: kill -9
  // during `mime heal --apply`), whose files are removed. A writer at work holds the lock: left be.
  // Only tidying (the folder's files are the old ones either way): a folder this reader may not
  // write to, or whose lock is held, is read as it is.
  if ((await uncommitted(folder)).length === 0) return;
  await withFolderLock(folder, { holder, waitMs: 0 }, async () => undefined).catch(() => undefined);
}

/** The names of new files of commits in `folder` (none where it cannot be read). */
async function uncommitted(folder: string): Promise<string[]> {
  return (await readdir(folder).catch((): string[] => [])).filter((name) => UNCOMMITTED.test(name));
}
