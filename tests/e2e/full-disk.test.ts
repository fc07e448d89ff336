/**
 * A full disk (a 4 MiB tmpfs, filled) and a read-only one (a tmpfs remounted read-only): `edit` (its
 * save, and its copy in a full TMPDIR), `report`, the studio's save, `replay` (its run log too) and `record` fail with
 * MIME_DISK_FULL or MIME_NOT_WRITABLE naming where and what to do, exit 2 (HTTP 507 for the studio),
 * never an internal error, and the previous files stay as they were. Mounting needs root (CI runs as root).
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { copyFixture, copyWorkflow, tempDir, useDesktop } from '@mime-desktop/test-support/e2e-rig';
import { REPO_ROOT, runMime, startMime } from '@mime-desktop/test-support/run-mime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = process.getuid?.() === 0;
const RUN = '20261122T101500Z-a1b2';
const desktop = useDesktop({ app: false });

/** Fills the disk to the last byte. */
function fill(disk: string): void {
  try {
    execFileSync('dd', ['if=/dev/zero', `of=${join(disk, 'filler')}`, 'bs=64k'], { stdio: 'ignore' });
  } catch {
    // dd stops with "No space left on device": the disk is full.
  }
}

/** A 4 MiB tmpfs holding a workflow (`workflow`, and `workflows/wf` for the studio) with a reported run. */
async function mountDisk(): Promise<string> {
  const disk = await mkdtemp(join(tmpdir(), 'mime-disk-'));
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=4m', 'tmpfs', disk]);
  await copyWorkflow('play-song-recorded', undefined, { as: 'workflow', into: disk });
  await copyWorkflow('play-song', undefined, { as: 'wf', into: join(disk, 'workflows') });
  await copyFixture('runs/play-song-replan', join(disk, 'workflow', '.replay', RUN));
  const made = await runMime(['report', join(disk, 'workflow', '.replay', RUN)]);
  expect(made.exitCode, made.stderr).toBe(0);
  return disk;
}

async function unmount(disk: string | undefined): Promise<void> {
  if (!disk) return;
  execFileSync('umount', [disk]);
  await rm(disk, { recursive: true, force: true });
}

/** `mime edit` with a scripted editor that changes the task name. */
async function editChangingName(workflow: string, env: Record<string, string> = {}) {
  const plan = join(await tempDir('mime-disk-plan-'), 'plan.json');
  await writeFile(plan, JSON.stringify([{ set: { path: ['task_name'], value: 'changed' } }]));
  return runMime(['edit', workflow], {
    env: {
      EDITOR: `${process.execPath} ${join(REPO_ROOT, 'tests', 'support', 'fake-editor.mjs')}`,
      VISUAL: '',
      FAKE_EDITOR_PLAN: plan,
      ...env,
    },
  });
}

