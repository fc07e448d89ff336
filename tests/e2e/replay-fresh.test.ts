/**
 * A known starting state: a second run on the same app finds the last run's value on the screen.
 * Without `--fresh` the run says the app is not in its recorded starting state; with it, every run
 * (and every `--rows` row on this display) starts from the app as recorded.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { demoAppSetup } from '@mime-desktop/test-support/desktop-harness';
import { copyWorkflow, readEvents, useDesktop, useTempDirs } from '@mime-desktop/test-support/e2e-rig';
import { REPO_ROOT, runMime } from '@mime-desktop/test-support/run-mime';
import { beforeAll, describe, expect, it } from 'vitest';

const desktop = useDesktop();

const fileTempDir = useTempDirs();

const FIXTURE = join(REPO_ROOT, 'fixtures', 'workflows', 'play-song-recorded');

let root: string;

/** The demo workflow with a setup (how to start the demo app), and `reset` when given. */
async function workflowWithSetup(name: string, reset?: unknown): Promise<string> {
  return copyWorkflow(
    'play-song-recorded',
    (schema) => {
      schema.setup = { ...demoAppSetup(), ...(reset === undefined ? {} : { reset }) };
    },
    { as: name, into: root },
  );
}

beforeAll(async () => {
  root = await fileTempDir('mime-fresh-');
  await writeFile(join(root, 'rows.csv'), 'song_name\nFaint\nNumb\n');
}, 60_000);

const replayRows = (workflow: string, extra: string[]) =>
  runMime(['replay', workflow, '--rows', join(root, 'rows.csv'), '--mode', 'trace', '--json', ...extra], {
    env: { DISPLAY: desktop().display },
  });

const rowsOf = (stdout: string) =>
  stdout
    .trim()
    .split('\n')
    .map(
      (line) =>
        JSON.parse(line) as { row: number; outcome: string; code: string | null; reason: string | null },
    );

describe('a known starting state', () => {
  it('without --fresh, the second row finds the last value and says the app is not at its start', async () => {
    const workflow = await workflowWithSetup('stale');
    const result = await replayRows(workflow, []);
    expect(result.exitCode).toBe(1);
    const [first, second] = rowsOf(result.stdout);
    expect(first).toMatchObject({ row: 1, outcome: 'success' });
    expect(second).toMatchObject({ row: 2, outcome: 'failed', code: 'MIME_REPLAY_DIVERGENCE' });
    expect(second?.reason).toMatch(
      /^(step \d|end of subtask \d).*if the app is not in its recorded starting state .* replay with --fresh/,
    );
  });

  it('with --fresh, two batches of rows on one display all succeed, each row on a restarted app', async () => {
    const workflow = await workflowWithSetup('fresh');
    for (const round of [1, 2]) {
      const out = join(root, `fresh-${round}`);
      const result = await replayRows(workflow, ['--fresh', '--out', out]);
      expect(result.exitCode, `round ${round}: ${result.stderr}`).toBe(0);
      const rows = rowsOf(result.stdout);
      expect(rows.map((r) => [r.row, r.outcome])).toEqual([
        [1, 'success'],
        [2, 'success'],
      ]);
      // Each row's run first restarted the app: its setup event says so.
      for (const row of rows) {
        const [run] = (row as unknown as { runs: string[] }).runs;
        const events = await readEvents(join(out, `row-${row.row}`, run as string));
        expect(events.find((e) => e.type === 'setup')?.data).toMatchObject({ fresh: true, launched: true });
      }
    }
    expect((await desktop().readAppState()).playing).toBe('Numb');
  });

  it('runs setup.reset instead of a restart, and names a reset command that fails', async () => {
    const failing = await workflowWithSetup('reset-fails', { command: 'echo "no such state" >&2; exit 3' });
    const result = await runMime(
      ['replay', failing, '--mode', 'trace', '--param', 'song_name=Faint', '--fresh', '--json'],
      { env: { DISPLAY: desktop().display } },
    );
    expect(result.exitCode).toBe(1);
    const summary = JSON.parse(result.stdout);
    expect(summary).toMatchObject({ outcome: 'failed', code: 'MIME_SETUP_FAILED' });
    expect(summary.reason).toBe(
      'the workflow\'s setup.reset command `echo "no such state" >&2; exit 3` failed (exit 3): no such state; fix it with mime edit',
    );
  });

  it('refuses --fresh for a workflow without a setup (exit 2)', async () => {
    const result = await runMime(['replay', FIXTURE, '--param', 'song_name=Faint', '--fresh'], {
      env: { DISPLAY: desktop().display },
    });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toMatch(/fresh needs the workflow's setup .* has none: add one with mime edit/);
  });
});
