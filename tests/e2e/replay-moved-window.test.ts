/**
 * Trace on a moved window where the app has no accessibility tree (#40): a Tk form recorded by input
 * at a person's pace keeps the window under each click with its frame; replayed in trace after the
 * window moved by (150, 90), each click goes to its place in the window, verified by its pixels, with
 * no model (`--max-model-calls 0`); the outcome is read outside mime (the app's state file). The same
 * app that drops the City value after submit ends in an honest divergence.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { dataOf, readEvents, useTempDirs } from '@mime-desktop/test-support/e2e-rig';
import { CONDITIONS, type Condition, recordAndReflect, replayCell } from '@mime-desktop/test-support/matrix';
import { tkForm } from '@mime-desktop/test-support/matrix-apps';
import { describe, expect, it } from 'vitest';

const tempDirs = useTempDirs();
const moved = CONDITIONS.find((c) => c.name === 'moved') as Condition;

describe('trace on a moved Tk window (no accessibility tree)', () => {
  it('clicks each target where its window now puts it, verified, without a model; a value-dropping app is an honest divergence', {
    timeout: 240_000,
  }, async () => {
    expect(await tkForm.missing(), 'python3-tk must be installed (./setup.sh)').toBeNull();
    const work = await tempDirs('mime-moved-');
    const workflow = await recordAndReflect(tkForm, join(work, 'home'), work);

    // The recording kept the Tk window under each click, with its frame; reflect carried it.
    const schema = JSON.parse(await readFile(join(workflow, 'schema.json'), 'utf8'));
    const clicks = schema.plan.subtasks
      .flatMap((s: { steps: unknown[] }) => s.steps)
      .filter((s: { action_type: string }) => s.action_type === 'CLICK');
    expect(clicks).toHaveLength(2);
    for (const click of clicks) {
      expect(click.source.window).toMatchObject({ classes: expect.arrayContaining(['Tkform']) });
      expect(click.source.window.box.width).toBeGreaterThan(100);
    }

    const replayed = await replayCell(tkForm, workflow, moved, 'trace', work);
    expect(replayed.verdict, `${replayed.reason} (the app holds ${replayed.saw})`).toBe('true success');
    expect(replayed.saw).toBe(JSON.stringify({ name: 'Bob Jones', city: 'Rome' }));
    const events = await readEvents(replayed.runDir as string);
    const steps = dataOf(events, 'step').filter((s) => s.action?.action === 'left_click');
    expect(steps).toHaveLength(2);
    for (const step of steps) {
      expect(step.rung).toBe('recorded-place');
      // The harness moves the window by (150, 90) (the window manager adds its frame's gravity).
      const [, dx, dy] = /its window moved by \((-?\d+), (-?\d+)\)/.exec(step.reason) ?? [];
      expect(Number(dx), step.reason).toBeGreaterThanOrEqual(140);
      expect(Number(dy), step.reason).toBeGreaterThanOrEqual(80);
    }
    expect(dataOf(events, 'model_call')).toEqual([]);
    expect(dataOf(events, 'handover')).toEqual([]);

    const drops = { ...moved, name: 'moved, drops a value', dropsValue: true };
    const dropped = await replayCell(tkForm, workflow, drops, 'trace', work);
    expect(dropped.saw).toBe(JSON.stringify({ name: 'Bob Jones', city: '' }));
    expect(dropped.verdict, dropped.reason).toBe('honest divergence');
    // Every click went where it belonged: the outcome check at the end of the subtask caught it.
    expect(dropped.reason).toContain('MIME_REPLAY_DIVERGENCE');
    expect(dropped.reason).toContain('end of subtask');
  });
});
