/**
 * One replay per display, machine-wide: a lock file per display in a folder only this user can write,
 * seen by every process (the CLI, MCP servers, the studio, batch workers on their private displays).
 *
 * A lock file is made complete beside its place and linked into it (`link` fails when the place is
 * taken: atomic, never half written), and records who holds it: pid, the process's start identity (so
 * a reused pid is not mistaken for the holder), command, workflow, since when. A holder whose process
 * is gone (ended, killed with -9) is taken over at once. Written here rather than taken from
 * proper-lockfile: it tells a stale lock by the age of its mtime (seconds to minutes), not by whether
 * the holder lives, and records no holder to name in a busy error.
 */
import { randomUUID } from 'node:crypto';
import { type FSWatcher, readFileSync, unlinkSync, watch } from 'node:fs';
import { link, lstat, mkdir, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, isAbsolute, join } from 'node:path';
import { processStartIdentity } from '@mime-desktop/schema';
import { AbortedError, DisplayBusyError, DisplayLockError } from './errors.ts';

/** Who holds a display, as its lock file records it. */
export interface DisplayLockHolder {
  pid: number;
  /** The holder's start identity (Linux: boot id and start time); null where it cannot be read. */
  started: string | null;
  /** What holds it, e.g. `mime replay play-song`, `mime mcp (claude-code)`. */
  command: string;
  /** The workflow replayed, or null. */
  workflow: string | null;
  /** When it was taken, ISO 8601 UTC. */
  since: string;
  /** The display as named in the environment, e.g. `:99`, `wayland-1`. */
  display: string;
}

interface LockRecord extends DisplayLockHolder {
  /** Tells this lock from another taken later by the same process. */
  token: string;
}

/** One display a process may drive: its lock file's name and how it is shown. */
export interface DisplayKey {
  key: string;
  label: string;
}

export interface DisplayLockOptions {
  /** What takes the lock, shown to whoever finds the display busy, e.g. `mime replay play-song`. */
  command: string;
  /** The workflow replayed. Default none. */
  workflow?: string | null;
  /** Wait while another process holds the display, instead of throwing {@link DisplayBusyError}. Default false. */
  queue?: boolean;
  /** Stops a wait: rejects with an {@link AbortedError} (`MIME_ABORTED`). Default none. */
  signal?: AbortSignal;
  /** Called once when the display is busy and the call waits for it. Default none. */
  onWait?: (holder: DisplayLockHolder) => void;
  /** The environment naming the display (`DISPLAY`, `WAYLAND_DISPLAY`). Default `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** The folder of the lock files. Default {@link defaultDisplayLockDir}. */
  dir?: string;
}

/** A display held by this process; `release` it on every path (an exit releases it too). */
export interface HeldDisplayLock {
  readonly holder: DisplayLockHolder;
  release(): Promise<void>;
}

/** Longest pause between two looks at a busy display while waiting, ms. */
const MAX_WAIT_STEP_MS = 1000;

/**
 * The folder of the lock files: `/run/user/<uid>/mime/locks` where that runtime folder is this
 * user's, else `/tmp/mime-<uid>/locks` (the OS temp folder on Windows). Fixed paths rather than
 * `XDG_RUNTIME_DIR` or `TMPDIR`: a client may start `mime mcp` with a bare environment (the MCP SDK's
 * stdio transport passes only HOME, LOGNAME, PATH, SHELL, TERM and USER), and every process must
 * find the same folder.
 */
export async function defaultDisplayLockDir(): Promise<string> {
  const uid = process.getuid?.();
  if (uid === undefined) return join(tmpdir(), 'mime-locks');
  const runtime = `/run/user/${uid}`;
  const owned = await lstat(runtime).then(
    (s) => s.isDirectory() && s.uid === uid,
    () => false,
  );
  return owned ? join(runtime, 'mime', 'locks') : join('/tmp', `mime-${uid}`, 'locks');
}

/** Throws unless `dir` is a folder of this user's that nobody else can write. */
async function checkPrivate(dir: string): Promise<void> {
  const uid = process.getuid?.();
  if (uid === undefined) return;
  const info = await lstat(dir);
  if (info.isDirectory() && info.uid === uid && (info.mode & 0o022) === 0) return;
  throw new DisplayLockError(
    `${dir} is not a folder only you can write (${info.isDirectory() ? `owner uid ${info.uid}, mode ${(info.mode & 0o777).toString(8)}` : 'not a folder'}): another user could fake or steal the display lock there; remove it and run again`,
  );
}

/**
 * Makes the lock folder (0700) and checks that nobody else owns or can write it, nor (for the
 * default folder) the folder it is in.
 */
