/**
 * A recording's control socket (`mime record annotate/stop --session <id>`): each running recorder
 * answers on its own. Two recordings of one name started in the same second from two homes (two CI
 * jobs, two displays) would make one session id; the second is given the next id instead of taking
 * the first's socket. A socket left by a killed recorder is taken over.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Desktop } from '@mime-desktop/os-io';
import { useTestDir } from '@mime-desktop/test-support/e2e-rig';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ControlServer, controlAddress, sendControl } from '../src/control.ts';
import { compactUtc, openSession } from '../src/session.ts';

const testDir = useTestDir('mime-control-');
const START = new Date('2026-11-29T07:14:03.250Z');
const BASE_ID = `${compactUtc(START)}-play-song`;
/** What `openSession` reads of the desktop. */
const desktop = {
  screen: { logical: { width: 1280, height: 800 }, scale: 1 },
  display: { sessionType: 'x11' },
} as unknown as Desktop;
const task = { name: 'play song' };

let dir: string;
const savedTmp = process.env.TMPDIR;
const opened: ControlServer[] = [];
beforeEach(() => {
  dir = testDir();
  process.env.TMPDIR = join(dir, 'tmp'); // the sockets' folder, away from other tests' recorders
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(START);
});
afterEach(async () => {
  vi.useRealTimers();
  await Promise.all(opened.splice(0).map((control) => control.close()));
  if (savedTmp === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = savedTmp;
});

/** Opens a session in `home` whose recorder answers `status` with its own id. */
async function start(home: string) {
  const session = await openSession(join(dir, home), task, desktop, undefined);
  opened.push(session.control);
  session.control.serve(async () => ({
    session_id: session.sessionId,
    events: 0,
    secret: false,
    paused: false,
  }));
  return session;
}

describe('the control socket of a recording', () => {
  it('is its own when two recordings of one name start in the same second from two homes', async () => {
    const [a, b] = await Promise.all([start('home-a'), start('home-b')]);
    expect([a.sessionId, b.sessionId].sort()).toEqual([BASE_ID, `${BASE_ID}-2`]);
    for (const session of [a, b]) {
      expect((await sendControl(session.sessionId, { type: 'status' })).session_id).toBe(session.sessionId);
      const metadata = JSON.parse(await readFile(join(session.dir, 'metadata.json'), 'utf8'));
      expect(metadata.session_id).toBe(session.sessionId);
    }
    // No empty folder is left under the id the second recorder passed over.
    const second = a.sessionId === BASE_ID ? b : a;
    expect(await readdir(join(second.dir, '..'))).toEqual([second.sessionId]);
  });

  it('is never claimed from a recorder that still answers on it', async () => {
    const first = await start('home-a');
    expect(await ControlServer.claim(first.sessionId)).toBeUndefined();
    expect((await sendControl(first.sessionId, { type: 'status' })).session_id).toBe(first.sessionId);
  });

  it('is taken over when the recorder that held it was killed', async () => {
    const address = controlAddress(BASE_ID);
    await mkdir(dirname(address), { recursive: true });
    const killed = spawn(
      process.execPath,
      [
        '-e',
        `require('node:net').createServer().listen(${JSON.stringify(address)}, () => console.log('up'))`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    await new Promise((resolve) => killed.stdout.once('data', resolve));
    const exited = new Promise((resolve) => killed.once('exit', resolve));
    killed.kill('SIGKILL');
    await exited;
    expect(existsSync(address)).toBe(true); // the socket file outlives its process
    const session = await start('home-a');
    expect(session.sessionId).toBe(BASE_ID);
    expect((await sendControl(BASE_ID, { type: 'status' })).session_id).toBe(BASE_ID);
  });
});
