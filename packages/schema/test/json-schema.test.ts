import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { workflowJsonSchema } from '../src/json-schema.ts';
import { WORKFLOW_JSON_SCHEMA_FILE } from '../src/workflow-file.ts';

const repo = join(import.meta.dirname, '..', '..', '..');
const readJson = async (file: string) => JSON.parse(await readFile(file, 'utf8'));

describe('JSON Schema of schema.json', () => {
  it('matches the pinned copy and the copies beside the fixtures (run `pnpm schema:generate` to update)', async () => {
    const generated = workflowJsonSchema();
    expect(await readJson(join(repo, 'packages', 'schema', WORKFLOW_JSON_SCHEMA_FILE))).toEqual(generated);
    expect(
      await readJson(join(repo, 'fixtures', 'workflows', 'play-song', WORKFLOW_JSON_SCHEMA_FILE)),
    ).toEqual(generated);
  });

  it('lets an editor accept the fixture and flag a typo', async () => {
    const validate = new Ajv2020({ strict: false, allErrors: true }).compile(workflowJsonSchema());
    const doc = await readJson(join(repo, 'fixtures', 'workflows', 'play-song', 'schema.json'));
    expect(validate(doc)).toBe(true);
    doc.plan.subtasks[0].steps[0].action_typ = 'CLICK';
    doc.plan.subtasks[0].steps[1].action_type = 'TAP';
    expect(validate(doc)).toBe(false);
    expect(validate.errors?.map((e) => `${e.instancePath} ${e.keyword}`)).toEqual(
      expect.arrayContaining([
        '/plan/subtasks/0/steps/0 additionalProperties',
        '/plan/subtasks/0/steps/1/action_type enum',
      ]),
    );
  });
});
