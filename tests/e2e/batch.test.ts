/**
 * Data-driven runs: `mime replay --rows` on the demo app, each row on a private X server that mime
 * starts with the app from the workflow's setup; the Kubernetes flow (one row per pod with
 * `--row-index`, then `mime batch collect`) run for real minus Kubernetes; the manifests checked
 * against the Kubernetes API schemas.
 */
import { cp, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { BatchFile, RowRecord } from '@mime-desktop/schema';
import { demoAppSetup } from '@mime-desktop/test-support/desktop-harness';
import { copyWorkflow, readEvents, useTempDirs } from '@mime-desktop/test-support/e2e-rig';
import { junitSchemaErrors } from '@mime-desktop/test-support/junit-schema';
import { REPO_ROOT, runMime } from '@mime-desktop/test-support/run-mime';
import { Job } from 'kubernetes-models/batch/v1';
import { PersistentVolumeClaim } from 'kubernetes-models/v1';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';

const fileTempDir = useTempDirs();

const SONGS = [
  'Numb',
  'Faint',
  'Crawling',
  'Papercut',
  'Yellow',
  'Clocks',
  'Paradise',
  'Imagine',
  'Fix You',
  'Viva la Vida',
];
const NO_DISPLAY = { DISPLAY: undefined };

let root: string;
let workflow: string;

beforeAll(async () => {
  root = await fileTempDir('mime-batch-');
  workflow = await copyWorkflow(
    'play-song-recorded',
    (schema) => {
      schema.setup = demoAppSetup();
    },
    { as: 'workflow', into: root },
  );
});

async function rowsFile(name: string, songs: readonly string[]): Promise<string> {
  const file = join(root, name);
  await writeFile(file, `song_name\n${songs.map((s) => (s.includes(',') ? `"${s}"` : s)).join('\n')}\n`);
  return file;
}

const readBatch = async (dir: string) =>
  BatchFile.parse(JSON.parse(await readFile(join(dir, 'batch.json'), 'utf8')));
const runsOf = async (dir: string, row: number) =>
  (await readdir(join(dir, `row-${row}`))).filter((name) => /^\d{8}T\d{6}Z-/.test(name));

describe('mime replay --rows --workers 2', () => {
  /** Enough rows for both workers to take several each around the one that fails. */
  const ROWS = 10;
  it('runs 10 rows on private displays, reports the one that fails, and resumes only it', async () => {
    const songs = Array.from({ length: ROWS }, (_, i) =>
      i === 6 ? 'No Such Song' : (SONGS[i % SONGS.length] as string),
    );
    const rows = await rowsFile('rows.csv', songs);
    const out = join(root, 'batch-10');
    const result = await runMime(
      [
        'replay',
        workflow,
        '--rows',
        rows,
        '--workers',
        '2',
        '--out',
        out,
        '--step-timeout',
        '3',
        '--json',
        '--reporter',
        'junit',
        join(root, 'batch-10.xml'),
      ],
      { env: { ...NO_DISPLAY, GITHUB_ACTIONS: 'true' } },
    );
    expect(result.exitCode, result.stderr).toBe(1);
    // For CI: a JUnit test case per row (valid against the Jenkins schema), an annotation for the failed row.
    const xml = await readFile(join(root, 'batch-10.xml'), 'utf8');
    expect(await junitSchemaErrors(xml)).toEqual([]);
    expect(xml).toMatch(/<testsuite name="play song"[^>]* tests="10" failures="1" errors="0"/);
    expect(xml).toMatch(
      /<testcase classname="play song" name="row 7: song_name=No Such Song" time="[\d.]+">\s*<failure message="[^"]+" type="MIME_REPLAY_DIVERGENCE"\/>/,
    );
    expect(result.stderr).toMatch(
      /^::error title=mime replay%3A play song row 7 failed::\[MIME_REPLAY_DIVERGENCE\] /m,
    );
    expect(result.stderr.match(/^::error /gm)).toHaveLength(1);
    const lines = result.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toHaveLength(ROWS);

    const batch = await readBatch(out);
    expect(batch).toMatchObject({
      workers: 2,
      counts: { success: ROWS - 1, failed: 1, not_run: 0 },
      task_name: 'play song',
    });
    expect(batch.rows.map((r) => r.row)).toEqual(Array.from({ length: ROWS }, (_, i) => i + 1));
    for (const row of batch.rows) {
      expect(row.params).toEqual({ song_name: songs[row.row - 1] });
      expect(await runsOf(out, row.row)).toHaveLength(1);
      const summary = JSON.parse(await readFile(join(out, row.run as string, 'summary.json'), 'utf8'));
      expect(summary.outcome).toBe(row.outcome);
      if (row.outcome === 'success')
        expect(summary.extracts).toEqual({ song_now_playing: songs[row.row - 1] });
    }
    const failed = batch.rows.find((r) => r.outcome !== 'success');
    expect(failed).toMatchObject({
      row: 7,
      outcome: 'failed',
      code: 'MIME_REPLAY_DIVERGENCE',
      model_calls: 0,
    });

    const page = await readFile(join(out, 'batch.html'), 'utf8');
    expect(page.match(/href="row-\d+\/[^"]+\/report\.html"/g)).toHaveLength(ROWS);
    expect(page).toContain(`${ROWS - 1} of ${ROWS} rows succeeded, 1 failed`);
    expect(page).toContain('MIME_REPLAY_DIVERGENCE');

    const resume = await runMime(
      [
        'replay',
        workflow,
        '--rows',
        rows,
        '--workers',
        '2',
        '--only-failed',
        out,
        '--step-timeout',
        '3',
        '--json',
      ],
      {
        env: NO_DISPLAY,
      },
    );
    expect(resume.exitCode, resume.stderr).toBe(1);
    expect(
      resume.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).row),
    ).toEqual([7]);
    expect(await runsOf(out, 7)).toHaveLength(2);
    for (const row of [1, 6, 8, ROWS]) expect(await runsOf(out, row)).toHaveLength(1);
    const again = await readBatch(out);
    expect(again.counts).toEqual({ success: ROWS - 1, failed: 1, not_run: 0 });
    expect(again.rows[6]?.runs).toHaveLength(2);
  }, 600_000);
});

