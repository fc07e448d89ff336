import { zodResponseFormat } from 'openai/helpers/zod';
import { z } from 'zod';

/** A JSON Schema to send, and whether it meets OpenAI's strict structured-output rules. */
export interface JsonSchemaSpec {
  schema: Record<string, unknown>;
  strict: boolean;
}

const cache = new WeakMap<z.ZodType, JsonSchemaSpec>();

/**
 * The JSON Schema of a zod schema, built by the SDK's zod-4 helper in strict form (every property
 * required, `additionalProperties: false`). Schemas strict mode cannot express (`.optional()` fields,
 * a non-object root) are sent non-strict, as zod's own draft-7 export of the input shape.
 */
export function buildJsonSchema(schema: z.ZodType): JsonSchemaSpec {
  const cached = cache.get(schema);
  if (cached) return cached;
  let spec: JsonSchemaSpec;
  try {
    spec = { schema: zodResponseFormat(schema, 'schema').json_schema.schema ?? {}, strict: true };
  } catch {
    spec = { schema: z.toJSONSchema(schema, { target: 'draft-7', io: 'input' }), strict: false };
  }
  cache.set(schema, spec);
  return spec;
}
