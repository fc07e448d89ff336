import { cp, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { aiMimeValidationError } from '@mime-desktop/test-support/ai-mime-validator';
import { copyFixture, tempDir } from '@mime-desktop/test-support/e2e-rig';
import { REPO_ROOT, runMime } from '@mime-desktop/test-support/run-mime';
import { describe, expect, it } from 'vitest';

const FIXTURE = join(REPO_ROOT, 'fixtures', 'workflows', 'play-song');
const EDITOR = `${process.execPath} ${join(REPO_ROOT, 'tests', 'support', 'fake-editor.mjs')}`;

type EditorStep =
  | { set: { path: Array<string | number>; value: unknown }; meanwhile?: string }
  | { write: string }
  | { keep: true }
  | { empty: true }
  | { exit: number };

/** Runs `mime edit` on a fresh copy of the fixture with the scripted editor. */
async function edit(steps: EditorStep[], options: { source?: string; env?: Record<string, string> } = {}) {
  const dir = await tempDir('mime-edit-test-');
  const workflow = join(dir, 'workflow');
  await cp(options.source ?? FIXTURE, workflow, { recursive: true });
  const plan = join(dir, 'plan.json');
  const log = join(dir, 'editor.log');
  await writeFile(plan, JSON.stringify(steps));
  const before = await readFile(join(workflow, 'schema.json'), 'utf8');
  const result = await runMime(['edit', workflow], {
    env: {
      EDITOR,
      VISUAL: '',
      FAKE_EDITOR_PLAN: plan,
      FAKE_EDITOR_LOG: log,
      FAKE_EDITOR_ORIGINAL: join(workflow, 'schema.json'),
      ...options.env,
    },
  });
  const after = await readFile(join(workflow, 'schema.json'), 'utf8');
  const shown = await readFile(log, 'utf8').catch(() => '');
  return { result, before, after, shown, workflow, rounds: shown.split('=== round').length - 1 };
}

describe('mime edit', () => {
  it('saves a valid change atomically, with $schema and the JSON Schema beside it', async () => {
    const { result, after, workflow, rounds } = await edit([
      { set: { path: ['task_name'], value: 'play a tune' } },
    ]);
    expect(result.exitCode).toBe(0);
    expect(rounds).toBe(1);
    expect(result.stderr).toContain('✓ saved');
    const doc = JSON.parse(after);
    expect(doc.task_name).toBe('play a tune');
    expect(doc.$schema).toBe('./workflow.schema.json');
    expect((await stat(join(workflow, 'workflow.schema.json'))).isFile()).toBe(true);
  });

  it('reopens an invalid save with the problems on top until it is valid', async () => {
    const { result, after, shown, rounds } = await edit([
      { set: { path: ['plan', 'subtasks', 0, 'text'], value: 'Search for {song}.' } },
      {
        set: {
          path: ['plan', 'subtasks', 0, 'text'],
          value: 'Search for {song_name}. Expected outcome: results.',
        },
      },
    ]);
    expect(result.exitCode).toBe(0);
    expect(rounds).toBe(2);
    expect(shown.split('=== round 1')[1]).toMatch(
      /^\/\/ The last save was NOT applied: 1 problem:\n\/\/ {3}plan\.subtasks\[0\]\.text: \{song\} names no declared param/m,
    );
    expect(JSON.parse(after).plan.subtasks[0].text).toBe(
      'Search for {song_name}. Expected outcome: results.',
    );
  });

  it('never overwrites a workflow changed on disk meanwhile: the edit is kept, exit 1', async () => {
    const { result, before, after } = await edit([
      { set: { path: ['task_name'], value: 'my change' }, meanwhile: '\n' },
    ]);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toMatch(
      /MIME_EDIT_CONFLICT.*changed on disk while you edited it .*your edit is kept in (\S+schema\.json)/s,
    );
    expect(after).toBe(`${before}\n`);
    const kept = /your edit is kept in (\S+schema\.json)/.exec(result.stderr)?.[1] ?? '';
    expect(JSON.parse(await readFile(kept, 'utf8')).task_name).toBe('my change');
  });

  it('leaves the file untouched when saved unchanged', async () => {
    const { result, before, after } = await edit([{ keep: true }]);
    expect(result.exitCode).toBe(0);
    expect(result.stderr).toContain('no changes');
    expect(after).toBe(before);
  });

  it('cancels when an invalid edit is saved again unchanged, keeping the edit (exit 130)', async () => {
    const { result, before, after, rounds } = await edit([{ write: '{ "task_name": "" }' }, { keep: true }]);
    expect(result.exitCode).toBe(130);
    expect(rounds).toBe(2);
    expect(after).toBe(before);
    const kept = /your edit is kept in (\S+)/.exec(result.stderr)?.[1];
    expect(kept).toBeDefined();
    expect(await readFile(kept as string, 'utf8')).toContain('{ "task_name": "" }');
  });

  it('cancels when the file is saved empty', async () => {
    const { result, before, after } = await edit([{ empty: true }]);
    expect(result.exitCode).toBe(130);
    expect(result.stderr).toContain('[MIME_ABORTED] edit cancelled: the file was saved empty');
    expect(after).toBe(before);
  });

  it('reports invalid JSON in the header and recovers', async () => {
    const fixed = JSON.parse(await readFile(join(FIXTURE, 'schema.json'), 'utf8'));
    fixed.task_name = 'fixed';
    const { result, shown, after, rounds } = await edit([
      { write: '{ "task_name": "x", }' },
      { write: JSON.stringify(fixed) },
    ]);
    expect(rounds).toBe(2);
    expect(shown.split('=== round 1')[1]).toMatch(/^\/\/ {3}invalid JSON at line 1, column 21/m);
    expect(result.exitCode).toBe(0);
    expect(JSON.parse(after).task_name).toBe('fixed');
  });

  it('fails with exit 1 when the editor fails, changing nothing', async () => {
    const { result, before, after } = await edit([{ exit: 3 }]);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toMatch(
      /\[MIME_EDITOR_FAILED\] the editor ".*fake-editor\.mjs" exited with code 3/,
    );
    expect(after).toBe(before);
  });

  it('opens an ai_mime v1 file upgraded and saves it as v2', async () => {
    const dir = await tempDir('mime-edit-v1-');
    await copyFixture('compat/ai_mime/schema.v1.json', join(dir, 'schema.json'));
    const { result, after } = await edit([{ set: { path: ['task_params', 0, 'example'], value: 'Faint' } }], {
      source: dir,
    });
    expect(result.exitCode).toBe(0);
    const doc = JSON.parse(after);
    expect(doc.version).toBe(2);
    expect(doc.subtasks).toBeUndefined();
    expect(doc.plan.subtasks.map((s: { steps: unknown[] }) => s.steps.length)).toEqual([1, 4]);
    expect(doc.task_params[0].example).toBe('Faint');
  });

  it("opens an ai_mime v2 file as it is and saves it in ai_mime's layout, without the stored secret", async () => {
    const dir = await tempDir('mime-edit-v2-');
    await copyFixture('compat/ai_mime/schema.v2.json', join(dir, 'schema.json'));
    const { result, after, shown, workflow } = await edit(
      [{ set: { path: ['task_params', 0, 'example'], value: 'Faint' } }],
      { source: dir },
    );
    expect(result.exitCode, result.stderr).toBe(0);
    // What the editor showed is the file as ai_mime wrote it, not mime's reading of it.
    expect(shown).toContain('"additional_args"');
    expect(shown).not.toContain('4821');
    expect(after).not.toContain('4821');
    const doc = JSON.parse(after);
    expect(doc.version).toBeUndefined();
    expect(doc.task_params[0].example).toBe('Faint');
    expect(aiMimeValidationError(doc)).toBeNull();
    expect(
      doc.plan.subtasks.map((s: { steps: Array<{ i: number }> }) => s.steps.map((step) => step.i)),
    ).toEqual([
      [0, 1, 2],
      [0, 1],
    ]);
    expect(doc.plan.subtasks[1].steps[1]).toMatchObject({
      action_value: 'extract_0',
      variable_name: 'extract_0',
      additional_args: { extract_query: 'the title of the song shown in the now-playing bar' },
    });
    const again = await runMime(['validate', workflow]);
    expect(again.exitCode).toBe(0);
    expect(again.stderr).toContain("ai_mime's v2 layout");
  });
});
