/**
 * A run started from the studio replays with its params resolved once: the value the form gives is
 * read once, by the check before anything runs, and the run renders that value without resolving it
 * again. The replay is real up to its start (prepareReplay); the desktop part is stood in for (no
 * display here: tests/e2e/studio-runs.test.ts replays on a real one).
 */
import { copyWorkflow } from '@mime-desktop/test-support/e2e-rig';
import { countReads, type PreparedRun } from '@mime-desktop/test-support/read-count';
import { describe, expect, it, vi } from 'vitest';
import { RunManager, type RunMessage } from '../src/run-manager.ts';

/** What the stood-in replay was given and prepared. */
const seen = vi.hoisted((): PreparedRun[] => []);

vi.mock('@mime-desktop/replay', async (importOriginal) => {
  const { replayUpToStart } = await import('@mime-desktop/test-support/read-count');
  return replayUpToStart(importOriginal<typeof import('@mime-desktop/replay')>, seen);
});

describe('a run from the studio', () => {
  it('resolves each param once: the value given is read once, and rendered where the run shows it', async () => {
    const workflowDir = await copyWorkflow('play-song-recorded');
    const { values: params, reads } = countReads<Record<string, string>>({ song_name: 'Faint' });
    const runs = new RunManager();
    const run = await runs.start({
      workflowId: 'song',
      workflowDir,
      mode: 'trace',
      params,
      secrets: {},
      fresh: false,
    });
    const end = await new Promise<RunMessage>((resolve) =>
      run.messages.listen((message) => message.kind === 'end' && resolve(message)),
    );
    expect(end).toMatchObject({ kind: 'end', code: 'MIME_TEST_NO_DESKTOP' });
    expect(reads).toEqual(['song_name']);
    expect(seen).toEqual([{ shown: { song_name: 'Faint' }, raw: undefined }]);
  });

  it('refuses a run whose param is missing, naming it, before anything runs', async () => {
    const workflowDir = await copyWorkflow('play-song-recorded');
    const runs = new RunManager();
    const start = { workflowId: 'song', workflowDir, mode: 'trace' as const, secrets: {}, fresh: false };
    await expect(runs.start({ ...start, params: {} })).rejects.toMatchObject({
      code: 'MIME_PARAMS_INVALID',
      message: expect.stringMatching(/missing: song_name/),
    });
    expect(runs.running('song')).toBeNull();
  });
});
