/**
 * A workflow's tool call replays with its params resolved once: the value the call gives is read
 * once, by the check before the desktop is asked for, and the run renders that value without
 * resolving it again. The replay is real up to its start (prepareReplay); the desktop part is stood
 * in for (no display here: tests/e2e/mcp.test.ts replays on a real one).
 */
import { loadWorkflow } from '@mime-desktop/schema';
import { copyWorkflow } from '@mime-desktop/test-support/e2e-rig';
import { countReads, type PreparedRun } from '@mime-desktop/test-support/read-count';
import { describe, expect, it, vi } from 'vitest';
import { DesktopLock } from '../src/desktop-lock.ts';
import { replayForTool, type ToolExtra } from '../src/replay-tool.ts';

/** What the stood-in replay was given and prepared. */
const seen = vi.hoisted((): PreparedRun[] => []);

vi.mock('@mime-desktop/replay', async (importOriginal) => {
  const { replayUpToStart } = await import('@mime-desktop/test-support/read-count');
  return replayUpToStart(importOriginal<typeof import('@mime-desktop/replay')>, seen);
});

/** A tool call's extra: no progress token, notifications and requests refused. */
const extra: ToolExtra = {
  signal: new AbortController().signal,
  requestId: 1,
  sendNotification: () => Promise.resolve(),
  sendRequest: () => Promise.reject(new Error('no requests in this test')),
};

describe('a tool call of a workflow', () => {
  it('resolves each param once: the value given is read once, and rendered where the run shows it', async () => {
    const dir = await copyWorkflow('play-song-recorded');
    const { workflow } = await loadWorkflow(dir);
    const { values: params, reads } = countReads<Record<string, string>>({ song_name: 'Faint' });
    const result = await replayForTool(
      { id: 'song', dir, workflow, tool: 'play_song' },
      { params, mode: 'trace' },
      extra,
      { lock: new DesktopLock({ queue: false }), queue: false, env: {}, runSetup: false },
    );
    expect(result).toMatchObject({ isError: true, content: [{ text: expect.stringMatching(/NO_DESKTOP/) }] });
    expect(reads).toEqual(['song_name']);
    expect(seen).toEqual([{ shown: { song_name: 'Faint' }, raw: undefined }]);
  });
});
