import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { AI_MIME_MARKETPLACE } from '@mime-desktop/test-support/ai-mime-validator';
import { copyFixture, tempDir } from '@mime-desktop/test-support/e2e-rig';
import { describe, expect, it } from 'vitest';
import { describeFileAccess, readOptimizedPlan } from '../src/optimized-plan.ts';
import { listSteps } from '../src/workflow.ts';
import { loadWorkflow } from '../src/workflow-file.ts';

/** A copy of a look-alike whose schema.json and optimized_plan.json `mutate` changes. */
async function copy(id: string, mutate: (schema: any, plan: any) => void): Promise<string> {
  const dir = await copyFixture(join('ai-mime-marketplace', id), await tempDir('mime-pass-c-'));
  const schema = JSON.parse(await readFile(join(dir, 'schema.json'), 'utf8'));
  const plan = JSON.parse(await readFile(join(dir, 'optimized_plan.json'), 'utf8'));
  mutate(schema, plan);
  await writeFile(join(dir, 'schema.json'), JSON.stringify(schema));
  await writeFile(join(dir, 'optimized_plan.json'), JSON.stringify(plan));
  return dir;
}

describe("optimized_plan.json (ai_mime's Pass C) in a run's reading of a workflow", () => {
  it('gives a param without an example its input default, and makes a not-required input optional', async () => {
    const dir = await copy('find-places-and-message', (schema, plan) => {
      delete schema.task_params[2].default;
      schema.task_params[2].example = null;
      schema.task_params[2].optional = false;
      plan.inputs[2].default = 4;
    });
    const loaded = await loadWorkflow(dir);
    expect(loaded.workflow.task_params[2]).toMatchObject({
      name: 'result_limit',
      example: '4',
      optional: true,
    });
    expect(loaded.optimizedPlan?.steps.map((s) => s.executor)).toEqual(['browser_harness', 'ui_agent']);
    // The file itself is unchanged: Pass C completes the run's copy only.
    expect(JSON.parse(await readFile(join(dir, 'schema.json'), 'utf8')).task_params[2].example).toBeNull();
  });

  it('fills a template that names a constant with its value', async () => {
    const dir = await copy('play-video-on-video-site', (schema) => {
      schema.plan.subtasks[0].steps[1].action_value = '{site_url}';
    });
    const loaded = await loadWorkflow(dir);
    expect(listSteps(loaded.workflow)[1]?.step.action_value).toBe('https://videos.example.test/');
  });

  it('reads an empty plan as empty, and a broken one as a warning only', async () => {
    const empty = await readOptimizedPlan(join(AI_MIME_MARKETPLACE, 'order-food-for-delivery'));
    expect(empty).toEqual({ plan: { inputs: [], constants: {}, steps: [] }, warnings: [] });
    const dir = await copy('play-song-in-music-app', (_schema, plan) => {
      plan.inputs = 'none';
    });
    const broken = await loadWorkflow(dir);
    expect(broken.optimizedPlan).toBeNull();
    expect(broken.warnings.map((w) => w.path)).toEqual(['optimized_plan.json.inputs']);
  });

  it('lists the files a workflow may touch, its templates filled from the run, else from the constants', async () => {
    const { plan } = await readOptimizedPlan(join(AI_MIME_MARKETPLACE, 'upload-to-drive-folder'));
    expect(describeFileAccess(plan)).toEqual({
      read: ['/Users/someone/builds/app.dmg (The file to upload is read from disk.)'],
      write: [],
    });
    expect(describeFileAccess(plan, { file_path: '/tmp/other.dmg' }).read).toEqual([
      '/tmp/other.dmg (The file to upload is read from disk.)',
    ]);
    expect(describeFileAccess(null)).toEqual({ read: [], write: [] });
  });
});
