import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { REPO_ROOT, runMime, SOURCE_BIN } from '@mime-desktop/test-support/run-mime';
import { describe, expect, it } from 'vitest';

/** Every command, in the order `mime --help` lists them. */
const COMMANDS = [
  'doctor',
  'record',
  'reflect',
  'edit',
  'studio',
  'replay',
  'report',
  'heal',
  'validate',
  'list',
  'batch',
  'mcp',
  'export',
  'pack',
  'install',
];

/** `mime` from its sources through tsx, as a user of a clone runs it (other e2e files run the bundle). */
const runSource = (args: readonly string[], options: Parameters<typeof runMime>[1] = {}) =>
  runMime(args, { ...options, bin: SOURCE_BIN });

describe('mime', () => {
  it('prints its version', async () => {
    const { version } = JSON.parse(
      await readFile(join(REPO_ROOT, 'packages', 'cli', 'package.json'), 'utf8'),
    );
    const result = await runSource(['--version']);
    expect(result).toMatchObject({ exitCode: 0, stdout: version });
  });

  it('lists the commands with the exit codes in --help', async () => {
    const result = await runSource(['--help']);
    expect(result.exitCode).toBe(0);
    const commands = [...result.stdout.matchAll(/^ {2}(\w+) /gm)].map((m) => m[1]);
    expect(commands).toEqual([...COMMANDS, 'help']);
    expect(result.stdout).toContain(
      'Exit codes: 0 ok, 1 the run failed, 2 bad input or usage, 75 the display is busy (another replay holds it), 130 aborted.',
    );
  });

  it('gives each command help with examples and exit codes', async () => {
    for (const command of COMMANDS) {
      const result = await runSource([command, '--help']);
      expect(result.exitCode).toBe(0);
      expect(result.stdout).toContain(`Examples:\n  mime ${command}`);
      expect(result.stdout).toMatch(/\nExit codes: 0 /);
    }
    // The typing pause's default is the toolkit's, as the input layer sets it.
    const replay = await runSource(['replay', '--help']);
    expect(replay.stdout.replace(/\s+/g, ' ')).toContain(
      "default by the app's toolkit: 10 ms for GTK and unknown apps, 0 for Qt and Chromium",
    );
  });

  it('takes --no-color on every command, as NO_COLOR', async () => {
    const colored = await runSource(['replay', 'no-such-workflow'], {
      env: { NO_COLOR: undefined, FORCE_COLOR: '1' },
    });
    expect(colored.stderr).toContain('\u001b[');
    const plain = await runSource(['replay', 'no-such-workflow', '--no-color'], {
      env: { NO_COLOR: undefined, FORCE_COLOR: '1' },
    });
    expect(plain.exitCode).toBe(2);
    expect(plain.stderr).toContain('error [MIME_FILE_UNREADABLE] no-such-workflow: no such workflow folder');
    expect(plain.stderr).not.toContain('\u001b[');
  });

  it('with --json, reports an error as JSON on stdout: code, message, hint', async () => {
    const missing = await runSource(['replay', 'no-such-workflow', '--json']);
    expect(missing.exitCode).toBe(2);
    expect(JSON.parse(missing.stdout)).toEqual({
      ok: false,
      error: {
        code: 'MIME_FILE_UNREADABLE',
        message: 'no-such-workflow: no such workflow folder or file; check the path',
        hint: null,
      },
    });
    const usage = await runSource(['list', '--json', '--frob']);
    expect(usage.exitCode).toBe(2);
    expect(JSON.parse(usage.stdout)).toMatchObject({
      ok: false,
      error: { code: 'MIME_USAGE', message: "unknown option '--frob'" },
    });
    const reporter = await runSource(['replay', 'x', '--json', '--reporter', 'tap', 'out.tap']);
    expect(reporter.exitCode).toBe(2);
    expect(JSON.parse(reporter.stdout).error.message).toMatch(
      /^--reporter takes a reporter and its file, e\.g\. --reporter junit results\.xml/,
    );
  });

  it('rejects an unknown command or option with exit 2 and a suggestion', async () => {
    const unknown = await runSource(['valdate']);
    expect(unknown.exitCode).toBe(2);
    expect(unknown.stderr).toContain("unknown command 'valdate'");
    expect(unknown.stderr).toContain('Did you mean validate?');
    const option = await runSource(['list', '--frob']);
    expect(option.exitCode).toBe(2);
    expect(option.stderr).toContain("unknown option '--frob'");
  });
});
