/**
 * `mime export skill`: the skill folder passes the Agent Skills validator, and its run script, copied
 * elsewhere, replays the demo workflow under Xvfb with the mime that exported it.
 */
import { cp, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { copyWorkflow, tempDir, useDesktop, useTempDirs } from '@mime-desktop/test-support/e2e-rig';
import { REPO_ROOT, runMime } from '@mime-desktop/test-support/run-mime';
import { execa } from 'execa';
import { beforeAll, describe, expect, it } from 'vitest';

const desktop = useDesktop();
const fileTempDir = useTempDirs();

let home: string;

const env = () => ({
  ...(process.env as Record<string, string>),
  DISPLAY: desktop().display,
  NO_COLOR: '1',
  MIME_BASE_URL: '',
  MIME_MODEL: '',
  XDG_CONFIG_HOME: join(home, 'no-config'),
});

beforeAll(async () => {
  home = await fileTempDir('mime-mcp-');
  // Without the OCR cache: the skill carries the workflow's, and its run must be seen to write none.
  await copyWorkflow('play-song-recorded', undefined, {
    as: 'play-song',
    into: join(home, 'workflows'),
    ocrCache: false,
  });
}, 60_000);

describe('mime export skill', () => {
  it('writes a skill folder that passes the Agent Skills validator, whose run script replays the demo', async () => {
    const out = await tempDir('mime-skill-');
    const exported = await runMime(['export', 'skill', join(home, 'workflows', 'play-song'), '--out', out]);
    expect(exported.exitCode, exported.stderr).toBe(0);
    const dir = join(out, 'play-song');
    expect(exported.stdout.trim()).toBe(dir);
    const validator = join(REPO_ROOT, 'node_modules', '.bin', 'skills-ref');
    const valid = await execa(validator, ['validate', dir], { reject: false });
    expect(valid.stdout, valid.stderr).toContain('Valid skill');
    const skill = await readFile(join(dir, 'SKILL.md'), 'utf8');
    expect(skill).toMatch(/^---\nname: play-song\ndescription: /);
    expect(skill).toContain('| `song_name` | string | The text typed into the search field. | Numb |');
    expect(skill).toContain('## Success criteria\n\nThe requested song is playing.');
    // mime is not on npm yet: the skill says how to get it today, and the npm command for later.
    expect(skill).toContain('mime is not on npm yet: clone\nhttps://github.com/mime-desktop/mime');
    expect(skill).toContain('Once published: `npm install -g @mime-desktop/cli`.');
    // The validator refuses what breaks the format: a name that is not the folder's.
    await writeFile(join(out, 'broken.md'), skill.replace('name: play-song', 'name: Play_Song'));
    await cp(dir, join(out, 'broken'), { recursive: true });
    await cp(join(out, 'broken.md'), join(out, 'broken', 'SKILL.md'));
    const refused = await execa(validator, ['validate', join(out, 'broken')], { reject: false });
    expect(refused.exitCode).not.toBe(0);
    expect(refused.stdout + refused.stderr).toMatch(/must be lowercase/);

    // Copied elsewhere, its run script replays the demo with a new song and prints the summary: with
    // the mime that exported it, though another `mime` (npm's MIME-type tool, exiting 0) is named by
    // MIME_BIN and comes first on the PATH: the script asks each whether it is mime.
    const copied = join(await tempDir('mime-skill-copy-'), 'play-song');
    await cp(dir, copied, { recursive: true });
    const bin = await tempDir('mime-foreign-bin-');
    await writeFile(join(bin, 'mime'), '#!/bin/sh\necho application/octet-stream\n', { mode: 0o755 });
    const runsHome = await tempDir('mime-skill-home-');
    const listing = async () => (await readdir(copied, { recursive: true })).sort();
    const before = await listing();
    await desktop().resetApp();
    // Its own options pass to mime replay with their values; a name=value is a param.
    const run = await execa(
      process.execPath,
      [join(copied, 'scripts', 'run.mjs'), '--mode', 'trace', 'song_name=Yellow', '--max-duration', '120'],
      {
        env: {
          ...env(),
          MIME_BIN: join(bin, 'mime'),
          MIME_HOME: runsHome,
          PATH: `${bin}:${process.env.PATH}`,
        },
        reject: false,
      },
    );
    expect(run.exitCode, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({
      mode: 'trace',
      outcome: 'success',
      extracts: { song_now_playing: 'Yellow' },
    });
    // The run went under the mime home; the skill's folder is as it was.
    expect(await listing()).toEqual(before);
    const runs = await readdir(join(runsHome, 'skill-runs', 'play-song'));
    expect(runs).toHaveLength(1);
    expect(await readdir(join(runsHome, 'skill-runs', 'play-song', runs[0] as string))).toContain(
      'summary.json',
    );
    expect((await desktop().readAppState()).playing).toBe('Yellow');
  }, 90_000);
});
