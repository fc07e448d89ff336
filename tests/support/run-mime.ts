import { join } from 'node:path';
import { execa } from 'execa';

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
    env: {
      NO_COLOR: '1',
      MIME_BASE_URL: undefined,
      MIME_MODEL: undefined,
      MIME_API_KEY: undefined,
      OPENAI_API_KEY: undefined,
      MIME_HOME: undefined,
      XDG_CONFIG_HOME: join(REPO_ROOT, '.tmp', 'no-config'),
      ...options.env,
    },
    extendEnv: true,
    reject: false,
    input: options.input ?? '',
  });
  return { exitCode: result.exitCode ?? -1, stdout: result.stdout, stderr: result.stderr };
}
