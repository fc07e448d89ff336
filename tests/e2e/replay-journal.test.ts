/**
 * What a run knows about itself, on the demo app under Xvfb: an auto run whose second subtask is
 * handed to the agent, which replans inside it, ends with one report section per subtask and a
 * replan prompt that lists the traced steps; its folder satisfies the run contract strictly; and auto
 * on an unchanged screen never needs the model.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeReport } from '@mime-desktop/report';
import { ExtractsFile, RunSummary, runEventProblems, TaskMemoryFile } from '@mime-desktop/schema';
import { copyWorkflow, readEvents, useDesktop } from '@mime-desktop/test-support/e2e-rig';
import { startFakeModelServer } from '@mime-desktop/test-support/fake-model-server';
import { createFakeVisionModel } from '@mime-desktop/test-support/fake-vision-model';
import { runMime } from '@mime-desktop/test-support/run-mime';
import { describe, expect, it } from 'vitest';

const workflowCopy = () => copyWorkflow('play-song-recorded');

describe('a hand-over with a replan inside it', () => {
  const desktop = useDesktop({ query: 'play=Listen' });
  it('reports each subtask once, gives the replan the traced steps, and keeps the run contract', async () => {
    await desktop().resetApp();
    const server = await startFakeModelServer();
    const model = createFakeVisionModel({ faults: { replanFirst: true } });
    server.setHandler(model.handler);
    try {
      const dir = await workflowCopy();
      const result = await runMime(
        ['replay', dir, '--mode', 'auto', '--param', 'song_name=Faint', '--json'],
        { env: { DISPLAY: desktop().display, MIME_BASE_URL: server.url, MIME_MODEL: 'fake-vision' } },
      );
      expect(result.exitCode, result.stderr).toBe(0);
      expect((await desktop().readAppState()).playing).toBe('Faint');
      const summary = RunSummary.parse(JSON.parse(result.stdout));
      expect(
        summary.subtasks.map((s) => [s.subtask_i, s.origin, s.outcome, s.steps.map((x) => x.executed_by)]),
      ).toEqual([
        [0, 'workflow', 'success', ['trace', 'trace', 'trace']],
        [1, 'workflow', 'replanned', ['skipped', 'skipped']],
        [2, 'replan', 'success', ['agent', 'agent']],
      ]);
      const runDir = join(dir, '.replay', summary.run_id);
      const events = await readEvents(runDir);

      // One start and one end per subtask: no ghost of the handed-over subtask.
      const starts = events.filter((e) => e.type === 'subtask_start').map((e) => e.subtask_i);
      const ends = events.filter((e) => e.type === 'subtask_end').map((e) => e.subtask_i);
      expect(starts).toEqual([0, 1, 2]);
      expect(ends).toEqual([0, 1, 2]);
      expect(events.find((e) => e.type === 'handover')).toMatchObject({
        subtask_i: 1,
        data: { completed_steps: [] },
      });

      // The replan was told what the traced steps did (seed 004's completed-step context).
      const replan = model.turns.find((t) => t.kind === 'replan');
      expect(replan?.prompt).toMatch(
        /DONE 1\. step 0 \(.*\): left_click at \(240, 120\), replayed from the recording/,
      );
      expect(replan?.prompt).toMatch(/DONE \d\. step 1 \(.*\): type "Faint", replayed from the recording/);
      expect(replan?.prompt).toMatch(/Subtask done: Search for Faint/);
      const replanEvent = events.find((e) => e.type === 'replan');
      expect(replanEvent?.data.completed).toEqual(
        expect.arrayContaining([expect.stringMatching(/^step 2 /)]),
      );

      // The folder keeps the run contract: every event's data, the JSON files, and a strict report.
      for (const event of events) expect(runEventProblems(event), event.type).toEqual([]);
      TaskMemoryFile.parse(JSON.parse(await readFile(join(runDir, 'task_memory.json'), 'utf8')));
      expect(ExtractsFile.parse(JSON.parse(await readFile(join(runDir, 'extracts.json'), 'utf8')))).toEqual({
        song_now_playing: 'Faint',
      });
      const report = await writeReport(runDir, { strict: true });
      const page = await readFile(report, 'utf8');
      const ids = [...page.matchAll(/ id="([^"]+)"/g)].map((m) => m[1]);
      expect(new Set(ids).size).toBe(ids.length);
      expect(page.match(/<section class="subtask/g)?.length).toBe(3);
      expect(summary.report_error).toBeNull();
    } finally {
      await server.close();
      await model.close();
    }
  });
});

describe('auto on an unchanged screen', () => {
  const desktop = useDesktop();
  it('replays 10 times in a row with 0 model calls', async () => {
    for (let run = 0; run < 10; run += 1) {
      await desktop().resetApp();
      const song = ['Faint', 'Numb', 'Crawling'][run % 3] as string;
      const result = await runMime(
        ['replay', await workflowCopy(), '--param', `song_name=${song}`, '--json'],
        {
          env: { DISPLAY: desktop().display },
        },
      );
      expect(result.exitCode, `run ${run}: ${result.stderr}`).toBe(0);
      expect(JSON.parse(result.stdout)).toMatchObject({ outcome: 'success', usage: { calls: 0 } });
      expect((await desktop().readAppState()).playing).toBe(song);
    }
  }, 180_000);
});
