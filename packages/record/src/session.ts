import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { makeFolder, namedWriteError, slugOf } from '@mime-desktop/schema';

/** `play a Song!` -> `play-a-song`; at most 40 characters; `recording` when nothing is left. */
export function slugify(name: string): string {
  return slugOf(name, '-', 40) || 'recording';
}

/** UTC `YYYYMMDDTHHMMSSZ`. */
export function compactUtc(date: Date): string {
  return date
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}Z$/, 'Z');
}

/**
 * Creates `recordings/<session_id>/` (0700) with its `screenshots/` folder. The id is
 * `YYYYMMDDTHHMMSSZ-<slug>`, made unique with `-2`, `-3`... when a folder of that name exists.
 */
export async function createSessionDir(
  recordingsDir: string,
  name: string,
  now: Date = new Date(),
): Promise<{ sessionId: string; dir: string }> {
  // A read-only or full home is named (MIME_NOT_WRITABLE, MIME_DISK_FULL) before anything is recorded.
  await makeFolder(recordingsDir, { inside: recordingsDir });
  const base = `${compactUtc(now)}-${slugify(name)}`;
  for (let n = 1; ; n += 1) {
    const sessionId = n === 1 ? base : `${base}-${n}`;
    const dir = join(recordingsDir, sessionId);
    try {
      await mkdir(dir, { mode: 0o700 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') continue;
      throw namedWriteError(dir, error);
    }
    await makeFolder(join(dir, 'screenshots'));
    return { sessionId, dir };
  }
}
