import { join } from 'node:path';
import { execa } from 'execa';
import { sleep } from './wait.ts';

export const REPO_ROOT = join(import.meta.dirname, '..', '..');
export const MIME_BIN = join(REPO_ROOT, 'packages', 'cli', 'bin', 'mime.js');

export interface MimeResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs the real `mime` binary as a user would. Colours are off and no model settings leak in from
 * the machine unless the test passes them.
 */
export async function runMime(
  args: readonly string[],
  options: { env?: Record<string, string | undefined>; cwd?: string; input?: string } = {},
): Promise<MimeResult> {
  const result = await execa(process.execPath, [MIME_BIN, ...args], {
    cwd: options.cwd ?? REPO_ROOT,
    env: mimeEnv(options.env),
    extendEnv: true,
    reject: false,
    input: options.input ?? '',
  });
  return { exitCode: result.exitCode ?? -1, stdout: result.stdout, stderr: result.stderr };
}

/** A `mime` process running in the background. */
export interface RunningMime {
  /** Resolves with the first complete line on stdout. */
  waitForStdoutLine(timeoutMs?: number): Promise<string>;
  /** Resolves when stderr so far matches `pattern`. */
  /** Resolves the stderr so far once it matches `pattern`. */
  waitForStderr(pattern: RegExp, timeoutMs?: number): Promise<string>;
  kill(signal: NodeJS.Signals): void;
  /** Resolves when the process has exited. */
  done: Promise<MimeResult>;
}

function mimeEnv(env: Record<string, string | undefined> = {}): Record<string, string | undefined> {
  return {
    NO_COLOR: '1',
    MIME_BASE_URL: undefined,
    MIME_MODEL: undefined,
    MIME_API_KEY: undefined,
    OPENAI_API_KEY: undefined,
    MIME_HOME: undefined,
    XDG_CONFIG_HOME: join(REPO_ROOT, '.tmp', 'no-config'),
    ...env,
  };
}

/** Starts the real `mime` binary without waiting for it. */
export function startMime(
  args: readonly string[],
  options: { env?: Record<string, string | undefined>; cwd?: string } = {},
): RunningMime {
  const child = execa(process.execPath, [MIME_BIN, ...args], {
    cwd: options.cwd ?? REPO_ROOT,
    env: mimeEnv(options.env),
    extendEnv: true,
    reject: false,
    stdin: 'ignore',
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += String(chunk);
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += String(chunk);
  });
  const done = child.then((r) => ({
    exitCode: r.exitCode ?? -1,
    stdout: String(r.stdout),
    stderr: String(r.stderr),
  }));
  const waitFor = async (test: () => string | undefined, what: string, timeoutMs: number) => {
    const deadline = Date.now() + timeoutMs;
    let exited = false;
    void done.then(() => {
      exited = true;
    });
    for (;;) {
      const found = test();
      if (found !== undefined) return found;
      if (exited || Date.now() > deadline) {
        throw new Error(
          `mime ${args.join(' ')}: ${exited ? 'exited' : 'timed out'} before ${what}\nstdout: ${stdout}\nstderr: ${stderr}`,
        );
      }
      await sleep(25);
    }
  };
  return {
    waitForStdoutLine: (timeoutMs = 20_000) =>
      waitFor(
        () => (stdout.includes('\n') ? stdout.slice(0, stdout.indexOf('\n')) : undefined),
        'a stdout line',
        timeoutMs,
      ),
    waitForStderr: (pattern, timeoutMs = 20_000) =>
      waitFor(() => (pattern.test(stderr) ? stderr : undefined), `stderr matched ${pattern}`, timeoutMs),
    kill: (signal) => {
      child.kill(signal);
    },
    done,
  };
}
