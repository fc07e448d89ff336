/**
 * Heal without a recording: the hand-written demo workflow (no manifest.jsonl, no frames) replayed in
 * auto on the demo app: auto hands its unrecorded subtasks to the (fake) model; the run writes
 * heal.json; `mime heal` shows the diff naming the new steps and their frames, and `--apply` writes
 * the agent's actions as the workflow's recording; the next auto replay, with another song, needs no
 * model at all.
 */
import { access, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { copyWorkflow } from '@mime-desktop/test-support/e2e-rig';
import { useModelRig } from '@mime-desktop/test-support/model-rig';
import { runMime } from '@mime-desktop/test-support/run-mime';
import { describe, expect, it } from 'vitest';

const rig = useModelRig();

async function replayIn(mode: 'auto' | 'agent', workflow: string, song: string) {
  await rig.desktop.resetApp();
  const result = await runMime(
    ['replay', workflow, '--mode', mode, '--param', `song_name=${song}`, '--json'],
    { env: rig.env() },
  );
  return { result, summary: result.stdout.trim() ? JSON.parse(result.stdout) : undefined };
}

describe('mime heal of a workflow without a recording', () => {
  it('records the subtasks the model did, and the next auto run needs no model', async () => {
    const model = rig.useModel();
    const workflow = await copyWorkflow('play-song');
    await expect(access(join(workflow, 'manifest.jsonl'))).rejects.toThrow();

    const first = await replayIn('auto', workflow, 'Faint');
    expect(first.result.exitCode, first.result.stderr).toBe(0);
    expect(first.summary.usage.calls).toBeGreaterThan(0);
    const run = join(workflow, '.replay', first.summary.run_id);
    const heal = JSON.parse(await readFile(join(run, 'heal.json'), 'utf8'));
    expect(heal.agent_subtasks).toEqual([0, 1]);
    expect(first.result.stderr).toContain(
      `the workflow has no recording: mime heal ${run} shows this run's actions as its recording`,
    );
    const report = await readFile(join(run, 'report.html'), 'utf8');
    expect(report).toContain('The workflow has no recording');
    expect(report).toMatch(/subtask 1, subtask 2 done by the agent \(\d+ actions\)/);

    const shown = await runMime(['heal', run]);
    expect(shown.exitCode, shown.stderr).toBe(0);
    expect(shown.stderr).toMatch(
      /Subtask 1: \d+ action\(s\) the agent took are recorded in place of 3 step\(s\) that had no recording/,
    );
    expect(shown.stderr).toContain('manifest.jsonl written: the workflow had no recording');
    // The change and the diff name the new steps and their frames.
    expect(shown.stderr).toMatch(
      /\+ TYPE type "Faint", as the agent did it in run \S+ \(frame screenshots\/heal-\S+\/\d{3}\.png\)/,
    );
    expect(shown.stderr).toMatch(/^\+.*"intent": "type \\"Faint\\", as the agent did it in run /m);
    expect(shown.stderr).toMatch(/^\+.*"screenshot": "screenshots\/heal-.*\/000\.png"/m);
    await expect(access(join(workflow, 'manifest.jsonl'))).rejects.toThrow();

    const applied = await runMime(['heal', run, '--apply']);
    expect(applied.exitCode, applied.stderr).toBe(0);
    expect((await runMime(['validate', workflow])).exitCode).toBe(0);
    const files = await readdir(workflow);
    expect(files.some((f) => /^schema\.\d{8}T\d{9}Z\.json$/.test(f))).toBe(true);
    // No recording before: no previous manifest to keep.
    expect(files.some((f) => /^manifest\.\d{8}T\d{9}Z\.jsonl$/.test(f))).toBe(false);
    // The recording as the recorder writes it: one event a step, each with its PRE frame copied in.
    const healed = JSON.parse(await readFile(join(workflow, 'schema.json'), 'utf8'));
    const steps = healed.plan.subtasks.flatMap((s: { steps: unknown[] }) => s.steps);
    const events = (await readFile(join(workflow, 'manifest.jsonl'), 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(events.length).toBe(steps.length + 1);
    expect(events.at(-1).action_type).toBeNull();
    for (const step of steps) {
      expect(step.source).not.toBeNull();
      const event = events[step.source.event_index];
      expect(event.screenshot).toBe(step.source.screenshot);
      await access(join(workflow, step.source.screenshot));
    }
    expect(events.map((e) => e.action_type)).toEqual(expect.arrayContaining(['click', 'type', 'extract']));
    // The song typed is the param again: the next run types its own.
    expect(steps.find((s: { action_type: string }) => s.action_type === 'TYPE').action_value).toBe(
      '{song_name}',
    );

    const turns = model.turns.length;
    const second = await replayIn('auto', workflow, 'Numb');
    expect(second.result.exitCode, second.result.stderr).toBe(0);
    expect((await rig.desktop.readAppState()).playing).toBe('Numb');
    expect(second.summary.usage.calls).toBe(0);
    expect(model.turns.length).toBe(turns);
  }, 240_000);

  it('heals from an agent run too: the agent did every subtask, the next auto run needs no model', async () => {
    const model = rig.useModel();
    const workflow = await copyWorkflow('play-song');
    const first = await replayIn('agent', workflow, 'Yellow');
    expect(first.result.exitCode, first.result.stderr).toBe(0);
    expect(first.summary.usage.calls).toBeGreaterThan(0);
    const run = join(workflow, '.replay', first.summary.run_id);
    const heal = JSON.parse(await readFile(join(run, 'heal.json'), 'utf8'));
    expect(heal.agent_subtasks).toEqual([0, 1]);

    const applied = await runMime(['heal', run, '--apply']);
    expect(applied.exitCode, applied.stderr).toBe(0);
    expect(applied.stderr).toContain('manifest.jsonl written: the workflow had no recording');

    const turns = model.turns.length;
    const second = await replayIn('auto', workflow, 'Faint');
    expect(second.result.exitCode, second.result.stderr).toBe(0);
    expect((await rig.desktop.readAppState()).playing).toBe('Faint');
    expect(second.summary.usage.calls).toBe(0);
    expect(model.turns.length).toBe(turns);
    // A recorded workflow learns nothing from an agent run: its recording is not replaced.
    const third = await replayIn('agent', workflow, 'Numb');
    expect(third.result.exitCode, third.result.stderr).toBe(0);
    await expect(access(join(workflow, '.replay', third.summary.run_id, 'heal.json'))).rejects.toThrow();
  }, 240_000);
});
