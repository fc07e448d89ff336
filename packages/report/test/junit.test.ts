import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { BatchFile, RunSummary } from '@mime-desktop/schema';
import { junitSchemaErrors } from '@mime-desktop/test-support/junit-schema';
import { REPO_ROOT } from '@mime-desktop/test-support/run-mime';
import { describe, expect, it } from 'vitest';
import { batchJunit, runJunit } from '../src/junit.ts';

const summary = async () =>
  RunSummary.parse(
    JSON.parse(
      await readFile(join(REPO_ROOT, 'fixtures', 'runs', 'play-song-replan', 'summary.json'), 'utf8'),
    ),
  );

const batch: BatchFile = BatchFile.parse({
  workflow: 'wf',
  task_name: 'play song',
  rows_file: 'rows.csv',
  started_at: '2026-11-24T10:00:00.000Z',
  ended_at: '2026-11-24T10:01:00.000Z',
  workers: 2,
  rows: [
    {
      row: 1,
      params: { song_name: 'Faint' },
      outcome: 'success',
      duration_ms: 2500,
      run: 'row-1/20261124T100000Z-aaaa',
    },
    {
      row: 2,
      params: { song_name: 'Nope & <Co>', password: '{password}' },
      outcome: 'failed',
      code: 'MIME_REPLAY_DIVERGENCE',
      reason: 'step 3 (click): the target does not look as recorded',
      duration_ms: 4000,
      run: 'row-2/20261124T100005Z-bbbb',
    },
    { row: 3, params: { song_name: 'Numb' }, outcome: 'not_run', run: null },
  ],
  counts: { success: 1, failed: 1, not_run: 1 },
});

describe('JUnit XML', () => {
  it('a run: a test case per subtask, the replanned one skipped, valid against the Jenkins xUnit schema', async () => {
    const xml = runJunit(await summary(), '/runs/x/report.html');
    expect(await junitSchemaErrors(xml)).toEqual([]);
    expect(xml.match(/<testcase /g)).toHaveLength(3);
    expect(xml).toMatch(
      /<testsuite name="play a song in the demo player"[^>]* tests="3" failures="0" errors="0" skipped="1"/,
    );
    expect(xml).toContain('<system-out><![CDATA[/runs/x/report.html]]></system-out>');
  });

  it('a failed run: the failing subtask carries the code and reason; one outside any subtask gets a case "run"', async () => {
    const base = await summary();
    const failed = {
      ...base,
      outcome: 'failed' as const,
      code: 'MIME_REPLAY_DIVERGENCE',
      reason: 'step 0 (left_click at (240, 120)): the target does not look as recorded',
      subtasks: base.subtasks.map((s, i) => (i === 2 ? { ...s, outcome: 'failed' as const } : s)),
    };
    const xml = runJunit(failed, null);
    expect(await junitSchemaErrors(xml)).toEqual([]);
    expect(xml).toContain(
      '<failure message="step 0 (left_click at (240, 120)): the target does not look as recorded" type="MIME_REPLAY_DIVERGENCE"/>',
    );
    const budget = {
      ...failed,
      code: 'MIME_BUDGET_WALL_TIME',
      reason: 'out of time',
      subtasks: base.subtasks,
    };
    const between = runJunit(budget, null);
    expect(await junitSchemaErrors(between)).toEqual([]);
    expect(between).toMatch(
      /<testcase classname="play a song in the demo player" name="run">\s*<failure message="out of time" type="MIME_BUDGET_WALL_TIME"\/>/,
    );
    const aborted = runJunit({ ...failed, outcome: 'aborted', code: 'MIME_ABORTED', reason: 'Ctrl+C' }, null);
    expect(aborted).toContain('<error message="Ctrl+C" type="MIME_ABORTED"/>');
    expect(await junitSchemaErrors(aborted)).toEqual([]);
  });

  it('a batch: a test case per row named by its params (escaped), its report as output', async () => {
    const xml = batchJunit(batch);
    expect(await junitSchemaErrors(xml)).toEqual([]);
    expect(xml).toContain('name="row 2: song_name=Nope &amp; &lt;Co>, password={password}"');
    expect(xml).toContain('<system-out><![CDATA[row-2/20261124T100005Z-bbbb/report.html]]></system-out>');
    expect(xml).toMatch(/name="row 3: song_name=Numb" time="0">\s*<skipped\/>/);
  });

  it('the schema check tells a file the Jenkins schema refuses from a valid one', async () => {
    const xml = batchJunit(batch);
    // junit-report-builder's own root carries a skipped count, which Jenkins' schema does not allow.
    const refused = xml.replace('<testsuites ', '<testsuites skipped="1" ');
    expect(await junitSchemaErrors(refused)).toEqual([
      expect.stringContaining(
        "Element 'testsuites', attribute 'skipped': The attribute 'skipped' is not allowed.",
      ),
    ]);
    expect(await junitSchemaErrors(xml.replace(/ name="row 1[^"]*"/, ''))).toEqual([
      expect.stringContaining("The attribute 'name' is required but missing."),
    ]);
  });
});
