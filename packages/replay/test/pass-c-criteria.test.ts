/**
 * A Pass C success criterion checked on the app (the fake desktop's screen, read by OCR): a subtask
 * whose expected outcome names nothing ends only when the app shows the quoted text its criterion
 * names, filled with this run's value; an app that does not show it never makes the run succeed. A
 * criterion in free prose checks nothing and the run says so.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { copyWorkflow } from '@mime-desktop/test-support/e2e-rig';
import {
  type FakeModelServer,
  type FakeReply,
  startFakeModelServer,
} from '@mime-desktop/test-support/fake-model-server';
import { OcrEngine } from '@mime-desktop/vision';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ReplayEvent } from '../src/kernel/events.ts';
import { replay } from '../src/run/replay.ts';
import { createFakeDesktop } from './fake-desktop.ts';

let server: FakeModelServer;
let workflowDir: string;
const ocr = new OcrEngine();

beforeAll(async () => {
  server = await startFakeModelServer();
});
afterAll(async () => {
  await server.close();
  await ocr.close();
});

const call = (name: string, args: Record<string, unknown> = {}): FakeReply => ({
  type: 'tool-calls',
  calls: [{ name, arguments: { observation: 'obs', task_memory: 'mem', ...args } }],
});

/** Types the song, then claims done, whatever the screen shows. */
const model = () => {
  let typed = false;
  return (): FakeReply => {
    if (typed) return call('done');
    typed = true;
    return call('computer_use', { action: 'type', text: 'Faint' });
  };
};

beforeEach(async () => {
  workflowDir = await copyWorkflow('play-song', (schema) => {
    schema.plan.subtasks = [
      { ...schema.plan.subtasks[0], text: 'Play the song. Expected outcome: the song plays.', steps: [] },
    ];
  });
  await writeFile(
    join(workflowDir, 'optimized_plan.json'),
    JSON.stringify({
      version: 1,
      inputs: [{ name: 'song_name', required: true }],
      steps: [
        {
          id: 'play',
          source_subtask_ids: [0],
          executor: 'ui_agent',
          success_criteria: 'The bar says "Playing song_name".',
        },
        {
          id: 'feel',
          source_subtask_ids: [0],
          executor: 'ui_agent',
          success_criteria: 'The music sounds right.',
        },
      ],
    }),
  );
});

function run(shows: (inputs: readonly string[]) => string[]) {
  server.setHandler(model());
  const events: ReplayEvent[] = [];
  const result = replay(workflowDir, {
    mode: 'agent',
    pauseHotkey: null,
    params: { song_name: 'Faint' },
    desktop: createFakeDesktop({ width: 420, shows }),
    modelConfig: { env: { MIME_BASE_URL: server.url, MIME_MODEL: 'fake', MIME_MODEL_MAX_RETRIES: '0' } },
    settle: { initialDelayMs: 0, intervalMs: 2, timeoutMs: 20 },
    budgets: { iterations: 4, replans: 0 },
    ocr,
    onEvent: (event) => events.push(event),
  });
  const claims = () => events.flatMap((e) => (e.type === 'claim' ? [[e.verdict, e.detail]] : []));
  return { result, claims, events };
}

describe("a Pass C success criterion (ai_mime's optimized_plan.json)", () => {
  it('lets the subtask end once the app shows its quoted text with this run’s value', async () => {
    const { result, claims, events } = run((inputs) =>
      inputs.includes('type Faint') ? ['Playing Faint'] : ['Playing nothing'],
    );
    const { summary, dir } = await result;
    expect(summary.outcome).toBe('success');
    expect(claims()).toEqual([
      [
        'verified',
        'the app shows "Playing Faint" (quoted text), as the success criteria say; the success criterion "The music sounds right." names nothing the app shows: told to the model, not checked',
      ],
    ]);
    // The run's journal says which criteria are checked, and with what.
    const start = events.find((e) => e.type === 'run_start');
    expect(start).toMatchObject({
      criteria: [
        { subtask_i: 0, criterion: 'The bar says "Playing song_name".', checks: ['Playing Faint'] },
        { subtask_i: 0, criterion: 'The music sounds right.', checks: [] },
      ],
    });
    expect(JSON.parse(await readFile(join(dir, 'summary.json'), 'utf8')).outcome).toBe('success');
  });

  it('never lets a run succeed on an app that does not show it', async () => {
    const { result, claims } = run(() => ['Playing nothing']);
    const { summary } = await result;
    expect(summary.outcome).not.toBe('success');
    expect(summary.code).toBe('MIME_BUDGET_ITERATIONS');
    expect(claims()[0]).toEqual([
      'refused',
      'the app does not show "Playing Faint" (quoted text), which the success criterion "The bar says \\"Playing song_name\\"." names',
    ]);
  });
});
