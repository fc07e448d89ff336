/**
 * A long workflow for the studio's bench and tests: the demo's recorded workflow (5 steps in 2
 * subtasks, with its screenshots) `copies` times over, its steps renumbered and each copy's extract
 * under its own name, checked valid before it is written.
 */
import { cp, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { checkWorkflow } from '@mime-desktop/schema';
import { REPO_ROOT } from './run-mime.ts';

/** Writes the long workflow as folder `dir`; resolves its number of steps and of subtasks. */
export async function writeLongWorkflow(
  dir: string,
  copies: number,
): Promise<{ steps: number; subtasks: number }> {
  await cp(join(REPO_ROOT, 'fixtures', 'workflows', 'play-song-recorded'), dir, { recursive: true });
  const schema = JSON.parse(await readFile(join(dir, 'schema.json'), 'utf8'));
  const subtasks: Array<{ steps: Array<{ variable_name: string | null }> }> = schema.plan.subtasks;
  let i = 0;
  schema.plan.subtasks = Array.from({ length: copies }, (_, copy) =>
    subtasks.map((subtask, k) => ({
      ...subtask,
      subtask_i: copy * subtasks.length + k,
      steps: subtask.steps.map((step) => ({
        ...step,
        i: i++,
        variable_name: step.variable_name && `${step.variable_name}_${copy}`,
      })),
    })),
  ).flat();
  const checked = checkWorkflow(schema);
  if (!checked.ok)
    throw new Error(`the ${i}-step workflow is not valid: ${JSON.stringify(checked.problems)}`);
  await writeFile(join(dir, 'schema.json'), JSON.stringify(schema));
  return { steps: i, subtasks: schema.plan.subtasks.length };
}