describe('one row per pod (Kubernetes Indexed Job), then mime batch collect', () => {
  it('selects the row by its 0-based index and merges the row folders', async () => {
    const rows = await rowsFile('pods.csv', ['Faint', 'Yellow', 'Numb']);
    const shared = join(root, 'shared-volume');
    // The pods of an Indexed Job run at once, on one volume; so do the refusals beside them (no row runs).
    const [pods, outside, notBatch] = await Promise.all([
      Promise.all(
        ['2', '0'].map((index) =>
          runMime(
            ['replay', workflow, '--rows', rows, '--row-index', index, '--workers', '1', '--out', shared],
            { env: NO_DISPLAY },
          ),
        ),
      ),
      runMime(['replay', workflow, '--rows', rows, '--row-index', '3', '--workers', '1']),
      runMime(['batch', 'collect', root]),
    ]);
    for (const pod of pods) expect(pod.exitCode, pod.stderr).toBe(0);
    expect((await readdir(shared)).sort()).toEqual(['batch.html', 'batch.json', 'row-1', 'row-3']);
    const row3 = RowRecord.parse(JSON.parse(await readFile(join(shared, 'row-3', 'row.json'), 'utf8')));
    expect(row3).toMatchObject({ row: 3, params: { song_name: 'Numb' }, outcome: 'success' });

    const collect = await runMime(['batch', 'collect', shared]);
    expect(collect.exitCode, collect.stderr).toBe(0);
    expect(collect.stderr).toContain('2 of 2 row(s) succeeded');
    const batch = await readBatch(shared);
    expect(batch.rows.map((r) => [r.row, r.outcome])).toEqual([
      [1, 'success'],
      [3, 'success'],
    ]);
    expect(batch.task_name).toBe('play song');

    expect(outside.exitCode).toBe(2);
    expect(outside.stderr).toContain('row index 3 is outside the 3 rows (0 to 2)');
    expect(notBatch.exitCode).toBe(2);
    expect(notBatch.stderr).toContain('holds no row-<n>/row.json');
  }, 120_000);
});

