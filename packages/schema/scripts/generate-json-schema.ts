/**
 * Regenerates the JSON Schema of schema.json: the pinned copy in this package and the copies beside
 * the fixture workflows. Run with `pnpm schema:generate` after changing the zod schema.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { WORKFLOW_JSON_SCHEMA_FILE, workflowJsonSchema, writeJsonAtomic } from '@mime-desktop/schema';

const root = join(import.meta.dirname, '..', '..', '..');
const schema = workflowJsonSchema();
const targets = [join(root, 'packages', 'schema', WORKFLOW_JSON_SCHEMA_FILE)];
for (const entry of await readdir(join(root, 'fixtures', 'workflows'), { withFileTypes: true })) {
  if (entry.isDirectory())
    targets.push(join(root, 'fixtures', 'workflows', entry.name, WORKFLOW_JSON_SCHEMA_FILE));
}
for (const target of targets) await writeJsonAtomic(target, schema, { mode: 0o644 });
process.stderr.write(`wrote ${targets.length} copies of ${WORKFLOW_JSON_SCHEMA_FILE}\n`);
