import { describe, expect, it } from 'vitest';
import { DesktopLock } from '../src/desktop-lock.ts';
import { uniqueToolNames } from '../src/tool-names.ts';

const later = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('the desktop lock', () => {
  it('refuses a second replay while one runs, and runs it once the first ended', async () => {
    const lock = new DesktopLock({ queue: false });
    const order: string[] = [];
    const first = lock.run('workflow "a"', async () => {
      await later(50);
      order.push('a');
    });
    await expect(lock.run('workflow "b"', async () => order.push('b'))).rejects.toMatchObject({
      code: 'MIME_DESKTOP_BUSY',
      message: expect.stringContaining('workflow "a" is replaying'),
    });
    await first;
    await lock.run('workflow "b"', async () => order.push('b'));
    expect(order).toEqual(['a', 'b']);
  });

  it('queues with --queue, in the order asked', async () => {
    const lock = new DesktopLock({ queue: true });
    const order: string[] = [];
    await Promise.all(
      ['a', 'b', 'c'].map((name, i) =>
        lock.run(name, async () => {
          await later(30 - i * 10);
          order.push(name);
        }),
      ),
    );
    expect(order).toEqual(['a', 'b', 'c']);
  });

  it('lets a call wait for a replay that is being cancelled', async () => {
    const lock = new DesktopLock({ queue: false });
    const cancel = new AbortController();
    const order: string[] = [];
    const first = lock.run(
      'a',
      async () => {
        await later(50);
        order.push('a ended');
      },
      cancel.signal,
    );
    await later(10);
    cancel.abort();
    await lock.run('b', async () => order.push('b'));
    await first;
    expect(order).toEqual(['a ended', 'b']);
  });
});

describe('tool names', () => {
  const named = (pairs: Array<[string, string]>) =>
    uniqueToolNames(
      pairs.map(([id, taskName]) => ({ id, taskName })),
      new Set(['replay']),
    );

  it('are made from task names, unique, never a generic tool', () => {
    const names = named([
      ['20261122T1000Z-a', 'Play song!'],
      ['20261122T1100Z-b', 'play-song'],
      ['20261122T1200Z-c', 'replay'],
      ['20261122T1300Z-d', 'Grüße senden'],
      ['20261122T1400Z-e', '???'],
    ]);
    expect(names[0]).toBe('play_song');
    expect(names[1]).toMatch(/^play_song_[0-9a-f]{6}$/);
    expect(names[2]).toMatch(/^replay_[0-9a-f]{6}$/);
    expect(names.slice(3)).toEqual(['gru_e_senden', 'workflow']);
  });

  it('keep each tool its name when a colliding workflow is added, in any folder order', () => {
    const before = named([['20261122T1000Z-play-song', 'Play song']]);
    const withNewer = named([
      ['20261126T0900Z-play-song', 'Play-Song!'],
      ['20261122T1000Z-play-song', 'Play song'],
    ]);
    expect(withNewer[1]).toBe(before[0]);
    expect(withNewer[0]).toMatch(/^play_song_[0-9a-f]{6}$/);
    const reversed = named([
      ['20261122T1000Z-play-song', 'Play song'],
      ['20261126T0900Z-play-song', 'Play-Song!'],
    ]);
    expect(reversed).toEqual([withNewer[1], withNewer[0]]);
  });
});
