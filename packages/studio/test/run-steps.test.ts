/**
 * A run read as a trace keeps its screen's shape for the page: from `run_start` where the run says
 * it, else from its first kept frame's header (older runs), else none; never from a file that is
 * not a PNG.
 */
import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { copyFixture, tempDir } from '@mime-desktop/test-support/e2e-rig';
import { describe, expect, it } from 'vitest';
import { readRunTrace } from '../src/run-steps.ts';

/**
 * A copy of the fixture run (its journal predates `run_start.screen`), its frames none, each a recorded
 * 1280x800 screen, or each a file that is not a PNG.
 */
async function fixtureRun(frames: 'none' | 'png' | 'not-png'): Promise<string> {
  const dir = await copyFixture(
    join('runs', 'play-song-replan'),
    join(await tempDir('mime-run-steps-'), 'run'),
  );
  for (const name of await readdir(dir)) if (name.endsWith('.png')) await rm(join(dir, name));
  const journal = await readFile(join(dir, 'events.jsonl'), 'utf8');
  const captured = journal
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line))
    .filter((event) => event.type === 'capture')
    .map((event) => event.data.screenshot as string);
  for (const frame of new Set(captured)) {
    if (frames === 'png')
      await copyFixture(join('workflows', 'play-song-recorded', 'screenshots', '0.png'), join(dir, frame));
    if (frames === 'not-png') await writeFile(join(dir, frame), 'not a picture');
  }
  return dir;
}

describe('readRunTrace', () => {
  it("reads an older run's screen from its first kept frame", async () => {
    const trace = await readRunTrace(await fixtureRun('png'));
    expect(trace.screen).toEqual({ width: 1280, height: 800 });
    expect(trace.steps.filter((step) => step.before !== null).length).toBeGreaterThan(0);
  });

  it('takes the screen run_start names over its frames', async () => {
    const dir = await fixtureRun('png');
    const [start, ...rest] = (await readFile(join(dir, 'events.jsonl'), 'utf8')).trim().split('\n');
    const event = JSON.parse(start ?? '');
    event.data.screen = { width: 1920, height: 1080 };
    await writeFile(join(dir, 'events.jsonl'), `${[JSON.stringify(event), ...rest].join('\n')}\n`);
    expect((await readRunTrace(dir)).screen).toEqual({ width: 1920, height: 1080 });
  });

  it('has no screen for a run that kept no frame, or whose frame is not a PNG', async () => {
    expect((await readRunTrace(await fixtureRun('none'))).screen).toBeNull();
    expect((await readRunTrace(await fixtureRun('not-png'))).screen).toBeNull();
  });
});
