/**
 * Budgets hold inside a long action: a recorded scroll of 1000 wheel notches (the most a recorded
 * event may hold, 20 s of wheel) under `--max-duration 2` ends within a second of the limit.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { copyWorkflow, useDesktop } from '@mime-desktop/test-support/e2e-rig';
import { runMime } from '@mime-desktop/test-support/run-mime';
import { describe, expect, it } from 'vitest';

const desktop = useDesktop();

describe('a runaway scroll', () => {
  it('stops at --max-duration, within a second', async () => {
    const dir = await copyWorkflow('play-song-recorded', undefined, { as: 'play-song' });
    // Step 0 becomes a scroll of 1000 notches over the results list, in the manifest and the workflow.
    const manifest = join(dir, 'manifest.jsonl');
    const lines = (await readFile(manifest, 'utf8')).trim().split('\n');
    const first = JSON.parse(lines[0] ?? '{}');
    lines[0] = JSON.stringify({
      ...first,
      action_type: 'scroll',
      action_details: { x: 240, y: 120, dx: 0, dy: 1000 },
    });
    await writeFile(manifest, `${lines.join('\n')}\n`);
    const schemaFile = join(dir, 'schema.json');
    const schema = JSON.parse(await readFile(schemaFile, 'utf8'));
    Object.assign(schema.plan.subtasks[0].steps[0], { action_type: 'SCROLL' });
    await writeFile(schemaFile, JSON.stringify(schema, null, 2));

    await desktop().resetApp();
    const started = performance.now();
    const result = await runMime(
      ['replay', dir, '--mode', 'trace', '--use-examples', '--max-duration', '2', '--json'],
      {
        env: { DISPLAY: desktop().display },
      },
    );
    const seconds = (performance.now() - started) / 1000;
    expect(result.exitCode, result.stderr).toBe(1);
    expect(JSON.parse(result.stdout)).toMatchObject({ outcome: 'failed', code: 'MIME_BUDGET_WALL_TIME' });
    // On top of the run's 2 s: the process's start and its end (about 1-2 s on 2 busy cores); the
    // whole scroll would take over 20 s.
    expect(seconds).toBeLessThan(2 + 4);
  });
});
