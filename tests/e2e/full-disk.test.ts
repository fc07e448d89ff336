/**
 * A full disk (a 4 MiB tmpfs, filled): an `edit` save and a `report` fail with MIME_DISK_FULL naming
 * where, and the previous files stay as they were. Mounting needs root (CI runs as root).
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { copyFixture, copyWorkflow, tempDir } from '@mime-desktop/test-support/e2e-rig';
import { REPO_ROOT, runMime } from '@mime-desktop/test-support/run-mime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = process.getuid?.() === 0;
let disk: string;

/** Fills the disk to the last byte. */
function fill(): void {
  try {
    execFileSync('dd', ['if=/dev/zero', `of=${join(disk, 'filler')}`, 'bs=64k'], { stdio: 'ignore' });
  } catch {
    // dd stops with "No space left on device": the disk is full.
  }
}

describe.skipIf(!root)('a full disk', () => {
  beforeAll(async () => {
    disk = await mkdtemp(join(tmpdir(), 'mime-full-'));
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=4m', 'tmpfs', disk]);
    await copyWorkflow('play-song', undefined, { as: 'workflow', into: disk });
    await copyFixture('runs/play-song-replan', join(disk, 'workflow', '.replay', '20261122T101500Z-a1b2'));
    const made = await runMime(['report', join(disk, 'workflow', '.replay', '20261122T101500Z-a1b2')]);
    expect(made.exitCode, made.stderr).toBe(0);
    fill();
  });

  afterAll(async () => {
    if (!disk) return;
    execFileSync('umount', [disk]);
    await rm(disk, { recursive: true, force: true });
  });

  it('an edit save fails naming the disk, and the workflow stays as it was', async () => {
    const schema = join(disk, 'workflow', 'schema.json');
    const before = await readFile(schema, 'utf8');
    const plan = join(await tempDir('mime-full-plan-'), 'plan.json');
    await writeFile(plan, JSON.stringify([{ set: { path: ['task_name'], value: 'changed' } }]));
    const result = await runMime(['edit', join(disk, 'workflow')], {
      env: {
        EDITOR: `${process.execPath} ${join(REPO_ROOT, 'tests', 'support', 'fake-editor.mjs')}`,
        VISUAL: '',
        FAKE_EDITOR_PLAN: plan,
      },
    });
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toMatch(
      /MIME_DISK_FULL.*no space left on the disk of .*workflow to write .*\.json; the previous .* is kept as it was/,
    );
    expect(await readFile(schema, 'utf8')).toBe(before);
  });

  it('a report fails naming the disk, and the previous report.html stays whole', async () => {
    const run = join(disk, 'workflow', '.replay', '20261122T101500Z-a1b2');
    const before = await readFile(join(run, 'report.html'), 'utf8');
    const result = await runMime(['report', run]);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toMatch(
      /MIME_DISK_FULL.*to write report\.html; the previous report\.html is kept as it was/,
    );
    expect(await readFile(join(run, 'report.html'), 'utf8')).toBe(before);
  });
});
