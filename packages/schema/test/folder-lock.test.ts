import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { tempDir } from '@mime-desktop/test-support/e2e-rig';
import { sleep, waitUntil } from '@mime-desktop/test-support/wait';
import { describe, expect, it } from 'vitest';
import { commitFiles, settleFolder, withFolderLock } from '../src/folder-lock.ts';

describe('the folder lock', () => {
  it('runs two writers one after the other', async () => {
    const folder = await tempDir('mime-lock-');
    const order: string[] = [];
    const writer = (name: string) =>
      withFolderLock(folder, { holder: name }, async () => {
        order.push(`${name} in`);
        await sleep(150);
        order.push(`${name} out`);
      });
    const first = writer('a');
    await waitUntil(() => order.includes('a in'), { what: 'a holding the lock' });
    await Promise.all([first, writer('b')]);
    expect(order).toEqual(['a in', 'a out', 'b in', 'b out']);
  });

  it('tells a writer that waited too long who holds the lock', async () => {
    const folder = await tempDir('mime-lock-');
    let held = false;
    const holding = withFolderLock(folder, { holder: 'mime heal --apply' }, async () => {
      held = true;
      await sleep(800);
    });
    await waitUntil(() => held, { what: 'the first writer holding the lock' });
    await expect(
      withFolderLock(folder, { holder: 'mime edit', waitMs: 200 }, async () => 1),
    ).rejects.toMatchObject({
      code: 'MIME_WORKFLOW_LOCKED',
      message: expect.stringMatching(
        new RegExp(`is being written by mime heal --apply \\(pid ${process.pid} on ${hostname()}, since `),
      ),
    });
    await holding;
  });

  it('takes over at once a lock left by a killed process', async () => {
    const folder = await tempDir('mime-lock-');
    await mkdir(join(folder, '.mime.lock'));
    const dead = 2 ** 22 + 12_345; // above pid_max's default: no such process
    await writeFile(
      join(folder, '.mime.lock.holder'),
      JSON.stringify({
        holder: 'mime reflect',
        pid: dead,
        host: hostname(),
        since: new Date().toISOString(),
      }),
    );
    const started = performance.now();
    expect(await withFolderLock(folder, { holder: 'mime edit', waitMs: 20_000 }, async () => 'written')).toBe(
      'written',
    );
    // Taken at once, not after waiting out the 20 s (a margin for a busy machine).
    expect(performance.now() - started).toBeLessThan(10_000);
  });
});

describe('a commit of several files', () => {
  it('writes them all, and a commit a killed writer left after its journal is finished by the next lock', async () => {
    const folder = await tempDir('mime-commit-');
    await writeFile(join(folder, 'a.json'), 'old a');
    await writeFile(join(folder, 'b.json'), 'old b');
    await withFolderLock(folder, { holder: 'test' }, () =>
      commitFiles(folder, [
        { path: 'a.json', data: 'new a' },
        { path: 'b.json', data: 'new b' },
      ]),
    );
    expect([
      await readFile(join(folder, 'a.json'), 'utf8'),
      await readFile(join(folder, 'b.json'), 'utf8'),
    ]).toEqual(['new a', 'new b']);
    expect(await readdir(folder)).toEqual(['a.json', 'b.json']);

    // Killed after renaming a.json, before b.json: the next writer's lock finishes the change.
    await writeFile(join(folder, 'a.json'), 'newer a');
    await writeFile(join(folder, 'b.json.mime-new'), 'newer b');
    await writeFile(join(folder, '.mime-commit.json'), JSON.stringify({ files: ['a.json', 'b.json'] }));
    await withFolderLock(folder, { holder: 'next' }, async () => undefined);
    expect(await readFile(join(folder, 'b.json'), 'utf8')).toBe('newer b');
    expect(await readdir(folder)).toEqual(['a.json', 'b.json']);
  });

  it('leaves the old files where a writer was killed before its journal, and the next reader removes its new ones', async () => {
    const folder = await tempDir('mime-commit-');
    await writeFile(join(folder, 'a.json'), 'old a');
    await writeFile(join(folder, 'b.json'), 'old b');
    // Killed after writing both new files (one still in write-file-atomic's temporary), before the journal.
    await writeFile(join(folder, 'a.json.mime-new'), 'new a');
    await writeFile(join(folder, 'b.json.mime-new.3141592653'), 'new b');
    await settleFolder(folder);
    expect(await readdir(folder)).toEqual(['a.json', 'b.json']);
    expect(await readFile(join(folder, 'a.json'), 'utf8')).toBe('old a');
  });

  it("leaves a live writer's new files to it: a reader takes its lock no longer than once", async () => {
    const folder = await tempDir('mime-commit-');
    await writeFile(join(folder, 'a.json'), 'old a');
    await withFolderLock(folder, { holder: 'writer' }, async () => {
      await writeFile(join(folder, 'a.json.mime-new'), 'new a');
      await settleFolder(folder);
      expect(await readdir(folder)).toContain('a.json.mime-new');
    });
  });
});
