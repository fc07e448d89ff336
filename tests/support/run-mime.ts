import { join } from 'node:path';
import { execa, type ResultPromise } from 'execa';
import { onTestFinished } from 'vitest';
import { sleep } from './wait.ts';

export const REPO_ROOT = join(import.meta.dirname, '..', '..');
/** The `mime` a user of a clone runs: the sources through tsx. */
export const SOURCE_BIN = join(REPO_ROOT, 'packages', 'cli', 'bin', 'mime.js');
/**
 * The `mime` the tests start: MIME_TEST_BIN, which vitest points at a bundle of the CLI built once per
 * run (tests/support/bundle-setup.ts, scripts/bundle.ts: a start costs 0.2 s of CPU instead of 0.5 s
 * through tsx), else the sources (scripts such as `pnpm demo`). A few tests run SOURCE_BIN, the path
 * users of a clone run: tests/e2e/cli-basics.test.ts (every command's help and errors), demo.test.ts
 * (`pnpm demo` as the README has a user run it) and pack-install.test.ts (the packed tarballs).
 */
export const MIME_BIN = process.env.MIME_TEST_BIN || SOURCE_BIN;

export interface MimeResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/**
 * Ends `child` when the test that started it is over, if it still runs: a test that timed out must not
 * leave a replay driving its display (and holding the display's lock) into the next test. Outside a
 * test (a `beforeAll` hook) the caller ends it.
 */
function endWithTest(child: ResultPromise): void {
  try {
    onTestFinished(() => {
      if (child.exitCode === null) child.kill('SIGTERM');
    });
  } catch {
    // Not inside a test.
  }
}

/**
 * Runs the real `mime` binary as a user would. Colours are off and no model settings leak in from
 * the machine unless the test passes them.
 */
export async function runMime(
  args: readonly string[],
  options: { env?: Record<string, string | undefined>; cwd?: string; input?: string; bin?: string } = {},
): Promise<MimeResult> {
  const child = execa(process.execPath, [options.bin ?? MIME_BIN, ...args], {
    cwd: options.cwd ?? REPO_ROOT,
    env: mimeEnv(options.env),
    extendEnv: true,
    reject: false,
    input: options.input ?? '',
  });
  endWithTest(child);
  const result = await child;
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
  endWithTest(child);
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
