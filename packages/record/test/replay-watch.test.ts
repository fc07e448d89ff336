/**
 * A recording and the display's lock: it refuses to start while a replay holds the display, and
 * tells the input given while one held it (the replay's) from the input before and after (a person's).
 */
import { acquireDisplayLock } from '@mime-desktop/os-io';
import { useTestDir } from '@mime-desktop/test-support/e2e-rig';
import { waitUntil } from '@mime-desktop/test-support/wait';
import { beforeEach, describe, expect, it } from 'vitest';
import { DisplayReplayingError, ReplayWatch } from '../src/index.ts';

const env = { DISPLAY: ':4243' };
const testDir = useTestDir('mime-watch-');
let dir: string;
beforeEach(() => {
  dir = testDir();
});

/** Resolves once the clock reads later than `time` (epoch ms): what comes next is after it. */
const after = (time: number) =>
  waitUntil(() => Date.now() > time, { intervalMs: 1, what: `the clock to pass ${time}` });

describe('a recording beside replays', () => {
  it('does not start while a replay holds the display', async () => {
    await expect(ReplayWatch.refuseWhileReplaying({ env, dir })).resolves.toBeUndefined();
    const lock = await acquireDisplayLock({
      command: 'mime replay play-song',
      workflow: 'play song',
      env,
      dir,
    });
    try {
      const refused = await ReplayWatch.refuseWhileReplaying({ env, dir }).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(DisplayReplayingError);
      expect(refused).toMatchObject({
        code: 'MIME_DESKTOP_BUSY',
        message: expect.stringMatching(
          new RegExp(
            `^a replay is running on the display :4243: mime replay play-song \\(pid ${process.pid}\\) since `,
          ),
        ),
      });
    } finally {
      await lock.release();
    }
  });

  it("tells input given while a replay held the display from a person's before and after it", async () => {
    const watch = new ReplayWatch({ env, dir, intervalMs: 20 });
    try {
      const before = Date.now();
      await after(before);
      const lock = await acquireDisplayLock({ command: 'mime mcp (claude-code)', env, dir });
      const during = Date.now();
      expect(await watch.heldAt(during)).toMatchObject({
        command: 'mime mcp (claude-code)',
        pid: process.pid,
      });
      await lock.release();
      // Input the replay gave is often written after it ended (a click waits out its double-click time).
      expect(await watch.heldAt(during)).toMatchObject({ command: 'mime mcp (claude-code)' });
      // A person's input after the look that saw the display free.
      await after(Date.now());
      expect(await watch.heldAt(before)).toBeNull();
      expect(await watch.heldAt(Date.now())).toBeNull();
    } finally {
      watch.stop();
    }
  });
});
