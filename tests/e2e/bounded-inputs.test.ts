/**
 * Hostile files end fast with exit 2 naming the problem: `schema.json` as a named pipe or a link to
 * /dev/zero (validate, replay; list shows it as a problem), a manifest frame that is a 20000x20000 PNG
 * bomb or leaves the folder, a recorded click at (1e9, -5) and a runaway scroll.
 */
import { execFileSync } from 'node:child_process';
import { readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { copyWorkflow, tempDir } from '@mime-desktop/test-support/e2e-rig';
import { REPO_ROOT, runMime } from '@mime-desktop/test-support/run-mime';
import { describe, expect, it } from 'vitest';

const _FIXTURE = join(REPO_ROOT, 'fixtures', 'workflows', 'play-song-recorded');

async function copy(): Promise<{ home: string; workflow: string }> {
  const home = await tempDir('mime-bounded-');
  const workflow = await copyWorkflow('play-song-recorded', undefined, {
    as: 'play-song',
    into: join(home, 'workflows'),
  });
  return { home, workflow };
}

/** A PNG of `width`x`height` by its header, with no pixel data worth decoding: a bomb by size. */
function pngHeader(width: number, height: number): Buffer {
  const ihdr = Buffer.alloc(25);
  ihdr.writeUInt32BE(13, 0);
  ihdr.write('IHDR', 4, 'ascii');
  ihdr.writeUInt32BE(width, 8);
  ihdr.writeUInt32BE(height, 12);
  ihdr.set([8, 2, 0, 0, 0], 16);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    ihdr,
    Buffer.alloc(64),
  ]);
}

async function timed(args: string[], home: string) {
  const started = performance.now();
  const result = await runMime(args, { env: { MIME_HOME: home, DISPLAY: ':99999' } });
  return { ...result, ms: performance.now() - started };
}

describe('hostile files end fast with exit 2', () => {
  it('schema.json as a named pipe or a link to /dev/zero', async () => {
    for (const make of ['fifo', 'zero'] as const) {
      const { home, workflow } = await copy();
      const file = join(workflow, 'schema.json');
      await rm(file);
      if (make === 'fifo') execFileSync('mkfifo', [file]);
      else await symlink('/dev/zero', file);
      const kind = make === 'fifo' ? 'a named pipe \\(FIFO\\)' : 'a device';
      for (const args of [
        ['validate', workflow],
        ['replay', workflow, '--param', 'song_name=x'],
      ]) {
        const result = await timed(args, home);
        expect(result.exitCode, `${args[0]} ${make}: ${result.stderr}`).toBe(2);
        expect(result.stderr).toMatch(
          new RegExp(`schema\\.json:(?: 1 problem\\n\\s*)? is ${kind}, not a regular file`),
        );
        expect(result.ms).toBeLessThan(5000);
      }
      const listed = await timed(['list', '--json'], home);
      expect(listed.exitCode).toBe(0);
      expect(JSON.parse(listed.stdout).workflows[0]).toMatchObject({
        state: 'invalid',
        problem: expect.stringMatching(/not a regular file/),
      });
    }
  });

  it('a recorded frame that is a PNG bomb, or leaves the folder, is refused before the desktop is touched', async () => {
    const bomb = await copy();
    await writeFile(join(bomb.workflow, 'screenshots', '2.png'), pngHeader(20000, 20000));
    const refused = await timed(['replay', bomb.workflow, '--param', 'song_name=x'], bomb.home);
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toContain(
      'screenshots/2.png: manifest.jsonl line 3: a 20000x20000 image; mime reads screenshots of 1 to 8192 pixels a side',
    );

    const outside = await copy();
    const manifest = join(outside.workflow, 'manifest.jsonl');
    const lines = (await readFile(manifest, 'utf8')).trim().split('\n');
    lines[1] = lines[1]?.replace('"screenshots/1.png"', '"../../../outside.png"') ?? '';
    await writeFile(manifest, `${lines.join('\n')}\n`);
    const out = await timed(['replay', outside.workflow, '--param', 'song_name=x'], outside.home);
    expect(out.exitCode).toBe(2);
    expect(out.stderr).toMatch(
      /manifest\.jsonl: not a valid recording manifest .*\n\s*line 2: screenshot: the path leaves the folder/,
    );
  });

  it('a recorded click at (1e9, -5) or a scroll of 1e9 is refused by validate and replay', async () => {
    const { home, workflow } = await copy();
    const manifest = join(workflow, 'manifest.jsonl');
    const lines = (await readFile(manifest, 'utf8')).trim().split('\n');
    lines[0] = lines[0]?.replace('"x":240,"y":120', '"x":1e9,"y":-5') ?? '';
    await writeFile(manifest, `${lines.join('\n')}\n`);
    const result = await timed(['replay', workflow, '--param', 'song_name=x'], home);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toMatch(/manifest\.jsonl.*line 1.*x.*(65535|too big)/is);
  });
});
