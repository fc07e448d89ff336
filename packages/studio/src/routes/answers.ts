/** How the studio's routes answer: an error as the page shows it, and a request's JSON body read strictly. */
import { isMimeError, parseJsonText } from '@mime-desktop/schema';
import type { Context } from 'hono';
import { DraftGoneError } from '../draft-cache.ts';
import { StudioEditError } from '../edit-error.ts';
import { NoRecordingError } from '../recorded-events.ts';
import { RunRefusedError } from '../run-manager.ts';
import {
  RecordingNotFoundError,
  RunNotFoundError,
  WorkflowConflictError,
  WorkflowInvalidError,
  WorkflowNotFoundError,
} from '../workflow-store.ts';

export function fail(
  c: Context,
  status: 400 | 401 | 403 | 404 | 409 | 413 | 422 | 500 | 507,
  code: string,
  message: string,
  extra = {},
) {
  return c.json({ error: { code, message, ...extra } }, status);
}

/**
 * A request's JSON body, read strictly as mime reads its files: a duplicate key (`"sensitive": true,
 * "sensitive": false`) or a syntax error is a 400 naming line and column, never silently the last
 * value. No body is null.
 */
export async function strictJson(c: Context): Promise<unknown> {
  const text = await c.req.text();
  return text.trim() === '' ? null : parseJsonText(text, 'the request body');
}

/** Errors that say someone else changed or holds the workflow. */
const CONFLICTS = new Set(['MIME_HEAL_CONFLICT', 'MIME_WORKFLOW_LOCKED']);

/** An error as the page shows it, with the status that says what kind it is. */
export function answerError(c: Context, error: unknown) {
  if (error instanceof WorkflowInvalidError)
    return fail(c, 422, error.code, error.message, { problems: error.problems });
  if (error instanceof WorkflowConflictError)
    return fail(c, 409, error.code, error.message, { version: error.version });
  if (
    error instanceof WorkflowNotFoundError ||
    error instanceof RunNotFoundError ||
    error instanceof RecordingNotFoundError ||
    error instanceof NoRecordingError
  )
    return fail(c, 404, error.code, error.message);
  if (error instanceof StudioEditError) return fail(c, 400, error.code, error.message);
  if (error instanceof RunRefusedError || error instanceof DraftGoneError)
    return fail(c, 409, error.code, error.message);
  // A full disk is the server's storage, not the request: 507 Insufficient Storage, named.
  if (isMimeError(error) && error.code === 'MIME_DISK_FULL') return fail(c, 507, error.code, error.message);
  if (isMimeError(error)) return fail(c, CONFLICTS.has(error.code) ? 409 : 400, error.code, error.message);
  return fail(c, 500, 'MIME_INTERNAL', error instanceof Error ? error.message : String(error));
}