describe.skipIf(!root)('a full disk', () => {
  let disk: string;
  beforeAll(async () => {
    disk = await mountDisk();
    fill(disk);
  });
  afterAll(() => unmount(disk));

  it('an edit save fails naming the disk (exit 2), and the workflow stays as it was', async () => {
    const schema = join(disk, 'workflow', 'schema.json');
    const before = await readFile(schema, 'utf8');
    const result = await editChangingName(join(disk, 'workflow'));
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toMatch(
      /MIME_DISK_FULL.*no space left on the disk of .*workflow to write .*\.json; the previous .* is kept as it was: free some space/,
    );
    expect(await readFile(schema, 'utf8')).toBe(before);
  });

  it('an edit whose TMPDIR is the full disk fails naming it (exit 2), before the editor opens', async () => {
    const workflow = await copyWorkflow('play-song', undefined, {
      as: 'workflow',
      into: await tempDir('mime-disk-elsewhere-'),
    });
    const before = await readFile(join(workflow, 'schema.json'), 'utf8');
    const result = await editChangingName(workflow, { TMPDIR: disk });
    expect(result.exitCode, result.stderr).toBe(2);
    expect(result.stderr).toMatch(/MIME_DISK_FULL.*no space left on the disk of .* free some space/);
    expect(await readFile(join(workflow, 'schema.json'), 'utf8')).toBe(before);
  });

  it('a report fails naming the disk (exit 2), and the previous report.html stays whole', async () => {
    const run = join(disk, 'workflow', '.replay', RUN);
    const before = await readFile(join(run, 'report.html'), 'utf8');
    const result = await runMime(['report', run]);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toMatch(
      /MIME_DISK_FULL.*to write report\.html; the previous report\.html is kept as it was/,
    );
    expect(await readFile(join(run, 'report.html'), 'utf8')).toBe(before);
  });

  it('a replay fails naming the disk (exit 2), not an internal error, and ends', {
    timeout: 120_000,
  }, async () => {
    const result = await runMime(
      ['replay', join(disk, 'workflow'), '--mode', 'trace', '--param', 'song_name=Numb'],
      {
        env: { DISPLAY: desktop().display },
      },
    );
    expect(result.exitCode, result.stderr).toBe(2);
    expect(result.stderr).toMatch(
      /MIME_DISK_FULL.*no space left on the disk of .*\.replay.* free some space/,
    );
    expect(result.stderr).not.toMatch(/internal error/);
  });

  it("the studio's save answers 507 MIME_DISK_FULL, not a 500, and the workflow stays as it was", async () => {
    const schema = join(disk, 'workflows', 'wf', 'schema.json');
    const before = await readFile(schema, 'utf8');
    const studio = startMime(['studio', '--home', disk]);
    try {
      const url = new URL(await studio.waitForStdoutLine());
      const headers = {
        'x-mime-token': url.searchParams.get('token') ?? '',
        origin: url.origin,
        'x-mime-studio': '1',
        'content-type': 'application/json',
      };
      const opened = (await (await fetch(new URL('/api/workflows/wf', url.origin), { headers })).json()) as {
        workflow: Record<string, unknown>;
        version: string;
      };
      const saved = await fetch(new URL('/api/workflows/wf', url.origin), {
        method: 'PUT',
        headers,
        body: JSON.stringify({
          workflow: { ...opened.workflow, task_name: 'changed' },
          version: opened.version,
        }),
      });
      expect(saved.status).toBe(507);
      expect(((await saved.json()) as { error: { code: string } }).error.code).toBe('MIME_DISK_FULL');
    } finally {
      studio.kill('SIGTERM');
      expect((await studio.done).exitCode).toBe(0);
    }
    expect(await readFile(schema, 'utf8')).toBe(before);
  });
});

describe.skipIf(!root)('a read-only folder', () => {
  let disk: string;
  beforeAll(async () => {
    disk = await mountDisk();
    execFileSync('mount', ['-o', 'remount,ro', disk]);
  });
  afterAll(() => unmount(disk));

  const notWritable = (stderr: string, where: RegExp) => {
    expect(stderr).toMatch(/MIME_NOT_WRITABLE/);
    expect(stderr).toMatch(where);
    expect(stderr).toMatch(/is on a read-only file system; nothing was changed there: make it writable/);
    expect(stderr).not.toMatch(/internal error/);
  };

  it('edit, report, replay and record name it (exit 2) and change nothing', {
    timeout: 120_000,
  }, async () => {
    const listing = await readdir(disk, { recursive: true });
    const edit = await editChangingName(join(disk, 'workflow'));
    expect(edit.exitCode).toBe(2);
    notWritable(edit.stderr, /cannot write \.mime\.lock: .*workflow/);

    const report = await runMime(['report', join(disk, 'workflow', '.replay', RUN)]);
    expect(report.exitCode).toBe(2);
    notWritable(report.stderr, /cannot write report\.html/);

    const env = { DISPLAY: desktop().display };
    const replay = await runMime(
      ['replay', join(disk, 'workflow'), '--mode', 'trace', '--param', 'song_name=Numb'],
      { env },
    );
    expect(replay.exitCode).toBe(2);
    notWritable(replay.stderr, /\.replay is on a read-only/);

    const record = await runMime(['record', '--home', disk, '--name', 'song'], { env });
    expect(record.exitCode).toBe(2);
    notWritable(record.stderr, /cannot write recordings: /);
    expect(await readdir(disk, { recursive: true })).toEqual(listing);
  });
});
