/**
 * Recordings and workflows are shared between people: the real `mime` against crafted files. A path
 * that leaves its folder is refused before anything is read, sent or written; damaged files end in
 * exit 2 naming the file, never in an internal error; what mime writes is private whatever the umask.
 */
import { readdir, readFile, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { copyFixture, copyWorkflow, useTempDirs } from '@mime-desktop/test-support/e2e-rig';
import { type FakeModelServer, startFakeModelServer } from '@mime-desktop/test-support/fake-model-server';
import { reflectModel } from '@mime-desktop/test-support/fake-reflect-model';
import { MIME_BIN, REPO_ROOT, runMime } from '@mime-desktop/test-support/run-mime';
import { execa } from 'execa';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const fileTempDir = useTempDirs();

const _RECORDING = join(REPO_ROOT, 'fixtures', 'recordings', 'play-song');
const WORKFLOW = join(REPO_ROOT, 'fixtures', 'workflows', 'play-song');
const SESSION = '20261122T145700Z-play-song';

let server: FakeModelServer;
let home: string;
let outside: string;

beforeEach(async () => {
  server = await startFakeModelServer({ models: ['vision-1'] });
  server.setHandler(reflectModel());
  home = await fileTempDir('mime-hostile-');
  outside = await fileTempDir('mime-outside-');
  await writeFile(join(outside, 'id_ed25519'), '-----BEGIN OPENSSH PRIVATE KEY-----\nsecret\n');
  await copyFixture('recordings/play-song', join(home, 'recordings', SESSION));
});

afterEach(async () => {
  await server.close();
});

const session = () => join(home, 'recordings', SESSION);
const env = () => ({ MIME_BASE_URL: server.url, MIME_MODEL: 'vision-1' });
const reflectCli = () => runMime(['reflect', '--session', SESSION, '--home', home], { env: env() });

/** Rewrites line `n` (0-based) of the recording's manifest. */
async function editManifest(n: number, edit: (event: Record<string, unknown>) => void): Promise<void> {
  const file = join(session(), 'manifest.jsonl');
  const lines = (await readFile(file, 'utf8')).trim().split('\n');
  const event = JSON.parse(lines[n] as string);
  edit(event);
  lines[n] = JSON.stringify(event);
  await writeFile(file, `${lines.join('\n')}\n`);
}

describe('a crafted recording', () => {
  it('refuses a screenshot path that reads outside the recording, and sends nothing', async () => {
    const secret = join(outside, 'id_ed25519');
    await editManifest(0, (e) => {
      e.screenshot = `../../../../../../..${secret}`;
    });
    const result = await reflectCli();
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toMatch(/line 1: screenshot: the path leaves the folder \(\.\.\)/);
    expect(server.chatRequests()).toHaveLength(0);
    expect(await readdir(join(home))).toEqual(['recordings']);
  });

  it('refuses an absolute path and one that would write outside the workflow', async () => {
    await editManifest(1, (e) => {
      e.screenshot = '/etc/passwd';
    });
    await editManifest(2, (e) => {
      e.screenshot = '../../escape.png';
    });
    const result = await reflectCli();
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toMatch(/line 2: screenshot: the path is absolute/);
    expect(result.stderr).toMatch(/line 3: screenshot: the path leaves the folder/);
    expect(server.chatRequests()).toHaveLength(0);
    await expect(stat(join(home, 'escape.png'))).rejects.toThrow();
  });

  it('refuses a screenshot that is a symbolic link out of the recording', async () => {
    const link = join(session(), 'screenshots', '0.png');
    await execa('rm', [link]);
    await symlink(join(outside, 'id_ed25519'), link);
    const result = await reflectCli();
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toMatch(/MIME_UNSAFE_PATH/);
    expect(result.stderr).toMatch(/outside .* \(a symbolic link\?\)/);
    expect(server.chatRequests()).toHaveLength(0);
  });

  it('names a screenshot that is not a PNG, one that is a folder, and a click off the screen (exit 2)', async () => {
    await writeFile(join(session(), 'screenshots', '1.png'), 'GIF89a not a png');
    await execa('rm', [join(session(), 'screenshots', '2.png')]);
    await execa('mkdir', [join(session(), 'screenshots', '2.png')]);
    await editManifest(3, (e) => {
      (e.action_details as Record<string, number>).x = 9_000;
    });
    const result = await reflectCli();
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toMatch(/MIME_BAD_RECORDING/);
    expect(result.stderr).toMatch(/1\.png: manifest\.jsonl line 2: not a PNG image/);
    expect(result.stderr).toMatch(/2\.png: manifest\.jsonl line 3: is a directory, not a file/);
    expect(result.stderr).toMatch(/line 4: click at \(9000, 194\) is off the recorded 1280x800 screen/);
    expect(result.stderr).not.toMatch(/internal error/);
  });

  it('names a metadata.json nested 10,000 levels deep (exit 2, not a stack overflow)', async () => {
    await writeFile(join(session(), 'metadata.json'), `${'['.repeat(10_000)}${']'.repeat(10_000)}`);
    const result = await reflectCli();
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toMatch(/metadata\.json:1:65: invalid JSON: nested deeper than 64 levels/);
  });

  it('writes the copied and marked screenshots 0600 in 0700 folders, whatever the umask', async () => {
    for (const umask of ['000', '022']) {
      const result = await execa(
        'sh',
        [
          '-c',
          `umask ${umask} && exec "$0" "$@"`,
          process.execPath,
          MIME_BIN,
          'reflect',
          '--session',
          SESSION,
          '--home',
          home,
          '--force',
        ],
        { env: { ...env(), NO_COLOR: '1' }, reject: false },
      );
      expect(result.exitCode, result.stderr).toBe(0);
      const workflow = join(home, 'workflows', SESSION);
      for (const name of await readdir(join(workflow, 'screenshots'))) {
        expect(((await stat(join(workflow, 'screenshots', name))).mode & 0o777).toString(8), name).toBe(
          '600',
        );
      }
      expect(((await stat(join(workflow, 'screenshots'))).mode & 0o777).toString(8)).toBe('700');
      expect(((await stat(join(workflow, 'schema.json'))).mode & 0o777).toString(8)).toBe('600');
    }
  });
});

describe('a crafted workflow', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await copyWorkflow('play-song', undefined, { as: 'workflow', into: home });
  });
  const schemaFile = () => join(dir, 'schema.json');

  it('names 10,000-deep JSON, a __proto__ key, invalid UTF-8 and an unknown action type (exit 2)', async () => {
    const text = await readFile(schemaFile(), 'utf8');
    await writeFile(schemaFile(), `{"a":${'['.repeat(10_000)}`);
    let result = await runMime(['validate', dir]);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toMatch(/nested deeper than 64 levels/);

    await writeFile(schemaFile(), text.replace('{', '{"__proto__": {"polluted": true},'));
    result = await runMime(['validate', dir]);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toMatch(/Unrecognized key: "__proto__"/);

    await writeFile(
      schemaFile(),
      Buffer.concat([Buffer.from('{"task_name": "caf'), Buffer.from([0xe9]), Buffer.from('"}')]),
    );
    result = await runMime(['validate', dir]);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toMatch(/not valid UTF-8 text \(bad byte at offset 18\)/);
    expect(result.stderr).not.toMatch(/internal error/);
  });

  it('accepts a byte order mark', async () => {
    await writeFile(schemaFile(), `\uFEFF${await readFile(schemaFile(), 'utf8')}`);
    const result = await runMime(['validate', dir]);
    expect(result.exitCode, result.stderr).toBe(0);
  });

  it('refuses a step source that points outside the workflow', async () => {
    const schema = JSON.parse(await readFile(schemaFile(), 'utf8'));
    schema.plan.subtasks[0].steps[0].source = {
      event_index: 0,
      screenshot: '../../outside.png',
      point: { x: 1, y: 1 },
      end_point: null,
      box: null,
    };
    await writeFile(schemaFile(), JSON.stringify(schema));
    const result = await runMime(['validate', dir]);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toMatch(
      /plan\.subtasks\[0\]\.steps\[0\]\.source\.screenshot: the path leaves the folder/,
    );
  });
});

