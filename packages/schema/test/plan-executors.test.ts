import { join } from 'node:path';
import { AI_MIME_MARKETPLACE } from '@mime-desktop/test-support/ai-mime-validator';
import { describe, expect, it } from 'vitest';
import { readOptimizedPlan } from '../src/optimized-plan.ts';
import { describeExecutors, urlOfGoal, workflowExecutors } from '../src/plan-executors.ts';
import { loadWorkflow } from '../src/workflow-file.ts';

describe("the steps ai_mime's Pass C does by a script", () => {
  it('are listed with their goal and the URL they would open, filled with the run’s values', async () => {
    const dir = join(AI_MIME_MARKETPLACE, 'play-video-on-video-site');
    const loaded = await loadWorkflow(dir);
    const executors = workflowExecutors(loaded.workflow, loaded.optimizedPlan, { video_query: 'cats' });
    expect(executors).toEqual([
      {
        step: 'open_results',
        title: 'Open the results page by URL',
        executor: 'script',
        subtasks: [0, 1],
        goal: "Open site_url + '/results?q=' + video_query directly instead of typing in the UI.",
        url: 'https://videos.example.test/results?q=cats',
        fallback: 'ui_agent',
      },
    ]);
    // Without a value given, the param's example.
    expect(workflowExecutors(loaded.workflow, loaded.optimizedPlan)[0]?.url).toBe(
      'https://videos.example.test/results?q=lofi beats to study',
    );
  });

  it('name a browser script, and a URL only where the goal names one', async () => {
    const { plan } = await readOptimizedPlan(join(AI_MIME_MARKETPLACE, 'upload-to-drive-folder'));
    expect(describeExecutors(plan).map((e) => [e.step, e.executor, e.url])).toEqual([
      ['upload', 'browser_harness', 'https://drive.example.test/folders/abc123'],
    ]);
    const { plan: places } = await readOptimizedPlan(join(AI_MIME_MARKETPLACE, 'find-places-and-message'));
    expect(describeExecutors(places).map((e) => [e.step, e.url])).toEqual([['find_places', null]]);
    expect(describeExecutors(null)).toEqual([]);
  });

  it('read a URL as a sum, a quoted one, or a name whose value is one; never an inherited property', () => {
    const known = { base: 'https://a.test/', q: 'x y' };
    expect(urlOfGoal('Go to base + "/s?q=" + q.', known)).toBe('https://a.test/s?q=x y');
    expect(urlOfGoal('Open https://b.test/{q}/list.', known)).toBe('https://b.test/x y/list');
    expect(urlOfGoal('Use constructor + toString to open it.', known)).toBeNull();
    expect(urlOfGoal('Read the file.', known)).toBeNull();
  });
});
