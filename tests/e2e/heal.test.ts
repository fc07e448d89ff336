/**
 * Self-healing: the reflected demo workflow replayed on a restyled app (moved by 40x24 px and its
 * Play buttons now read "Listen"): auto re-finds the moved targets and hands the play subtask to the
 * agent; the run writes heal.json; `mime heal` shows the diff and `--apply` writes it; the next auto
 * replay on that app, with another song, needs no model at all. A workflow changed since the run is
 * not overwritten.
 */
import { cp, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { copyWorkflow, tempDir } from '@mime-desktop/test-support/e2e-rig';
import { useModelRig } from '@mime-desktop/test-support/model-rig';
import { REPO_ROOT, runMime, startMime } from '@mime-desktop/test-support/run-mime';
import { sleep } from '@mime-desktop/test-support/wait';
import { describe, expect, it } from 'vitest';

const FIXTURE = join(REPO_ROOT, 'fixtures', 'workflows', 'play-song-recorded');

const rig = useModelRig({ query: 'dx=40&dy=24&play=Listen' });

/** `mime validate` of the folders, in one process (it checks each in turn): every one valid. */
async function expectValid(folders: readonly string[]): Promise<void> {
  const checked = await runMime(['validate', '--json', ...folders]);
  expect(checked.exitCode, checked.stdout + checked.stderr).toBe(0);
  const { reports } = JSON.parse(checked.stdout) as { reports: Array<{ valid: boolean }> };
  expect(reports.map((r) => r.valid)).toEqual(folders.map(() => true));
}

async function autoReplay(workflow: string, song: string, extra: string[] = []) {
  await rig.desktop.resetApp();
  const result = await runMime(['replay', workflow, '--param', `song_name=${song}`, '--json', ...extra], {
    env: rig.env(),
  });
  return { result, summary: result.stdout.trim() ? JSON.parse(result.stdout) : undefined };
}

describe('mime heal', () => {
  it('writes what an auto run learned back, and the next run on that screen needs no model', async () => {
    const model = rig.useModel();
    const workflow = await copyWorkflow('play-song-recorded', undefined, { as: 'play-song' });

    const first = await autoReplay(workflow, 'Faint');
    expect(first.result.exitCode, first.result.stderr).toBe(0);
    expect(first.summary.usage.calls).toBeGreaterThan(0);
    const run = join(workflow, '.replay', first.summary.run_id);
    const heal = JSON.parse(await readFile(join(run, 'heal.json'), 'utf8'));
    expect(heal.regrounded.length).toBeGreaterThan(0);
    expect(heal.agent_subtasks).toEqual([1]);
    expect(first.result.stderr).toContain(`mime heal ${run} shows what to write back`);
    const report = await readFile(join(run, 'report.html'), 'utf8');
    expect(report).toContain('The workflow is out of date on this screen');
    expect(report).toMatch(/step 1 found at a new place; subtask 2 done by the agent \(\d+ actions\)/);

    const shown = await runMime(['heal', run]);
    expect(shown.exitCode, shown.stderr).toBe(0);
    expect(shown.stderr).toMatch(/Step 1 \(.*\) is found at its new place/);
    expect(shown.stderr).toMatch(/Subtask 2: \d+ action\(s\) the agent took replace 2 recorded step\(s\)/);
    expect(shown.stderr).toMatch(
      /^\+.*"action_value": "\{song_name\}"|^\+.*"screenshot": "screenshots\/heal-/m,
    );
    expect(shown.stderr).toContain(`apply it with: mime heal ${run} --apply`);
    const untouched = await readFile(join(workflow, 'schema.json'), 'utf8');
    expect(untouched).toBe(await readFile(join(FIXTURE, 'schema.json'), 'utf8'));

    const applied = await runMime(['heal', run, '--apply']);
    expect(applied.exitCode, applied.stderr).toBe(0);
    const files = await readdir(workflow);
    expect(files.some((f) => /^schema\.\d{8}T\d{9}Z\.json$/.test(f))).toBe(true);
    expect(files.some((f) => /^manifest\.\d{8}T\d{9}Z\.jsonl$/.test(f))).toBe(true);
    expect((await runMime(['validate', workflow])).exitCode).toBe(0);
    // The step re-found by its pixels keeps the element the accessibility tree named there.
    const healed = JSON.parse(await readFile(join(workflow, 'schema.json'), 'utf8'));
    expect(healed.plan.subtasks[0].steps[0].target.element).toMatchObject({ app: 'Chromium', role: 'entry' });

    const turns = model.turns.length;
    const second = await autoReplay(workflow, 'Numb');
    expect(second.result.exitCode, second.result.stderr).toBe(0);
    expect((await rig.desktop.readAppState()).playing).toBe('Numb');
    expect(second.summary.usage.calls).toBe(0);
    expect(model.turns.length).toBe(turns);
    expect(second.summary.extracts).toEqual({ song_now_playing: 'Numb' });

    const again = await runMime(['heal', run, '--apply']);
    expect(again.exitCode).toBe(2);
    expect(again.stderr).toMatch(/changed since run .* not overwriting it/);
    expect(again.stderr).toContain('MIME_HEAL_CONFLICT');
  }, 240_000);

  it('never loses one of two heals applied at once: one is written, the other refused, the backup is the original', async () => {
    rig.useModel();
    const base = await copyWorkflow('play-song-recorded', undefined, { as: 'play-song' });
    const runs: string[] = [];
    for (const song of ['Faint', 'Yellow']) {
      const { result, summary } = await autoReplay(base, song);
      expect(result.exitCode, result.stderr).toBe(0);
      runs.push(summary.run_id);
    }
    const original = await readFile(join(base, 'schema.json'), 'utf8');
    const raced: string[] = [];
    for (let round = 0; round < 5; round += 1) {
      const workflow = join(await tempDir('mime-heal-round-'), 'play-song');
      await cp(base, workflow, { recursive: true });
      const results = await Promise.all(
        runs.map((run) => runMime(['heal', join(workflow, '.replay', run), '--apply'])),
      );
      const codes = results.map((r) => r.exitCode).sort();
      expect(codes, results.map((r) => r.stderr).join('\n')).toEqual([0, 2]);
      const refused = results.find((r) => r.exitCode === 2);
      expect(refused?.stderr).toMatch(/MIME_HEAL_CONFLICT|MIME_WORKFLOW_LOCKED/);
      const backups = (await readdir(workflow)).filter((f) => /^schema\.\d{8}T\d{9}Z(-\d+)?\.json$/.test(f));
      expect(backups).toHaveLength(1);
      expect(await readFile(join(workflow, String(backups[0])), 'utf8')).toBe(original);
      raced.push(workflow);
    }
    await expectValid(raced);
    for (const workflow of raced) {
      expect(await readFile(join(workflow, 'schema.json'), 'utf8')).not.toBe(original);
    }

    // kill -9 at moments spread over --apply (0.3 to 1.5 s after its start, the same each run): the
    // workflow is the old one or the healed one, the manifest matching its schema, never a mix (the
    // next reader finishes a change that was committed).
    const reference = join(await tempDir('mime-heal-ref-'), 'play-song');
    await cp(base, reference, { recursive: true });
    expect((await runMime(['heal', join(reference, '.replay', String(runs[0])), '--apply'])).exitCode).toBe(
      0,
    );
    const healed = await readFile(join(reference, 'schema.json'), 'utf8');
    const healedManifest = await readFile(join(reference, 'manifest.jsonl'), 'utf8');
    const originalManifest = await readFile(join(base, 'manifest.jsonl'), 'utf8');
    const killed: string[] = [];
    for (let round = 0; round < 8; round += 1) {
      const workflow = join(await tempDir('mime-heal-kill-'), 'play-song');
      await cp(base, workflow, { recursive: true });
      const applying = startMime(['heal', join(workflow, '.replay', String(runs[0])), '--apply']);
      await sleep(300 + (round * 1200) / 7);
      applying.kill('SIGKILL');
      await applying.done;
      killed.push(workflow);
    }
    // mime validate is each folder's next reader (it reads them one by one, as one process a folder would).
    await expectValid(killed);
    for (const workflow of killed) {
      const schema = await readFile(join(workflow, 'schema.json'), 'utf8');
      const manifest = await readFile(join(workflow, 'manifest.jsonl'), 'utf8');
      expect([original, healed]).toContain(schema);
      expect(manifest).toBe(schema === healed ? healedManifest : originalManifest);
      expect(
        (await readdir(workflow)).filter((f) => f.endsWith('.mime-new') || f === '.mime-commit.json'),
      ).toEqual([]);
    }
  }, 300_000);
});
