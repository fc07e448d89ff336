import { mkdir, rm } from 'node:fs/promises';
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
import { ControlServer } from './control.ts';

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
  const { sessionId, dir } = await claimSessionDir(recordingsDir, name, now, async () => true);
  return { sessionId, dir };
}

/**
 * `createSessionDir` whose id must also be free outside this folder: `claim` is given each id once
 * its (empty) folder is made and answers `undefined` when the id is taken elsewhere (the next one is
 * tried), or what it claimed.
 */
async function claimSessionDir<T>(
  recordingsDir: string,
  name: string,
  now: Date,
  claim: (sessionId: string) => Promise<T | undefined>,
): Promise<{ sessionId: string; dir: string; claimed: T }> {
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
    const claimed = await claim(sessionId).catch(async (error: unknown) => {
      await rm(dir, { recursive: true });
      throw error;
    });
    if (claimed !== undefined) return { sessionId, dir, claimed };
    await rm(dir, { recursive: true }); // still empty: the id is another recorder's
  }
}

/**
 * Creates the session folder of a recording that starts now under `<home>/recordings/`, claims its
 * control socket (an id a live recorder elsewhere answers on is passed over) and writes its
 * metadata.json. The caller closes the control server.
 */
export async function openSession(
  home: string,
  task: { name: string; description?: string },
  desktop: Desktop,
  setup: WorkflowSetup | undefined,
): Promise<{ sessionId: string; dir: string; screen: RecordingMetadata['screen']; control: ControlServer }> {
  const startedAt = new Date();
  const {
    sessionId,
    dir,
    claimed: control,
  } = await claimSessionDir(join(home, 'recordings'), task.name, startedAt, ControlServer.claim);
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
  await writeJsonAtomic(join(dir, 'metadata.json'), metadata).catch(async (error: unknown) => {
    await control.close();
    throw error;
  });
  return { sessionId, dir, screen, control };
}
