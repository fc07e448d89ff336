/** Replays a workflow with no model call allowed, as the Wayland e2e tests do, and reads what came of it. */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { AccessibleElement, ElementBox } from '@mime-desktop/schema';
import { readEvents } from './e2e-rig.ts';
import { runMime } from './run-mime.ts';

export interface Run {
  exitCode: number | undefined;
  stderr: string;
  summary: { outcome: string; usage: { calls: number }; run_id: string } | undefined;
  /** Which rung found each step (or who executed it). */
  rungs: string[];
  /** Each step's reason, as its run event says. */
  reasons: string[];
}

/** Replays `workflow` with `params` on the desktop of `env`, `--max-model-calls 0`. */
export async function replayWithoutModel(
  env: Record<string, string | undefined>,
  workflow: string,
  mode: string,
  params: string[],
): Promise<Run> {
  const args = ['replay', workflow, '--mode', mode, '--max-model-calls', '0', '--json'];
  const result = await runMime([...args, ...params.flatMap((p) => ['--param', p])], { env });
  const summary = result.stdout.trim() ? JSON.parse(result.stdout) : undefined;
  const events = summary ? await readEvents(join(workflow, '.replay', summary.run_id)) : [];
  const steps = events
    .filter((e) => e.type === 'step')
    .map((e) => e.data as { rung?: string; executed_by?: string; reason?: string });
  return {
    exitCode: result.exitCode,
    stderr: result.stderr,
    summary,
    rungs: steps.map((step) => String(step.rung ?? step.executed_by)),
    reasons: steps.map((step) => String(step.reason ?? '')),
  };
}

/** The names of a workflow's params, in order. */
export async function paramNames(workflow: string): Promise<string[]> {
  const schema = JSON.parse(await readFile(join(workflow, 'schema.json'), 'utf8'));
  return schema.task_params.map((p: { name: string }) => p.name);
}

/** The element the workflow's first step acts on, as recorded (its extents on the recording's screen). */
export async function recordedTarget(workflow: string): Promise<AccessibleElement & { extents: ElementBox }> {
  const schema = JSON.parse(await readFile(join(workflow, 'schema.json'), 'utf8'));
  const element = schema.plan.subtasks[0]?.steps[0]?.target?.element;
  if (!element?.extents) throw new Error(`the first step of ${workflow} names no element with extents`);
  return element;
}
