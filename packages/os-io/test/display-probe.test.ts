import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { assertDisplay, DisplayNotFoundError, probeDisplay } from '../src/index.ts';

const CHILD = fileURLToPath(new URL('./fixtures/no-display-child.ts', import.meta.url));

/** Runs the child with `env` as its whole display environment (DISPLAY, WAYLAND_DISPLAY...). */
async function runWithout(env: Record<string, string>) {
  const base = { ...process.env };
  for (const name of ['DISPLAY', 'WAYLAND_DISPLAY', 'XDG_SESSION_TYPE']) delete base[name];
  return new Promise<{ exitCode: number | null; signal: string | null; stdout: string; stderr: string }>(
    (resolve) => {
      execFile(
        process.execPath,
        ['--import', 'tsx', CHILD],
        { env: { ...base, ...env }, timeout: 20_000 },
        (error, stdout, stderr) => {
          resolve({
            exitCode: error ? (error.code as number | null) : 0,
            signal: error?.signal ?? null,
            stdout,
            stderr,
          });
        },
      );
    },
  );
}

describe('probeDisplay', () => {
  it('reports a missing DISPLAY with the fix, without throwing', async () => {
    const facts = await probeDisplay({ env: {}, platform: 'linux' });
    expect(facts).toMatchObject({ sessionType: 'none', display: null, reachable: false, endpoint: null });
    expect(facts.problem).toContain('DISPLAY is not set');
    expect(facts.problem).toContain('xvfb-run -a');
  });

  it('reports a display whose X server does not answer', async () => {
    const facts = await probeDisplay({ env: { DISPLAY: ':4242' }, platform: 'linux' });
    expect(facts).toMatchObject({ sessionType: 'x11', reachable: false, endpoint: '/tmp/.X11-unix/X4242' });
    expect(facts.problem).toMatch(/cannot connect to the X server of DISPLAY=:4242 .*\(ENOENT\)/);
  });

  it('probes TCP displays on port 6000 + n', async () => {
    const facts = await probeDisplay({ env: { DISPLAY: '127.0.0.1:4242.0' }, platform: 'linux' });
    expect(facts).toMatchObject({ reachable: false, endpoint: '127.0.0.1:10242' });
    expect(facts.problem).toContain('ECONNREFUSED');
  });

  it('rejects a DISPLAY that is not a display name', async () => {
    const facts = await probeDisplay({ env: { DISPLAY: 'nonsense' }, platform: 'linux' });
    expect(facts.reachable).toBe(false);
    expect(facts.problem).toContain('not a display name');
  });

  it('tells a Wayland session without XWayland apart', async () => {
    const facts = await probeDisplay({ env: { WAYLAND_DISPLAY: 'wayland-0' }, platform: 'linux' });
    expect(facts).toMatchObject({ sessionType: 'wayland', reachable: false });
    expect(facts.problem).toContain('XWayland');
  });

  it('takes macOS and Windows as reachable without probing', async () => {
    expect(await probeDisplay({ env: {}, platform: 'darwin' })).toMatchObject({
      sessionType: 'macos',
      reachable: true,
    });
    expect(await probeDisplay({ env: {}, platform: 'win32' })).toMatchObject({
      sessionType: 'windows',
      reachable: true,
    });
  });
});

describe('assertDisplay', () => {
  it('throws DisplayNotFoundError (MIME_NO_DISPLAY) with the fix', async () => {
    const error = await assertDisplay({ env: { DISPLAY: ':4242' }, platform: 'linux' }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(DisplayNotFoundError);
    expect(error).toMatchObject({ code: 'MIME_NO_DISPLAY', name: 'DisplayNotFoundError' });
    expect((error as Error).message).toMatch(/^No display: .*xvfb-run -a/);
  });
});

describe('entry points without a display (child process: a crash would kill it)', () => {
  it.each([
    ['DISPLAY unset', {}],
    ['a bogus DISPLAY', { DISPLAY: ':4242' }],
    ['Wayland without X', { WAYLAND_DISPLAY: 'wayland-0', XDG_SESSION_TYPE: 'wayland' }],
  ])('%s: rejects with MIME_NO_DISPLAY and exits cleanly', async (_name, env) => {
    const result = await runWithout(env);
    expect(result.stderr).toBe('');
    expect(result).toMatchObject({ exitCode: 0, signal: null });
    const codes = result.stdout
      .trim()
      .split('\n')
      .map((line) => line.split(' ').slice(0, 2).join(' '));
    expect(codes).toEqual([
      'createDesktop MIME_NO_DISPLAY',
      'captureFrame MIME_NO_DISPLAY',
      'startHooks MIME_NO_DISPLAY',
    ]);
  });
});