async function lockFolder(dir: string | undefined): Promise<string> {
  const folder = dir ?? (await defaultDisplayLockDir());
  await mkdir(folder, { recursive: true, mode: 0o700 });
  if (dir === undefined) await checkPrivate(dirname(folder));
  await checkPrivate(folder);
  return folder;
}

const fileSafe = (text: string) =>
  encodeURIComponent(text).replace(/^\.+/, (dots) => '%2E'.repeat(dots.length));

/**
 * The displays the environment names, each one lock: X11's `DISPLAY` (`:99`, `:99.0` and
 * `unix:99` are one display; the screen number does not count), and Wayland's compositor socket
 * (`WAYLAND_DISPLAY`, in `XDG_RUNTIME_DIR` unless absolute) when set. Without either, the one local screen (`console`, as on macOS and Windows).
 */
export function displayKeys(env: NodeJS.ProcessEnv = process.env): DisplayKey[] {
  const keys: DisplayKey[] = [];
  const display = env.DISPLAY?.trim();
  if (display) {
    const match = /^(?<host>[^:]*):(?<number>\d+)(?:\.\d+)?$/.exec(display);
    const host = match?.groups?.host ?? '';
    const number = match?.groups?.number;
    if (number === undefined) keys.push({ key: `x11-${fileSafe(display)}`, label: display });
    else if (host === '' || host === 'unix' || host.endsWith('/unix'))
      keys.push({ key: `x11-${Number(number)}`, label: `:${Number(number)}` });
    else keys.push({ key: `x11-${fileSafe(host)}-${Number(number)}`, label: `${host}:${Number(number)}` });
  }
  const wayland = env.WAYLAND_DISPLAY?.trim();
  if (wayland) {
    // The compositor's socket, as clients find it: a relative name is in XDG_RUNTIME_DIR, so two
    // sessions (two users, or headless compositors each with a runtime folder) may both be wayland-1.
    const runtime = env.XDG_RUNTIME_DIR?.trim();
    const socket = isAbsolute(wayland) || !runtime ? wayland : join(runtime, wayland);
    keys.push({ key: `wayland-${fileSafe(socket)}`, label: wayland });
  }
  if (keys.length === 0) keys.push({ key: 'console', label: 'the console' });
  return keys.sort((a, b) => a.key.localeCompare(b.key));
}

function parseRecord(text: string): LockRecord | null {
  try {
    const value = JSON.parse(text) as Partial<LockRecord>;
    const ok =
      Number.isSafeInteger(value.pid) &&
      (value.started === null || typeof value.started === 'string') &&
      typeof value.command === 'string' &&
      (value.workflow === null || typeof value.workflow === 'string') &&
      typeof value.since === 'string' &&
      typeof value.display === 'string' &&
      typeof value.token === 'string';
    return ok ? (value as LockRecord) : null;
  } catch {
    return null;
  }
}

