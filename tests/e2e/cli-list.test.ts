import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { copyWorkflow, tempDir, useTempDirs } from '@mime-desktop/test-support/e2e-rig';
import { REPO_ROOT, runMime } from '@mime-desktop/test-support/run-mime';
import { beforeAll, describe, expect, it } from 'vitest';

const fileTempDir = useTempDirs();

const _FIXTURE = join(REPO_ROOT, 'fixtures', 'workflows', 'play-song');
const SESSION = '20261122T101500Z-play-song';

async function write(file: string, value: unknown) {
  await mkdir(join(file, '..'), { recursive: true });
  await writeFile(file, typeof value === 'string' ? value : JSON.stringify(value));
}

function summary(run_id: string, outcome: string, started_at: string) {
  return {
    run_id,
    workflow: `workflows/${SESSION}`,
    task_name: 'play a song in the demo player',
    mode: 'agent',
    outcome,
    code: outcome === 'success' ? null : 'REPLAY_DIVERGENCE',
    reason: null,
    started_at,
    ended_at: started_at,
    duration_ms: 1200,
    params: { song_name: 'Numb' },
    subtasks: [],
    usage: { calls: 3, requests: 3, input_tokens: 900, output_tokens: 60, duration_ms: 800 },
    budgets: {},
    extracts: {},
  };
}

/** A data root with a recording, a ready workflow with two runs, a draft and an invalid workflow. */
async function makeHome(): Promise<string> {
  const home = await fileTempDir('mime-home-');
  const rec = join(home, 'recordings', SESSION);
  await write(join(rec, 'metadata.json'), {
    name: 'play song',
    session_id: SESSION,
    created_at: '2026-11-22T10:15:00Z',
  });
  const event = (type: string | null, details: unknown, n: number) =>
    JSON.stringify({
      action_type: type,
      action_details: details,
      screenshot: `screenshots/${n}.png`,
      timestamp: n,
    });
  await write(
    join(rec, 'manifest.jsonl'),
    `${[event('click', { button: 'left', x: 1, y: 2 }, 0), event('type', { text: 'Numb' }, 1), event(null, {}, 2)].join('\n')}\n`,
  );
  const wf = await copyWorkflow('play-song', undefined, { as: SESSION, into: join(home, 'workflows') });
  await write(join(wf, 'metadata.json'), { name: 'play song', created_at: '2026-11-22T10:15:00Z' });
  await write(
    join(wf, '.replay', 'run-a', 'summary.json'),
    summary('run-a', 'failed', '2026-11-22T11:00:00Z'),
  );
  await write(
    join(wf, '.replay', 'run-b', 'summary.json'),
    summary('run-b', 'success', '2026-11-22T12:00:00Z'),
  );
  await write(join(home, 'workflows', '20261122T120000Z-draft', 'step_cards.json'), []);
  await write(join(home, 'workflows', '20261122T130000Z-broken', 'schema.json'), {
    task_name: 'broken',
    plan: { subtasks: [] },
  });
  return home;
}

describe('mime list', () => {
  let home: string;
  beforeAll(async () => {
    home = await makeHome();
  });

  it('prints recordings and workflows with steps and the last run', async () => {
    const result = await runMime(['list', '--home', home]);
    expect(result.exitCode).toBe(0);
    const lines = result.stdout.split('\n');
    expect(lines[0]).toBe('Recordings (1)');
    expect(lines.find((l) => l.startsWith(SESSION))).toMatch(/^\S+\s+play song\s+2026-11-22 10:15\s+2$/);
    expect(result.stdout).toContain('Workflows (3)');
    expect(result.stdout).toMatch(
      new RegExp(
        `${SESSION}\\s+play a song in the demo player\\s+2026-11-22 10:15\\s+ready\\s+5\\s+song_name\\s+-\\s+2\\s+success 2026-11-22 12:00`,
      ),
    );
    expect(result.stdout).toMatch(/20261122T120000Z-draft\s+-\s+-\s+draft\s+0/);
    expect(result.stderr).toContain(
      '20261122T120000Z-draft: no schema.json yet: run `mime reflect` to finish it',
    );
    expect(result.stderr).toMatch(/20261122T130000Z-broken: 1 problem\(s\): run `mime validate/);
  });

  it('gives the same data as JSON, reading MIME_HOME', async () => {
    const result = await runMime(['list', '--json'], { env: { MIME_HOME: home } });
    expect(result.exitCode).toBe(0);
    const data = JSON.parse(result.stdout);
    expect(data.home).toBe(home);
    expect(data.recordings).toEqual([
      expect.objectContaining({ session_id: SESSION, events: 2, name: 'play song' }),
    ]);
    const ready = data.workflows.find((w: { session_id: string }) => w.session_id === SESSION);
    expect(ready).toMatchObject({ state: 'ready', steps: 5, subtasks: 2, params: ['song_name'] });
    expect(ready.runs.map((r: { run_id: string }) => r.run_id)).toEqual(['run-a', 'run-b']);
    expect(ready.last_run).toMatchObject({ run_id: 'run-b', outcome: 'success', mode: 'agent' });
  });

  it('says how to start when the data root is empty', async () => {
    const empty = await tempDir('mime-home-');
    const result = await runMime(['list'], { cwd: empty });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain('none yet: `mime record --name "..."`');
    expect(result.stderr).toContain(`data root: ${empty}`);
  });
});

describe('mime list of a shared workflow with escape sequences', () => {
  it('prints them inert: no window title set, no screen cleared', async () => {
    const home = await tempDir('mime-home-');
    const dir = await copyWorkflow('play-song', undefined, { as: 'hostile', into: join(home, 'workflows') });
    const schema = JSON.parse(await readFile(join(dir, 'schema.json'), 'utf8'));
    schema.task_name = 'play \u001b]0;pwned\u0007\u001b[2J\u202esong';
    await writeFile(join(dir, 'schema.json'), JSON.stringify(schema));
    const result = await runMime(['list', '--home', home], { env: { NO_COLOR: '1' } });
    expect(result.exitCode).toBe(0);
    for (const active of ['\u001b', '\u0007', '\u202e'])
      expect(result.stdout + result.stderr).not.toContain(active);
    expect(result.stdout).toContain('play \\x1b]0;pwned\\x07\\x1b[2J\\u202esong');
  });
});
