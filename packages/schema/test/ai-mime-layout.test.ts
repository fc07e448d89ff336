import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  AI_MIME_MARKETPLACE,
  AI_MIME_WORKFLOWS,
  aiMimeValidationError,
} from '@mime-desktop/test-support/ai-mime-validator';
import { describe, expect, it } from 'vitest';
import { readRecordingMetadata } from '../src/recording.ts';
import { checkWorkflow, readWorkflowContext, serializeWorkflow } from '../src/workflow-file.ts';

const readJson = async (file: string) => JSON.parse(await readFile(file, 'utf8'));
const fixture = (id: string) => join(AI_MIME_MARKETPLACE, id);

/** A fixture's schema.json as mime reads it, with optimized_plan.json's constants. */
async function check(id: string, mutate?: (doc: Record<string, any>) => void) {
  const doc = await readJson(join(fixture(id), 'schema.json'));
  mutate?.(doc);
  return { doc, checked: checkWorkflow(structuredClone(doc), await readWorkflowContext(fixture(id))) };
}

/** The upload fixture after the minimal correction: `{folder_name}` declared. */
const declareFolderName = (doc: Record<string, any>) => {
  doc.task_params.push({
    name: 'folder_name',
    type: 'string',
    description: 'Name of the folder to create.',
    example: 'v0 - 30 May',
    sensitive: false,
    optional: false,
  });
};

describe("ai_mime's v2 layout, as its marketplace workflows have it", () => {
  it('reads each look-alike fixture, ai_mime-valid as written, in its layout', async () => {
    for (const id of AI_MIME_WORKFLOWS) {
      const { doc, checked } = await check(
        id,
        id === 'upload-to-drive-folder' ? declareFolderName : undefined,
      );
      expect(aiMimeValidationError(doc), id).toBeNull();
      expect(checked.ok ? [] : checked.problems, id).toEqual([]);
      expect(checked.from, id).toBe('ai_mime-v2');
    }
  });

  it('says an undeclared template has its value in optimized_plan.json constants', async () => {
    const { checked } = await check('upload-to-drive-folder');
    expect(checked.ok).toBe(false);
    const problems = checked.ok ? [] : checked.problems.map((p) => `${p.path}: ${p.message}`);
    expect(problems).toContain(
      `plan.subtasks[1].steps[2].action_value: {folder_name} names no declared param and no extract; its value is in optimized_plan.json's constants ("folder_name_pattern": "v0 - <today's date, e.g. '30 May'>"), which schema.json does not read: declare a param "folder_name" in task_params with that value as its example, or write the value in its place`,
    );
    expect(problems).toHaveLength(3);
  });

  it('reads TYPE and KEYPRESS steps without a value as null, and keeps EXTRACT query and variable apart', async () => {
    const { checked } = await check('find-places-and-message');
    if (!checked.ok) throw new Error(JSON.stringify(checked.problems));
    const steps = checked.workflow.plan.subtasks.flatMap((s) => s.steps);
    expect(steps.map((s) => s.i)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(steps[5]).toMatchObject({ action_type: 'TYPE', action_value: null });
    expect(steps[2]).toMatchObject({
      action_type: 'EXTRACT',
      action_value: 'The names of the first {result_limit} places in the results panel, in order.',
      variable_name: 'extract_0',
      kept: { additional_args: {} },
    });
  });

  it('reads a number example as its text and keeps the number, the default and a free-form type', async () => {
    const places = await check('find-places-and-message');
    if (!places.checked.ok) throw new Error('invalid');
    expect(places.checked.workflow.task_params[2]).toMatchObject({
      name: 'result_limit',
      type: 'integer',
      example: '3',
      default: '3',
      kept: { example: 3, default: 3 },
    });
    expect(places.checked.warnings).toEqual([]);
    const expense = await check('record-expense-in-sheet');
    if (!expense.checked.ok) throw new Error('invalid');
    expect(expense.checked.workflow.task_params[0]).toMatchObject({ type: 'string', kept: { type: 'date' } });
  });

  it('warns where a param is unusual: a number example of a string, a default that is no value, an unknown key', async () => {
    const { checked } = await check('find-places-and-message', (doc) => {
      doc.task_params[0].example = 42;
      doc.task_params[2].default = 5;
      doc.task_params[2].example = null;
      doc.task_params[1].default = { name: 'Sam' };
    });
    expect(checked.ok).toBe(true);
    expect(checked.warnings.map((w) => `${w.path}: ${w.message}`)).toEqual([
      'task_params[0].example: "search_query" is a string but its example is the number 42: it is read as the text "42"; write it as a string or change the type',
      'task_params[1].default: "contact_name" has a default that is not a text, number or true/false: mime ignores it; write it as one of those',
    ]);
    // The default is the value a run uses when given none; the example stays what was recorded (none).
    expect(checked.ok && checked.workflow.task_params[2]).toMatchObject({ example: null, default: '5' });
    const expense = await check('record-expense-in-sheet');
    expect(expense.checked.warnings.map((w) => w.path)).toEqual([
      'plan.subtasks[1].steps[3].note_for_reviewer',
    ]);
  });

  it('refuses a __proto__ key by name, as in any workflow, and keeps no prototype change', async () => {
    const text = await readFile(join(fixture('play-song-in-music-app'), 'schema.json'), 'utf8');
    const doc = JSON.parse(text.replace('"i": 0,', '"__proto__": {"polluted": true}, "i": 0,'));
    const checked = checkWorkflow(doc);
    expect(checked.ok ? [] : checked.problems.map((p) => p.message)).toContain(
      'Unrecognized key: "__proto__"',
    );
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('writes an unchanged workflow back exactly as ai_mime wrote it', async () => {
    for (const id of AI_MIME_WORKFLOWS) {
      const { doc, checked } = await check(
        id,
        id === 'upload-to-drive-folder' ? declareFolderName : undefined,
      );
      if (!checked.ok) throw new Error(`${id}: ${JSON.stringify(checked.problems)}`);
      const saved = JSON.parse(serializeWorkflow(checked.workflow, checked.from));
      expect(saved, id).toEqual(doc);
      expect(aiMimeValidationError(saved), id).toBeNull();
    }
  });

  it("ai_mime's validator refuses what mime v2 would have written in its place", async () => {
    const { checked } = await check('find-places-and-message');
    if (!checked.ok) throw new Error('invalid');
    expect(aiMimeValidationError(JSON.parse(serializeWorkflow(checked.workflow)))).toBe(
      'subtask 0 step 2: EXTRACT requires action_value == variable_name',
    );
  });

  it("reads metadata.json's created_at in ai_mime's compact form", async () => {
    const metadata = await readRecordingMetadata(join(fixture('upload-to-drive-folder'), 'metadata.json'));
    expect(metadata).toMatchObject({
      name: 'upload a file to a drive folder',
      created_at: '2026-05-30T18:00:16Z',
    });
  });
});
