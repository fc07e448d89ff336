import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { copyWorkflow, tempDir } from '@mime-desktop/test-support/e2e-rig';
import { REPO_ROOT, runMime } from '@mime-desktop/test-support/run-mime';
import { describe, expect, it } from 'vitest';

const FIXTURE = join(REPO_ROOT, 'fixtures', 'workflows', 'play-song');
const COMPAT = join(REPO_ROOT, 'fixtures', 'compat', 'ai_mime');

/** A copy of the fixture workflow whose schema.json is changed by `mutate`. */
async function brokenWorkflow(mutate: (doc: Record<string, any>) => void): Promise<string> {
  const dir = await copyWorkflow('play-song');
  const doc = JSON.parse(await readFile(join(dir, 'schema.json'), 'utf8'));
  mutate(doc);
  await writeFile(join(dir, 'schema.json'), `${JSON.stringify(doc, null, 2)}\n`);
  return dir;
}

describe('mime validate', () => {
  it('accepts the fixture and the ai_mime v1 example with exit 0', async () => {
    const result = await runMime(['validate', FIXTURE, join(COMPAT, 'schema.v1.json')]);
    expect(result.exitCode).toBe(0);
    expect(result.stderr).toContain('play-song/schema.json: valid workflow');
    expect(result.stderr).toContain('schema.v1.json: valid workflow (ai_mime v1 layout, upgraded in memory');
  });

  it('reads an ai_mime v2 file as ai_mime writes it, warning about its stored secret', async () => {
    const result = await runMime(['validate', join(COMPAT, 'schema.v2.json')]);
    expect(result.exitCode).toBe(0);
    expect(result.stderr).toContain(
      "schema.v2.json: valid workflow (ai_mime's v2 layout, read in memory; saves keep it in that layout)",
    );
    expect(result.stderr).toMatch(
      /warning task_params\[1\]\.example: "account_pin" is sensitive but the file stores its example in plain text/,
    );
    expect(result.stderr).not.toContain('4821');
  });

  it('lists every problem with file, line and path, exit 2', async () => {
    const dir = await brokenWorkflow((doc) => {
      doc.plan.subtasks[0].text = 'Search for {song}.';
      doc.plan.subtasks[0].steps[0].action_value = 'click me';
      doc.plan.subtasks[0].dependencies = ['now_playing'];
      doc.plan.subtasks[1].steps.push({ ...doc.plan.subtasks[1].steps[1], i: 5 });
    });
    const result = await runMime(['validate', dir]);
    expect(result.exitCode).toBe(2);
    const file = join(dir, 'schema.json');
    expect(result.stderr).toContain(`✗ ${file}: 4 problems`);
    expect(result.stderr).toMatch(
      new RegExp(
        `${file}:\\d+:\\d+ plan\\.subtasks\\[0\\]\\.dependencies\\[0\\]: "now_playing" is extracted in a later subtask \\(1\\)`,
      ),
    );
    expect(result.stderr).toMatch(/plan\.subtasks\[0\]\.steps\[0\]\.action_value: must be null for CLICK/);
    expect(result.stderr).toMatch(
      /plan\.subtasks\[0\]\.text: \{song\} names no declared param and no extract/,
    );
    expect(result.stderr).toMatch(
      /plan\.subtasks\[1\]\.steps\[2\]\.variable_name: "now_playing" is already extracted/,
    );
  });

  it('reports wrong types and missing fields', async () => {
    const dir = await brokenWorkflow((doc) => {
      doc.task_params[0].optional = 'no';
      delete doc.plan.subtasks[1].steps[0].target;
    });
    const result = await runMime(['validate', dir, '--json']);
    expect(result.exitCode).toBe(2);
    const { reports } = JSON.parse(result.stdout);
    expect(reports[0].problems).toEqual([
      expect.objectContaining({
        path: 'plan.subtasks[1].steps[0].target',
        message: 'required: expected object',
      }),
      expect.objectContaining({
        path: 'task_params[0].optional',
        message: 'Invalid input: expected boolean, got "no"',
      }),
    ]);
  });

  it('names the line and column of invalid JSON', async () => {
    const dir = await tempDir('mime-validate-');
    await writeFile(join(dir, 'schema.json'), '{\n  "task_name": "x",\n  "plan": {,\n}\n');
    const result = await runMime(['validate', dir]);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain(`${join(dir, 'schema.json')}:3:12 invalid JSON: expected a value`);
  });

  it('says when a path cannot be read', async () => {
    const result = await runMime(['validate', '/nonexistent/workflow']);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('/nonexistent/workflow: 1 problem');
    expect(result.stderr).toContain('no such workflow folder or file; check the path');
    const empty = await tempDir('mime-validate-');
    const missing = await runMime(['validate', empty]);
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toContain(`${join(empty, 'schema.json')}: 1 problem`);
    expect(missing.stderr).toContain('no such file; check the path');
  });

  it('rejects a missing argument as a usage error', async () => {
    const result = await runMime(['validate']);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain("missing required argument 'workflow'");
  });
});
