import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { withFolderLock } from '../src/folder-lock.ts';

const later = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('the folder lock', () => {
  it('runs two writers one after the other', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'mime-lock-'));
    const order: string[] = [];
    const writer = (name: string) =>
      withFolderLock(folder, { holder: name }, async () => {
        order.push(`${name} in`);
        await later(150);
        order.push(`${name} out`);
      });
    await Promise.all([writer('a'), later(20).then(() => writer('b'))]);
    expect(order).toEqual(['a in', 'a out', 'b in', 'b out']);
  });

  it('tells a writer that waited too long who holds the lock', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'mime-lock-'));
    const holding = withFolderLock(folder, { holder: 'mime heal --apply' }, () => later(800));
    await later(50);
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
    const folder = await mkdtemp(join(tmpdir(), 'mime-lock-'));
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
    expect(await withFolderLock(folder, { holder: 'mime edit', waitMs: 5000 }, async () => 'written')).toBe(
      'written',
    );
    expect(performance.now() - started).toBeLessThan(1000);
  });
});
