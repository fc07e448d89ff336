/**
 * A workflow exactly as ai_mime writes one, with no recording (as every marketplace workflow comes):
 * its v2 layout, a TYPE step whose value is null, metadata with ai_mime's compact date and an
 * optimized_plan.json (Pass C). An auto replay with the fake model on the demo app reaches the goal;
 * the model was shown each reference step's screen, the unset TYPE as its to decide and the Pass C
 * success criteria; the run said which files the workflow may read; and the file is left as it was.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { RunEvent } from '@mime-desktop/schema';
import { copyFixture, dataOf, readEvents } from '@mime-desktop/test-support/e2e-rig';
import { useModelRig } from '@mime-desktop/test-support/model-rig';
import { runMime } from '@mime-desktop/test-support/run-mime';
import { describe, expect, it } from 'vitest';

const rig = useModelRig();

describe('an auto replay of a workflow as ai_mime writes it, without a recording', () => {
  it('reaches the goal with the model, which decides the unset TYPE and sees the Pass C checks', async () => {
    const dir = join(await rig.tempDir('mime-ai-mime-run-'), 'play-song-ai-mime');
    await copyFixture('compat/ai_mime/schema.v2.json', join(dir, 'schema.json'));
    const schema = JSON.parse(await readFile(join(dir, 'schema.json'), 'utf8'));
    schema.plan.subtasks[0].steps[1].action_value = null;
    await writeFile(join(dir, 'schema.json'), JSON.stringify(schema, null, 2));
    await writeFile(
      join(dir, 'metadata.json'),
      JSON.stringify({
        session_id: '20260602T202321Z-play_song',
        name: 'play song',
        created_at: '20260602T202321Z',
      }),
    );
    await writeFile(
      join(dir, 'optimized_plan.json'),
      JSON.stringify({
        version: 1,
        user_filesystem_access: {
          readable_roots: [
            { path: '{music_dir}', reason: 'Covers are read from there.', approval_required: false },
          ],
          writable_roots: [],
        },
        inputs: [{ name: 'song_name', description: 'Song.', required: true, default: null }],
        constants: { music_dir: '/srv/music' },
        steps: [
          {
            id: 'search',
            source_subtask_ids: [0],
            executor: 'ui_agent',
            success_criteria: 'The results list the song.',
          },
        ],
      }),
    );
    const before = await readFile(join(dir, 'schema.json'), 'utf8');
    rig.useModel();
    const start = rig.server.chatRequests().length;
    await rig.desktop.resetApp();
    const result = await runMime(['replay', dir, '--mode', 'auto', '--param', 'song_name=Faint', '--json'], {
      env: rig.env(),
    });
    expect(result.exitCode, result.stderr).toBe(0);
    const summary = JSON.parse(result.stdout);
    expect((await rig.desktop.readAppState()).playing).toBe('Faint');
    expect(summary.extracts).toEqual({ extract_0: 'Faint' });
    expect(result.stderr).toContain(
      'files it may read: /srv/music (Covers are read from there.); write: none',
    );
    const events = await readEvents(summary.dir);
    const reasons = dataOf(events, 'handover').map((h) => String(h.reason));
    expect(reasons[0]).toContain('step 1 (TYPE) has no value in the workflow either: the model decides it');
    const prompts = rig.server
      .chatRequests()
      .slice(start)
      .map((r) => JSON.stringify(r.body));
    const first = prompts[0] ?? '';
    expect(first).toContain(
      'TYPE (text not recorded: decide it from the subtask, its params and earlier values)',
    );
    expect(first).toContain('On: The search field of the demo music app is focused.');
    expect(first).toContain('The results list the song.');
    expect(dataOf(events, 'run_start' as RunEvent['type'])[0].files).toEqual({
      read: ['/srv/music (Covers are read from there.)'],
      write: [],
    });
    expect(await readFile(join(dir, 'schema.json'), 'utf8')).toBe(before);
  }, 240_000);
});
