/**
 * A report's images: each picture encoded once (the same PNG bytes under two names share one image),
 * and the workflow's recorded frames kept encoded in its `.cache/report/`, used by the next report
 * and encoded again where an entry is damaged.
 */
import { copyFile, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { WorkflowInput } from '@mime-desktop/schema';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { keepRecordedImages, renderReport } from '../src/index.ts';
import { type EventSpec, LOGIN_WORKFLOW, makeRunFolder } from './run-folder.ts';

const source = (i: number) => ({
  event_index: i,
  screenshot: `screenshots/${i}.png`,
  point: null,
  end_point: null,
  box: null,
});

/** Two clicks, each made from a recorded frame. */
const WORKFLOW: WorkflowInput = {
  ...LOGIN_WORKFLOW,
  plan: {
    subtasks: [
      {
        subtask_i: 0,
        text: 'Open the inbox. Expected outcome: the inbox shows.',
        steps: [0, 1].map((i) => ({
          i,
          intent: `Click button ${i}.`,
          target: { primary: `Button ${i}` },
          action_type: 'CLICK' as const,
          source: source(i),
        })),
      },
    ],
  },
};

const step = (i: number): EventSpec => ({
  type: 'step',
  subtask_i: 0,
  iteration: i,
  data: {
    step_i: i,
    executed_by: 'trace',
    reason: '',
    action: { action: 'left_click', point: { x: 10, y: 10 } },
    description: 'left_click at (10, 10)',
    screenshot: `step_${i}.png`,
    score: 1,
  },
});

const sources = (page: string) => [...page.matchAll(/\ssrc="([^"]*)"/g)].map((m) => m[1] ?? '');

/** A run of {@link WORKFLOW}: step 0's screen the same bytes as its recorded frame, step 1's not. */
async function runWithRecordedFrames(): Promise<{ run: string; workflow: string }> {
  const run = await makeRunFolder({
    events: [
      {
        type: 'run_start',
        data: {
          run_id: '20261122T101500Z-beef',
          mode: 'trace',
          task_name: 't',
          params: {},
          budgets: { iterations: { used: 0, limit: 15 } },
          dry_run: false,
        },
      },
      {
        type: 'subtask_start',
        subtask_i: 0,
        data: { text: 'Open the inbox.', origin: 'workflow', position: 1, count: 1 },
      },
      step(0),
      step(1),
    ],
    workflow: WORKFLOW,
    images: { 'step_0.png': { width: 640, height: 400 }, 'step_1.png': { width: 320, height: 200 } },
  });
  const workflow = dirname(dirname(run));
  await mkdir(join(workflow, 'screenshots'));
  await copyFile(join(run, 'step_0.png'), join(workflow, 'screenshots', '0.png'));
  await sharp({ create: { width: 600, height: 300, channels: 3, background: '#345' } })
    .png()
    .toFile(join(workflow, 'screenshots', '1.png'));
  return { run, workflow };
}

const cacheOf = (workflow: string) => join(workflow, '.cache', 'report');

describe('the images of a report', () => {
  it('encodes a picture shown twice once, and keeps the recorded frames encoded for the next report', async () => {
    const { run, workflow } = await runWithRecordedFrames();
    const first = await renderReport(run);
    const shown = sources(first);
    // Step 0 and its recorded frame, step 1 and its own: four images, three pictures.
    expect(shown).toHaveLength(4);
    expect(new Set(shown).size).toBe(3);
    expect(shown.every((s) => s.startsWith('data:image/webp;base64,'))).toBe(true);
    const kept = await readdir(cacheOf(workflow));
    expect(kept).toHaveLength(2);
    expect(kept.every((name) => /^[0-9a-f]{64}\.webp$/.test(name))).toBe(true);
    // The next report reads them: the same page.
    expect(await renderReport(run)).toBe(first);

    // An entry is what the next report shows (here another picture as wide, as a test can tell)...
    const name = kept[0] as string;
    const entry = await readFile(join(cacheOf(workflow), name));
    expect(shown).toContain(`data:image/webp;base64,${entry.toString('base64')}`);
    const { width } = await sharp(entry).metadata();
    const other = await sharp({ create: { width: width ?? 1, height: 7, channels: 3, background: '#f00' } })
      .webp({ lossless: true })
      .toBuffer();
    await writeFile(join(cacheOf(workflow), name), other);
    expect(sources(await renderReport(run))).toContain(`data:image/webp;base64,${other.toString('base64')}`);

    // ...and a damaged one is encoded again and replaced.
    await writeFile(join(cacheOf(workflow), name), 'not a webp');
    expect(await renderReport(run)).toBe(first);
    expect(await readFile(join(cacheOf(workflow), name))).toEqual(entry);
  });

  it('keeps what reflect prepares, counting pictures, and gives a report where nothing can be kept', async () => {
    const { run, workflow } = await runWithRecordedFrames();
    const frames = ['screenshots/0.png', 'screenshots/1.png', 'screenshots/0.png', 'screenshots/missing.png'];
    expect(await keepRecordedImages(workflow, frames)).toBe(2);
    expect(await readdir(cacheOf(workflow))).toHaveLength(2);
    // Held already: counted, not written again.
    expect(await keepRecordedImages(workflow, frames)).toBe(2);

    // A cache that cannot be written (a file where its folder goes): nothing kept, every image shown.
    const { run: other, workflow: blocked } = await runWithRecordedFrames();
    await mkdir(join(blocked, '.cache'));
    await writeFile(cacheOf(blocked), 'not a folder');
    expect(await keepRecordedImages(blocked, frames)).toBe(0);
    expect(sources(await renderReport(other))).toEqual(sources(await renderReport(run)));
  });
});
