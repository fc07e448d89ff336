/**
 * Workflows as ai_mime writes them (fixtures/ai-mime-marketplace: look-alikes of its marketplace's
 * six), through the real `mime`: each validates in its layout (the one with an undeclared template is
 * refused, naming the constant of optimized_plan.json that holds its value), `mime list` shows each
 * with its name and ai_mime's compact creation date, and `mime edit` saves each so that ai_mime's own
 * `validate_schema` still accepts it, with every field mime does not use as it was.
 */
import { cp, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  AI_MIME_MARKETPLACE,
  AI_MIME_WORKFLOWS,
  aiMimeValidationError,
} from '@mime-desktop/test-support/ai-mime-validator';
import { tempDir } from '@mime-desktop/test-support/e2e-rig';
import { REPO_ROOT, runMime } from '@mime-desktop/test-support/run-mime';
import { describe, expect, it } from 'vitest';

const EDITOR = `${process.execPath} ${join(REPO_ROOT, 'tests', 'support', 'fake-editor.mjs')}`;
const VALID = AI_MIME_WORKFLOWS.filter((id) => id !== 'upload-to-drive-folder');

/** A home holding the six under workflows/, the upload one corrected when `correct` is set. */
async function home(correct: boolean): Promise<string> {
  const dir = await tempDir('mime-ai-mime-home-');
  for (const id of AI_MIME_WORKFLOWS)
    await cp(join(AI_MIME_MARKETPLACE, id), join(dir, 'workflows', id), { recursive: true });
  if (correct) {
    const file = join(dir, 'workflows', 'upload-to-drive-folder', 'schema.json');
    const doc = JSON.parse(await readFile(file, 'utf8'));
    doc.task_params.push({
      name: 'folder_name',
      type: 'string',
      description: '',
      example: 'v0',
      sensitive: false,
      optional: false,
    });
    await writeFile(file, JSON.stringify(doc, null, 2));
  }
  return dir;
}

describe("mime on ai_mime's marketplace workflows", () => {
  it('validates each in its layout, and names the Pass C constant of the undeclared {folder_name}', async () => {
    const result = await runMime([
      'validate',
      ...AI_MIME_WORKFLOWS.map((id) => join(AI_MIME_MARKETPLACE, id)),
    ]);
    expect(result.exitCode).toBe(2);
    for (const id of VALID)
      expect(result.stderr).toContain(
        `${id}/schema.json: valid workflow (ai_mime's v2 layout, read in memory; saves keep it in that layout)`,
      );
    expect(result.stderr).toContain('upload-to-drive-folder/schema.json: 3 problems');
    expect(result.stderr).toMatch(
      /plan\.subtasks\[1\]\.text: \{folder_name\} names no declared param and no extract; its value is in optimized_plan\.json's constants \("folder_name_pattern": /,
    );
    expect(result.stderr).toContain(
      'warning plan.subtasks[1].steps[3].note_for_reviewer: a field neither mime nor ai_mime reads',
    );
  });

  it('lists each with its name and the date of its compact created_at', async () => {
    const result = await runMime(['list', '--home', await home(true)], { env: { NO_COLOR: '1' } });
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout).toContain('Workflows (6)');
    expect(result.stdout).toMatch(
      /upload-to-drive-folder\s+upload a file to a drive folder\s+2026-05-30 18:00\s+ready/,
    );
    expect(result.stdout).toMatch(
      /find-places-and-message\s+find places and send them in a chat\s+2026-01-12 18:17\s+ready\s+7\s+search_query,contact_name,result_limit/,
    );
    for (const id of AI_MIME_WORKFLOWS) expect(result.stdout).toMatch(new RegExp(`${id}\\s+[a-z]`));
    // --json says which Pass C steps ai_mime does by a script, and the page each would open.
    const json = JSON.parse((await runMime(['list', '--home', await home(true), '--json'])).stdout);
    const video = json.workflows.find(
      (w: { session_id: string }) => w.session_id === 'play-video-on-video-site',
    );
    expect(video.executors).toEqual([
      expect.objectContaining({
        step: 'open_results',
        executor: 'script',
        url: 'https://videos.example.test/results?q=lofi beats to study',
      }),
    ]);
  });

  it('saves an edit of each so that ai_mime still accepts the file, with what mime does not use kept', async () => {
    const dir = await home(true);
    for (const id of AI_MIME_WORKFLOWS) {
      const workflow = join(dir, 'workflows', id);
      const before = JSON.parse(await readFile(join(workflow, 'schema.json'), 'utf8'));
      const plan = join(dir, `${id}.plan.json`);
      await writeFile(
        plan,
        JSON.stringify([
          { set: { path: ['plan', 'subtasks', 0, 'steps', 0, 'intent'], value: 'Edited by hand.' } },
        ]),
      );
      const result = await runMime(['edit', workflow], {
        env: {
          EDITOR,
          VISUAL: '',
          FAKE_EDITOR_PLAN: plan,
          FAKE_EDITOR_ORIGINAL: join(workflow, 'schema.json'),
        },
      });
      expect(result.exitCode, `${id}: ${result.stderr}`).toBe(0);
      const after = JSON.parse(await readFile(join(workflow, 'schema.json'), 'utf8'));
      expect(aiMimeValidationError(after), id).toBeNull();
      before.plan.subtasks[0].steps[0].intent = 'Edited by hand.';
      // Nothing else changed: no version, numbers per subtask, additional_args, defaults and unknown keys kept.
      expect(after, id).toEqual(before);
    }
  });
});
