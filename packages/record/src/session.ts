import { mkdir } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Desktop } from '@mime-desktop/os-io';
import {
  makeFolder,
  namedWriteError,
  type RecordingMetadata,
  slugOf,
  type WorkflowSetup,
  writeJsonAtomic,
} from '@mime-desktop/schema';

const { version: MIME_VERSION } = createRequire(import.meta.url)('../package.json') as { version: string };

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

/**
 * Creates the session folder of a recording that starts now under `<home>/recordings/` and writes
 * its metadata.json.
 */
export async function openSession(
  home: string,
  task: { name: string; description?: string },
  desktop: Desktop,
  setup: WorkflowSetup | undefined,
): Promise<{ sessionId: string; dir: string; screen: RecordingMetadata['screen'] }> {
  const startedAt = new Date();
  const { sessionId, dir } = await createSessionDir(join(home, 'recordings'), task.name, startedAt);
  const screen = {
    width: desktop.screen.logical.width,
    height: desktop.screen.logical.height,
    scale_factor: desktop.screen.scale,
  };
  const metadata: RecordingMetadata = {
    name: task.name,
    description: task.description ?? '',
    session_id: sessionId,
    created_at: startedAt.toISOString(),
    platform: `${process.platform} (${desktop.display.sessionType})`,
    screen,
    mime_version: MIME_VERSION,
    ...(setup ? { setup } : {}),
  };
  await writeJsonAtomic(join(dir, 'metadata.json'), metadata);
  return { sessionId, dir, screen };
}
