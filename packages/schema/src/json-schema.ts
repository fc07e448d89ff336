import { z } from 'zod';
import { Workflow } from './workflow.ts';

/** `$id` of the generated JSON Schema of schema.json v2. */
export const WORKFLOW_JSON_SCHEMA_ID = 'urn:mime:workflow:v2';

/** The JSON Schema of schema.json (what a person may write: defaulted fields are optional). */
export function workflowJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(Workflow, { io: 'input', target: 'draft-2020-12' });
  return { ...schema, $id: WORKFLOW_JSON_SCHEMA_ID, title: 'mime workflow (schema.json v2)' };
}
