import { sleep, waitUntil } from '@mime-desktop/test-support/wait';
import { describe, expect, it } from 'vitest';
import { DesktopLock } from '../src/desktop-lock.ts';

describe('the desktop lock', () => {
  it('refuses a second replay while one runs, and runs it once the first ended', async () => {
    const lock = new DesktopLock({ queue: false });
    const order: string[] = [];
    const first = lock.run('workflow "a"', async () => {
      await sleep(50);
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
          await sleep(30 - i * 10);
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
        order.push('a started');
        await sleep(50);
        order.push('a ended');
      },
      cancel.signal,
    );
    await waitUntil(() => order.includes('a started'), { what: 'a replaying' });
    cancel.abort();
    await lock.run('b', async () => order.push('b'));
    await first;
    expect(order).toEqual(['a started', 'a ended', 'b']);
  });
});