async function readRecord(file: string): Promise<LockRecord | null | 'none'> {
  try {
    return parseRecord(await readFile(file, 'utf8'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'none';
    throw error;
  }
}

/** Whether the process a record names still runs: its pid answers and it is the same process. */
export function holderAlive(holder: Pick<DisplayLockHolder, 'pid' | 'started'>): boolean {
  try {
    process.kill(holder.pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  if (holder.started === null) return true;
  return processStartIdentity(holder.pid) === holder.started;
}

/** A lock whose holder is gone, moved aside so that it is this lock and no newer one that is removed. */
async function removeStale(file: string, stale: LockRecord): Promise<void> {
  const aside = `${file}.stale-${randomUUID()}`;
  try {
    await rename(file, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  const moved = await readRecord(aside);
  // Another process took the display over between our look and the move: its lock goes back.
  if (moved !== 'none' && moved !== null && moved.token !== stale.token) {
    await link(aside, file).catch(() => undefined);
  }
  await unlink(aside).catch(() => undefined);
}

/** Tries once to take one display: null when taken, else the live holder. */
async function tryTake(file: string, record: LockRecord): Promise<LockRecord | null> {
  const draft = `${file}.new-${record.token}`;
  await writeFile(draft, `${JSON.stringify(record)}\n`, { mode: 0o600, flag: 'wx' });
  try {
    for (;;) {
      try {
        await link(draft, file);
        return null;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      const current = await readRecord(file);
      if (current === 'none') continue;
      // An unreadable lock file (damaged, from another version) names nobody alive: taken over.
      if (current !== null && holderAlive(current)) return current;
      if (current === null) await unlink(file).catch(() => undefined);
      else await removeStale(file, current);
    }
  } finally {
    await unlink(draft).catch(() => undefined);
  }
}

/** Removes the lock file when it is still this lock (`sync` for the exit handler). */
function releaseFile(file: string, token: string, sync: true): void;
function releaseFile(file: string, token: string, sync: false): Promise<void>;
function releaseFile(file: string, token: string, sync: boolean): Promise<void> | undefined {
  if (sync) {
    try {
      if (parseRecord(readFileSync(file, 'utf8'))?.token === token) unlinkSync(file);
    } catch {
      // Already gone.
    }
    return undefined;
  }
  return readRecord(file).then(async (current) => {
    if (current !== 'none' && current?.token === token) await unlink(file).catch(() => undefined);
  });
}

/** Locks this process holds, released by an exit that skipped their `release` (process.exit). */
const held = new Map<string, string>();
let exitHook = false;

function remember(file: string, token: string): void {
  held.set(file, token);
  if (exitHook) return;
  exitHook = true;
  process.on('exit', () => {
    for (const [path, owner] of held) releaseFile(path, owner, true);
  });
}

function stoppedWaiting(signal: AbortSignal | undefined): AbortedError {
  const reason =
    signal?.reason instanceof Error ? signal.reason.message : String(signal?.reason ?? 'aborted');
  return new AbortedError('signal', `stopped while waiting for the display: ${reason}`, {
    cause: signal?.reason,
  });
}

/** Resolves after `ms`, or sooner when the lock folder changes; rejects when `signal` aborts. */
function pause(dir: string, ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    let watcher: FSWatcher | undefined;
    const done = () => {
      clearTimeout(timer);
      watcher?.close();
      signal?.removeEventListener('abort', aborted);
    };
    const aborted = () => {
      done();
      reject(stoppedWaiting(signal));
    };
    const timer = setTimeout(() => {
      done();
      resolve();
    }, ms);
    try {
      watcher = watch(dir, () => {
        done();
        resolve();
      });
      watcher.on('error', () => undefined);
    } catch {
      // No watching here: the timer alone.
    }
    signal?.addEventListener('abort', aborted, { once: true });
  });
}

/**
 * Takes the lock of every display the environment names, for this process: at once, or (with
 * `queue`) once the process holding it releases it or is gone. Throws {@link DisplayBusyError}
 * (`MIME_DESKTOP_BUSY`) naming the holder when it is busy and `queue` is off.
 */
export async function acquireDisplayLock(options: DisplayLockOptions): Promise<HeldDisplayLock> {
  const dir = await lockFolder(options.dir);
  const keys = displayKeys(options.env);
  const base = {
    pid: process.pid,
    started: processStartIdentity(process.pid),
    command: options.command,
    workflow: options.workflow ?? null,
    display: keys.map((k) => k.label).join(' + '),
  };
  let told = false;
  for (let attempt = 0; ; attempt += 1) {
    if (options.signal?.aborted) throw stoppedWaiting(options.signal);
    const record: LockRecord = { ...base, since: new Date().toISOString(), token: randomUUID() };
    const taken: string[] = [];
    let busy: LockRecord | null = null;
    const releaseTaken = async () => {
      for (const file of taken) {
        held.delete(file);
        await releaseFile(file, record.token, false);
      }
    };
    try {
      for (const { key } of keys) {
        const file = join(dir, `${key}.lock`);
        busy = await tryTake(file, record);
        if (busy) break;
        taken.push(file);
        remember(file, record.token);
      }
    } catch (error) {
      await releaseTaken();
      throw error;
    }
    if (busy === null) {
      const { token: _token, ...holder } = record;
      return { holder, release: releaseTaken };
    }
    await releaseTaken();
    const { token: _token, ...holder } = busy;
    if (!options.queue) throw new DisplayBusyError(holder);
    if (!told) options.onWait?.(holder);
    told = true;
    await pause(dir, Math.min(MAX_WAIT_STEP_MS, 50 * 2 ** attempt), options.signal);
  }
}

/**
 * The live holder of any display the environment names (another process's or this one's), or null
 * when none is held. A lock whose holder is gone counts as free.
 */
export async function displayLockHolder(
  options: Pick<DisplayLockOptions, 'env' | 'dir'> = {},
): Promise<DisplayLockHolder | null> {
  const dir = options.dir ?? (await defaultDisplayLockDir());
  for (const { key } of displayKeys(options.env)) {
    const current = await readRecord(join(dir, `${key}.lock`)).catch(() => null);
    if (current !== 'none' && current !== null && holderAlive(current)) {
      const { token: _token, ...holder } = current;
      return holder;
    }
  }
  return null;
}
