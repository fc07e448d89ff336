/**
 * The studio's edits and save on workflows as ai_mime writes them (the marketplace look-alikes in
 * fixtures/ai-mime-marketplace): what mime does not use (`additional_args`, a param's `default`, a
 * step's `details`, keys neither tool knows) and ai_mime's conventions (step `i` per subtask, an
 * EXTRACT's `action_value` as its variable name and its query in `additional_args.extract_query`)
 * come back as they were, and ai_mime's own `validate_schema` still accepts the saved file.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { checkWorkflow, readWorkflowContext } from '@mime-desktop/schema';
import { AI_MIME_WORKFLOWS, aiMimeValidationError } from '@mime-desktop/test-support/ai-mime-validator';
import { copyFixture, useTempDirs } from '@mime-desktop/test-support/e2e-rig';
import { beforeAll, describe, expect, it } from 'vitest';
import { editDraft } from '../src/workflow-draft.ts';
import { applyEdit } from '../src/workflow-edits.ts';
import { WorkflowStore } from '../src/workflow-store.ts';

const tempDir = useTempDirs();
let home: string;
let store: WorkflowStore;

beforeAll(async () => {
  home = await tempDir('mime-studio-ai-mime-');
  for (const id of AI_MIME_WORKFLOWS) {
    await copyFixture(join('ai-mime-marketplace', id), join(home, 'workflows', id));
  }
  // The one marketplace file that is wrong (an undeclared {folder_name}), corrected as a user would.
  const upload = join(home, 'workflows', 'upload-to-drive-folder', 'schema.json');
  const doc = JSON.parse(await readFile(upload, 'utf8'));
  doc.task_params.push({
    name: 'folder_name',
    type: 'string',
    description: '',
    example: 'v0',
    sensitive: false,
    optional: false,
  });
  await writeFile(upload, JSON.stringify(doc, null, 2));
  store = new WorkflowStore(home);
});

const saved = async (id: string) =>
  JSON.parse(await readFile(join(home, 'workflows', id, 'schema.json'), 'utf8'));

type Loose = Record<string, any>;
const steps = (doc: Loose): Loose[] => doc.plan.subtasks.flatMap((s: Loose) => s.steps);

describe("the studio's save of an ai_mime workflow", () => {
  it('keeps every file ai_mime-valid, in its layout, after edits of steps, params and order', async () => {
    for (const id of AI_MIME_WORKFLOWS) {
      const before = await saved(id);
      const opened = await store.open(id);
      let workflow = applyEdit(opened.workflow, {
        kind: 'set-step',
        step_i: 0,
        fields: { intent: 'Edited in the studio.' },
      });
      workflow = applyEdit(workflow, { kind: 'add-param', name: 'note', example: 'hello' });
      const last = workflow.plan.subtasks.at(-1);
      if (last && last.steps.length >= 2) {
        workflow = applyEdit(workflow, { kind: 'move-step', step_i: last.steps[0]!.i, by: 1 });
      }
      await store.save(id, workflow, opened.version);
      const after = await saved(id);
      expect(aiMimeValidationError(after), id).toBeNull();
      expect(after.version, id).toBeUndefined();
      expect(after.$schema, id).toBeUndefined();
      expect(steps(after)[0]?.intent, id).toBe('Edited in the studio.');
      // Every step keeps additional_args; an EXTRACT keeps its variable name and query where ai_mime has them.
      for (const step of steps(after)) expect(step.additional_args, id).toBeTypeOf('object');
      const extracts = (doc: Loose) => steps(doc).filter((s) => s.action_type === 'EXTRACT');
      expect(extracts(after), id).toEqual(extracts(before));
      expect(
        after.plan.subtasks.map((s: Loose) => s.steps.map((x: Loose) => x.i)),
        id,
      ).toEqual(before.plan.subtasks.map((s: Loose) => s.steps.map((x: Loose) => x.i)));
      expect(checkWorkflow(after).from, id).toBe('ai_mime-v2');
    }
  });

  it('keeps what mime does not use: a default, a number example, a free-form type, details and unknown keys', async () => {
    const places = await saved('find-places-and-message');
    expect(places.task_params[2]).toEqual({
      name: 'result_limit',
      type: 'integer',
      description: 'How many places to send. Defaults to 3.',
      example: 3,
      sensitive: false,
      optional: true,
      default: 3,
    });
    const expense = await saved('record-expense-in-sheet');
    expect(expense.task_params[0].type).toBe('date');
    expect(steps(expense)[0]?.details).toBe('the folder is on the desktop');
    expect(expense.plan.subtasks[1].steps.find((s: Loose) => s.note_for_reviewer)).toMatchObject({
      action_type: 'TYPE',
      action_value: null,
      note_for_reviewer: 'checked by hand on 2026-01-21',
    });
  });

  it('writes an edited number example of an integer param back as a number', async () => {
    const opened = await store.open('find-places-and-message');
    const edited = applyEdit(opened.workflow, { kind: 'set-param', name: 'result_limit', example: '5' });
    await store.save('find-places-and-message', edited, opened.version);
    expect((await saved('find-places-and-message')).task_params[2]).toMatchObject({ example: 5, default: 3 });
  });

  it('shows the files a workflow says it may touch, from its optimized_plan.json', async () => {
    expect((await store.open('upload-to-drive-folder')).files).toEqual({
      read: ['/Users/someone/builds/app.dmg (The file to upload is read from disk.)'],
      write: [],
    });
    expect((await store.open('find-places-and-message')).files).toEqual({ read: [], write: [] });
    expect((await store.open('record-expense-in-sheet')).files).toBeNull();
  });

  it('moves a step of a workflow whose template names a constant of its optimized_plan.json', async () => {
    const file = join(home, 'workflows', 'play-video-on-video-site', 'schema.json');
    const doc = JSON.parse(await readFile(file, 'utf8'));
    doc.plan.subtasks[0].steps[1].action_value = '{site_url}';
    await writeFile(file, JSON.stringify(doc, null, 2));
    const opened = await store.open('play-video-on-video-site');
    const edit = { kind: 'move-step', step_i: 0, by: 1 } as const;
    // Without the folder's constants the draft lists the template as a problem; with them, none.
    expect(
      editDraft(opened.workflow, edit)
        .problems.map((p) => p.message)
        .join('\n'),
    ).toMatch(/\{site_url\} names no declared param/);
    const context = await readWorkflowContext(join(home, 'workflows', 'play-video-on-video-site'));
    const { workflow: moved, problems } = editDraft(opened.workflow, edit, context);
    expect(problems).toEqual([]);
    await store.save('play-video-on-video-site', moved, opened.version);
    const after = await saved('play-video-on-video-site');
    expect(after.plan.subtasks[0].steps.map((s: Loose) => s.action_value)).toEqual([
      '{site_url}',
      null,
      'ENTER',
    ]);
    expect(aiMimeValidationError(after)).toBeNull();
  });
});