describe('bad settings and flags', () => {
  it('refuses a single-value flag given twice with two values (exit 2), as --param is', async () => {
    for (const [args, flag, values] of [
      [['replay', WORKFLOW, '--mode', 'trace', '--mode', 'agent'], '--mode', '"trace" and "agent"'],
      [
        ['replay', WORKFLOW, '--max-duration', '15', '--max-duration', '600'],
        '--max-duration',
        '"15" and "600"',
      ],
      [['list', '--home', home, '--home', outside], '--home', `"${home}" and "${outside}"`],
    ] as const) {
      const result = await runMime(args);
      expect(result.exitCode, result.stderr).toBe(2);
      expect(result.stderr).toContain(`${flag} is given twice, as ${values}: give it once`);
    }
    // The same value twice says nothing new: accepted.
    const same = await runMime(['list', '--home', home, '--home', home, '--json']);
    expect(same.exitCode, same.stderr).toBe(0);
  });

  it('says what is wrong with a number flag, a timeout, an API key and a URL with credentials', async () => {
    const flag = await runMime(['replay', WORKFLOW, '--max-model-calls', '1e23']);
    expect(flag.exitCode).toBe(2);
    expect(flag.stderr).toMatch(/--max-model-calls must be a whole number from 0 to 1000000, got "1e23"/);
    const delay = await runMime(['replay', WORKFLOW, '--type-delay', 'slow']);
    expect(delay.exitCode).toBe(2);
    expect(delay.stderr).toMatch(/--type-delay must be a whole number from 0 to 1000000, got "slow"/);

    const timeout = await runMime(['doctor', '--json'], {
      env: { MIME_BASE_URL: 'http://127.0.0.1:9/v1', MIME_MODEL: 'm', MIME_MODEL_TIMEOUT_MS: '-5' },
    });
    expect(timeout.stdout).toMatch(/MIME_MODEL_TIMEOUT_MS: must be a whole number of ms above 0/);

    const key = await runMime(['doctor', '--json'], {
      env: { MIME_BASE_URL: 'https://models.example/v1', MIME_MODEL: 'm', MIME_API_KEY: 'sk-abc\ndef' },
    });
    expect(key.stdout).toMatch(/MIME_API_KEY: must be printable characters without spaces or line breaks/);
    expect(key.stdout).not.toContain('sk-abc');

    const url = await runMime(['doctor', '--json'], {
      env: { MIME_BASE_URL: 'http://alice:hunter2@127.0.0.1:9/v1', MIME_MODEL: 'm' },
    });
    expect(url.stdout).toContain('http://***@127.0.0.1:9/v1');
    expect(url.stdout + url.stderr).not.toContain('hunter2');
  });
});
