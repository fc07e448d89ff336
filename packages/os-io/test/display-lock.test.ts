/**
 * The machine-wide display lock between real processes: one holder at a time, the busy error names
 * it, a queued one gets it when it is released, a holder killed with -9 or gone by process.exit is
 * taken over, a live pid with another start identity (a reused pid) is not trusted, a wait aborts.
 */
import { type ChildProcess, type ChildProcessByStdio, spawn } from 'node:child_process';
import { chmod, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { processStartIdentity } from '@mime-desktop/schema';
import { useTestDir } from '@mime-desktop/test-support/e2e-rig';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { acquireDisplayLock, DisplayBusyError, displayKeys, displayLockHolder } from '../src/index.ts';

const CHILD = fileURLToPath(new URL('./fixtures/display-lock-child.ts', import.meta.url));
const DISPLAY = ':4242';

interface Line {
  event: string;
  at: number;
  code?: string;
  message?: string;
  holder?: { pid: number; command: string; display: string };
}

interface Contender {
  process: ChildProcessByStdio<Writable, Readable, Readable>;
  /** The next line the child prints. */
  next(): Promise<Line>;
  exited: Promise<number | null>;
}

const testDir = useTestDir('mime-lock-');
let dir: string;
const children: Contender[] = [];
const others: ChildProcess[] = [];

beforeEach(() => {
  dir = testDir();
});
// Registered after the rig's hook, so the children are gone before their folder is removed.
afterEach(async () => {
  for (const child of children.splice(0)) {
    if (child.process.exitCode === null) child.process.kill('SIGKILL');
    await child.exited;
  }
  for (const other of others.splice(0)) other.kill('SIGKILL');
});

function contend(mode: 'hold' | 'try' | 'queue' | 'exit', command: string): Contender {
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD, mode, dir, command], {
    env: { ...process.env, DISPLAY },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const contender: Contender = {
    process: child,
    next: async () => {
      const { value, done } = await lines.next();
      if (done) throw new Error(`${command} ended without a line`);
      return JSON.parse(value) as Line;
    },
    exited,
  };
  children.push(contender);
  return contender;
}

describe('the display lock between processes', () => {
  it('lets one process hold a display; another is refused naming it, or waits and gets it after', async () => {
    const holder = contend('hold', 'mime replay first');
    const held = await holder.next();
    expect(held).toMatchObject({ event: 'held', holder: { pid: holder.process.pid, display: ':4242' } });

    const refused = await contend('try', 'mime replay second').next();
    expect(refused).toMatchObject({ event: 'error', code: 'MIME_DESKTOP_BUSY' });
    expect(refused.message).toMatch(
      new RegExp(
        `^the display :4242 is busy: mime replay first \\(pid ${holder.process.pid}, workflow "demo"\\) has been replaying on it since \\d{4}-\\d\\d-\\d\\dT`,
      ),
    );

    const queued = contend('queue', 'mime replay third');
    expect(await queued.next()).toMatchObject({ event: 'waiting', holder: { command: 'mime replay first' } });
    holder.process.stdin.write('release\n');
    const releasing = await holder.next();
    expect(releasing.event).toBe('releasing');
    expect((await holder.next()).event).toBe('released');
    const got = await queued.next();
    expect(got).toMatchObject({ event: 'held', holder: { pid: queued.process.pid } });
    // The waiter got the display only once the holder began to let it go.
    expect(got.at).toBeGreaterThanOrEqual(releasing.at);
    expect(await queued.next()).toMatchObject({ event: 'releasing' });
    expect(await queued.next()).toMatchObject({ event: 'released' });
    expect(await queued.exited).toBe(0);
    expect(await readdir(dir)).toEqual([]);
  });

  it('takes over the lock of a holder killed with -9, and of one that left by process.exit', async () => {
    const killed = contend('hold', 'mime mcp (killed)');
    expect((await killed.next()).event).toBe('held');
    expect(await readdir(dir)).toEqual(['x11-4242.lock']);
    killed.process.kill('SIGKILL');
    await killed.exited;
    // Its lock file is left behind, naming a process that is gone: nobody holds the display.
    expect(await readdir(dir)).toEqual(['x11-4242.lock']);
    expect(await displayLockHolder({ dir, env: { DISPLAY } })).toBeNull();
    expect(await contend('try', 'after the kill').next()).toMatchObject({ event: 'held' });

    const leaving = contend('exit', 'leaves by process.exit');
    expect((await leaving.next()).event).toBe('held');
    expect(await leaving.exited).toBe(0);
    expect(await readdir(dir)).toEqual([]);
  });

  it('does not trust a live pid whose start identity is not the holder recorded (a reused pid)', async () => {
    // The first process held the display and died; a later process was given a pid that answers.
    const dead = contend('hold', 'dead holder');
    const { holder } = await dead.next();
    const deadIdentity = processStartIdentity(Number(holder?.pid));
    dead.process.kill('SIGKILL');
    await dead.exited;
    const later = contend('hold', 'unrelated process');
    await later.next();
    const laterPid = Number(later.process.pid);
    later.process.stdin.write('release\n');
    await later.next();
    const sleeper = spawn('sleep', ['30']);
    others.push(sleeper);
    const record = {
      pid: Number(sleeper.pid),
      started: deadIdentity,
      command: 'dead holder',
      workflow: null,
      since: new Date().toISOString(),
      display: DISPLAY,
      token: 'old',
    };
    expect(deadIdentity).not.toBeNull();
    expect(laterPid).not.toBe(sleeper.pid);
    await writeFile(join(dir, 'x11-4242.lock'), JSON.stringify(record));
    const lock = await acquireDisplayLock({ command: 'this test', dir, env: { DISPLAY } });
    expect(JSON.parse(await readFile(join(dir, 'x11-4242.lock'), 'utf8'))).toMatchObject({
      pid: process.pid,
    });
    await lock.release();

    // The same pid with its own start identity is the holder: busy.
    await writeFile(
      join(dir, 'x11-4242.lock'),
      JSON.stringify({ ...record, started: processStartIdentity(Number(sleeper.pid)) }),
    );
    await expect(acquireDisplayLock({ command: 'this test', dir, env: { DISPLAY } })).rejects.toBeInstanceOf(
      DisplayBusyError,
    );
  });

  it('stops waiting when its signal aborts (MIME_ABORTED)', async () => {
    const holder = contend('hold', 'mime replay long');
    await holder.next();
    const abort = new AbortController();
    let waited = 0;
    const waiting = acquireDisplayLock({
      command: 'queued',
      dir,
      env: { DISPLAY: ':4242.0' },
      queue: true,
      signal: abort.signal,
      onWait: () => {
        waited += 1;
      },
    });
    const started = performance.now();
    setTimeout(() => abort.abort(new Error('Ctrl+C')), 300);
    await expect(waiting).rejects.toMatchObject({
      code: 'MIME_ABORTED',
      message: 'stopped while waiting for the display: Ctrl+C',
    });
    // The abort cut a wait that would last as long as the holder (the whole test): ended soon after
    // it (a margin for a busy machine; not a speed figure).
    expect(performance.now() - started).toBeLessThan(10_000);
    expect(waited).toBe(1);
  });
});

describe('the lock folder', () => {
  it('is refused when others can write it: they could fake or steal the lock', async () => {
    await chmod(dir, 0o777);
    await expect(acquireDisplayLock({ command: 'test', dir, env: { DISPLAY } })).rejects.toMatchObject({
      code: 'MIME_DISPLAY_LOCK',
      message: expect.stringContaining(`${dir} is not a folder only you can write (owner uid`),
    });
    await chmod(dir, 0o700);
    const lock = await acquireDisplayLock({ command: 'test', dir, env: { DISPLAY } });
    await lock.release();
  });
});

describe('display keys', () => {
  it('name one X display however DISPLAY spells it, and Wayland besides when set', () => {
    for (const display of [':99', ':99.0', 'unix:99', 'unix:99.1'])
      expect(displayKeys({ DISPLAY: display })).toEqual([{ key: 'x11-99', label: ':99' }]);
    expect(displayKeys({ DISPLAY: 'localhost:10.0' })).toEqual([
      { key: 'x11-localhost-10', label: 'localhost:10' },
    ]);
    expect(displayKeys({ DISPLAY: ':0', WAYLAND_DISPLAY: 'wayland-1' })).toEqual([
      { key: 'wayland-wayland-1', label: 'wayland-1' },
      { key: 'x11-0', label: ':0' },
    ]);
    expect(displayKeys({ WAYLAND_DISPLAY: '/run/user/1000/../x' })[0]?.key).toBe(
      'wayland-%2Frun%2Fuser%2F1000%2F..%2Fx',
    );
    expect(displayKeys({})).toEqual([{ key: 'console', label: 'the console' }]);
  });

  it('tell two Wayland sessions with one socket name apart by their runtime folders', () => {
    const one = displayKeys({ WAYLAND_DISPLAY: 'wayland-0', XDG_RUNTIME_DIR: '/tmp/session-a' });
    const two = displayKeys({ WAYLAND_DISPLAY: 'wayland-0', XDG_RUNTIME_DIR: '/tmp/session-b' });
    expect(one).toEqual([{ key: 'wayland-%2Ftmp%2Fsession-a%2Fwayland-0', label: 'wayland-0' }]);
    expect(two[0]?.key).not.toBe(one[0]?.key);
    // The same socket named by its path is the same display.
    expect(displayKeys({ WAYLAND_DISPLAY: '/tmp/session-a/wayland-0', XDG_RUNTIME_DIR: '/x' })[0]?.key).toBe(
      one[0]?.key,
    );
  });
});
