/**
 * A row run in a worker process replays with its params as the batch checked them (checkRows): its
 * job carries each value with where it came from, and no sensitive value (that one goes by the
 * worker's environment); the worker resolves none again. The replay is real up to its start
 * (prepareReplay); the desktop part is stood in for (tests/e2e/batch.test.ts runs real workers).
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { loadWorkflow } from '@mime-desktop/schema';
import { copyWorkflow, tempDir } from '@mime-desktop/test-support/e2e-rig';
import { countReads, type PreparedRun } from '@mime-desktop/test-support/read-count';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type RowJob, replayRowJob, rowJob, rowSecrets, startRowWorker } from '../src/row-job.ts';
import { checkRows } from '../src/rows.ts';

/** What the stood-in replay was given and prepared. */
const seen = vi.hoisted((): PreparedRun[] => []);

vi.mock('@mime-desktop/replay', async (importOriginal) => {
  const { replayUpToStart } = await import('@mime-desktop/test-support/read-count');
  return replayUpToStart(importOriginal<typeof import('@mime-desktop/replay')>, seen);
});

afterEach(() => {
  seen.length = 0;
  vi.unstubAllEnvs();
});

const SECRET = 's3cret-from-the-row';

/** A workflow with a param taken from its example, an optional one, and a sensitive one; the job of its one row. */
async function job(row: Record<string, string>) {
  const dir = await copyWorkflow('play-song-recorded', (schema) => {
    schema.task_params.push(
      { name: 'volume', type: 'integer', example: '5' },
      { name: 'note', example: null, optional: true },
      { name: 'token', example: null, sensitive: true },
    );
  });
  const { workflow } = await loadWorkflow(dir);
  const { values, reads } = countReads(row);
  const [checked] = checkRows(
    workflow,
    { file: 'rows.csv', columns: Object.keys(row), rows: [values] },
    { allowSecrets: true, useExamples: true },
  );
  if (!checked) throw new Error('the row was not checked');
  const made = rowJob(dir, checked, join(dir, 'row-1'), { mode: 'trace' });
  // What crosses the process boundary: the job as JSON, the secrets as the worker's environment.
  return { dir, wire: JSON.stringify(made), secrets: rowSecrets(checked), reads };
}

describe('a row in a worker process', () => {
  it('replays with the params the batch resolved, resolving none again, its secret only in its environment', async () => {
    const { wire, secrets, reads } = await job({ song_name: 'Faint', token: SECRET });
    // Each value given is read once, by the batch's check.
    expect(reads).toEqual(['song_name', 'token']);
    expect(wire).not.toContain(SECRET);
    const sent = JSON.parse(wire) as RowJob;
    expect(sent.params).toEqual({
      resolved: {
        song_name: { value: 'Faint', source: 'override' },
        volume: { value: '5', source: 'example' },
        note: null,
      },
      pending: ['token'],
    });
    // The examples were used when the row was checked: the worker is not asked to use them again.
    expect(sent.options).toEqual({ mode: 'trace' });
    expect(secrets).toEqual({ MIME_PARAM_TOKEN: SECRET });

    for (const [name, value] of Object.entries(secrets)) vi.stubEnv(name, value);
    const result = await replayRowJob(sent);
    expect(result).toMatchObject({ ok: false, code: 'MIME_TEST_NO_DESKTOP' });
    // Resolved again without the examples, volume would be missing; its value is the one the batch took.
    expect(seen).toEqual([
      { shown: { song_name: 'Faint', volume: '5', note: '', token: '{token}' }, raw: undefined },
    ]);
  });

  it('takes a secret the row does not give from its environment, and refuses a run without it', async () => {
    const { wire } = await job({ song_name: 'Faint' });
    const sent = JSON.parse(wire) as RowJob;
    expect(sent.params.pending).toEqual(['token']);
    vi.stubEnv('MIME_PARAM_TOKEN', '');
    expect(await replayRowJob(sent)).toMatchObject({
      ok: false,
      code: 'MIME_PARAMS_INVALID',
      message: expect.stringMatching(/missing: token/),
    });
    vi.stubEnv('MIME_PARAM_TOKEN', SECRET);
    expect(await replayRowJob(sent)).toMatchObject({ ok: false, code: 'MIME_TEST_NO_DESKTOP' });
    expect(seen.map((s) => s.shown.token)).toEqual(['{token}']);
  });

  it('refuses params checked against another version of the workflow, naming what differs', async () => {
    const { dir, wire, secrets } = await job({ song_name: 'Faint', token: SECRET });
    for (const [name, value] of Object.entries(secrets)) vi.stubEnv(name, value);
    const schema = JSON.parse(await readFile(join(dir, 'schema.json'), 'utf8'));
    schema.task_params.push({ name: 'speed', example: '1' });
    await writeFile(join(dir, 'schema.json'), JSON.stringify(schema));
    expect(await replayRowJob(JSON.parse(wire) as RowJob)).toMatchObject({
      ok: false,
      code: 'MIME_REPLAY_OPTION_INVALID',
      message: expect.stringMatching(/another version of the workflow \(speed differ\)/),
    });
    expect(seen).toEqual([]);
  });
});

describe('a worker process started ahead of its row', () => {
  it('answers the job it is given once loaded, and ends without one when stopped', async () => {
    const dir = await tempDir('mime-row-worker-');
    // Both start at once, as a batch starts the next row's worker while a row runs.
    const given = startRowWorker(process.env);
    const unused = startRowWorker(process.env);
    const missing = join(dir, 'no-workflow');
    const answer = await given.run({
      workflow: missing,
      params: { resolved: {}, pending: [] },
      runsDir: dir,
      options: {},
    });
    // A real process's answer: its replay could not read the workflow.
    expect(answer).toMatchObject({ ok: false, code: expect.stringMatching(/^MIME_/) });
    expect(answer?.ok === false && answer.message).toContain(missing);
    // Never given a job, it ends when stopped (a worker left waiting would time the test out).
    await expect(unused.stop()).resolves.toBeUndefined();
  }, 60_000);
});
