/**
 * One writer at a time per workflow folder: heal, edit, reflect (and any server that writes one) hold
 * an advisory lock on it while they check and write (proper-lockfile: a lock directory made atomically,
 * refreshed while held, taken over once stale, so a killed holder never blocks for good). A second
 * writer waits a short time, then fails with `MIME_WORKFLOW_LOCKED` naming who holds the lock.
 */
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import lockfile from 'proper-lockfile';
import { MimeError } from './errors.ts';

/** The lock of a folder: a directory made by proper-lockfile, and a note of who holds it. */
const LOCK = '.mime.lock';
const HOLDER = '.mime.lock.holder';

/** Another writer holds the folder's lock. */
export class WorkflowLockedError extends MimeError {
  constructor(folder: string, holder: string) {
    super(
      'MIME_WORKFLOW_LOCKED',
      `${folder} is being written by ${holder}; wait for it to finish, then run this again (a lock left by a killed process frees itself within 10 s)`,
    );
  }
}

export interface FolderLockOptions {
  /** Who writes, for the other writer's message: `mime heal --apply`. */
  holder: string;
  /** How long a second writer waits for the lock, ms. Default 3000. */
  waitMs?: number;
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
    release = await lockfile.lock(folder, {
      lockfilePath: join(folder, LOCK),
      realpath: false,
      stale: 10_000,
      update: 2_000,
      retries: { retries: Math.max(1, Math.ceil(waitMs / 100)), minTimeout: 100, maxTimeout: 100, factor: 1 },
    });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ELOCKED') throw error;
    const holder = await readFile(join(folder, HOLDER), 'utf8').catch(() => 'another mime process');
    throw new WorkflowLockedError(folder, holder.trim() || 'another mime process');
  }
  try {
    await writeFile(
      join(folder, HOLDER),
      `${options.holder} (pid ${process.pid}, since ${new Date().toISOString()})\n`,
    );
    return await write();
  } finally {
    await rm(join(folder, HOLDER), { force: true });
    await release();
  }
}