describe('rows files that cannot drive a batch (exit 2, nothing run)', () => {
  it('names an unknown column, a malformed CSV, a non-object JSONL line and flags without --rows', async () => {
    const file = async (name: string, text: string) => {
      const path = join(root, name);
      await writeFile(path, text);
      return path;
    };
    const files = await Promise.all([
      file('unknown.csv', 'song_name,volume\nFaint,11\n'),
      file('broken.csv', 'song_name\n"Faint\n'),
      file('rows.jsonl', '{"song_name": "Faint"}\n["Yellow"]\n'),
      // A row without a required param is refused, naming it: its recorded example is not filled in.
      file('missing.jsonl', '{"song_name": "Faint"}\n{}\n'),
    ]);
    // Each is refused before any row runs: the five run at once.
    const [unknown, broken, jsonl, missing, noRows] = await Promise.all([
      ...files.map((rows) => runMime(['replay', workflow, '--rows', rows])),
      runMime(['replay', workflow, '--workers', '2']),
    ]);
    expect(unknown?.exitCode).toBe(2);
    expect(unknown?.stderr).toContain('column volume is not a param of the workflow (its params: song_name)');
    expect(broken?.exitCode).toBe(2);
    expect(broken?.stderr).toMatch(/broken\.csv: not a valid CSV file: .*quote/i);
    expect(jsonl?.exitCode).toBe(2);
    expect(jsonl?.stderr).toContain('line 2: a row is a JSON object');
    expect(missing?.exitCode).toBe(2);
    expect(missing?.stderr).toMatch(/row 2: .*missing: song_name/);
    expect(noRows?.exitCode).toBe(2);
    expect(noRows?.stderr).toContain('--workers go with --rows');
  });

  it("types a row's value as it is: a sensitive param's {name} in it never brings the secret", async () => {
    const secretFlow = join(root, 'hostile-rows-workflow');
    await cp(workflow, secretFlow, { recursive: true });
    const schema = JSON.parse(await readFile(join(secretFlow, 'schema.json'), 'utf8'));
    schema.task_params.push({ name: 'song_secret', sensitive: true, example: null });
    await writeFile(join(secretFlow, 'schema.json'), JSON.stringify(schema));
    const rows = await rowsFile('hostile.csv', ['{song_secret}']);
    const out = join(root, 'hostile-out');
    const result = await runMime(
      [
        'replay',
        secretFlow,
        '--rows',
        rows,
        '--mode',
        'trace',
        '--workers',
        '1',
        '--step-timeout',
        '2',
        '--out',
        out,
      ],
      { env: { ...NO_DISPLAY, MIME_PARAM_SONG_SECRET: 'Numb' } },
    );
    // Typed literally, "{song_secret}" finds no song: no results list after Enter. Had the
    // secret been typed, Numb would have been found and played.
    expect(result.exitCode, result.stderr).toBe(1);
    const row = RowRecord.parse(JSON.parse(await readFile(join(out, 'row-1', 'row.json'), 'utf8')));
    expect(row).toMatchObject({ params: { song_name: '{song_secret}' }, outcome: 'failed' });
    const [run] = await runsOf(out, 1);
    const events = await readEvents(join(out, 'row-1', run as string));
    const steps = events.filter((e) => e.type === 'step').map((e) => e.data as Record<string, unknown>);
    expect(steps.map((e) => [e.step_i, e.executed_by])).toEqual([
      [0, 'trace'],
      [1, 'trace'],
      [2, 'trace'],
    ]);
    expect(steps[1]?.action).toEqual({ action: 'type', text: '{song_secret}' });
    // Enter found no song: the results list the recording shows, with the row's value, never came
    // (Enter's recorded change shows the param's example: the subtask's outcome decides by content).
    const divergence = events.find((e) => e.type === 'divergence')?.data;
    expect(divergence).toMatchObject({ step_i: null, check: 'subtask_outcome' });
    expect(divergence?.reason).toMatch(/song_name = "\{song_secret\}"/);
  }, 90_000);

  it('refuses a sensitive param in the rows file unless allowed', async () => {
    const secretFlow = join(root, 'secret-workflow');
    await cp(workflow, secretFlow, { recursive: true });
    const schema = JSON.parse(await readFile(join(secretFlow, 'schema.json'), 'utf8'));
    schema.task_params[0].sensitive = true;
    schema.task_params[0].example = null;
    await writeFile(join(secretFlow, 'schema.json'), JSON.stringify(schema));
    const rows = await rowsFile('secret.csv', ['Faint']);
    const result = await runMime(['replay', secretFlow, '--rows', rows]);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('column song_name holds a sensitive param');
  });
});

describe('deploy/', () => {
  it('holds Kubernetes manifests that the API schemas accept, whose mime command line mime accepts', async () => {
    const dir = join(REPO_ROOT, 'deploy', 'kubernetes');
    const jobs: Job[] = [];
    for (const name of await readdir(dir)) {
      for (const doc of parseAllDocuments(await readFile(join(dir, name), 'utf8'))) {
        const value = doc.toJS();
        if (value.kind === 'Job') {
          const job = new Job(value);
          job.validate();
          jobs.push(job);
        } else if (value.kind === 'PersistentVolumeClaim') new PersistentVolumeClaim(value).validate();
        else throw new Error(`${name}: unexpected kind ${value.kind}`);
      }
    }
    const replayJob = jobs.find((j) => j.spec?.completionMode === 'Indexed');
    expect(replayJob?.spec?.template.spec?.restartPolicy).toBe('Never');
    const container = replayJob?.spec?.template.spec?.containers[0];
    expect(
      container?.env?.find((e) => e.name === 'JOB_COMPLETION_INDEX')?.valueFrom?.fieldRef?.fieldPath,
    ).toBe("metadata.annotations['batch.kubernetes.io/job-completion-index']");
    // The pod's command line, with the index filled in, against a workflow that is not there: mime
    // must get past its flags and fail on the missing workflow (exit 2), not on the command line.
    const args = (container?.args ?? []).map((a) =>
      a.replace('$(JOB_COMPLETION_INDEX)', '0').replace('/work/', `${root}/missing/`),
    );
    const result = await runMime(args);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toMatch(/MIME_FILE_UNREADABLE|no such file/);
    expect(result.stderr).not.toMatch(/unknown option|MIME_USAGE/);
  });
});
