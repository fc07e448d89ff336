import type { z } from 'zod';
import type { Problem } from './errors.ts';

/** `['plan', 'subtasks', 1, 'text']` -> `plan.subtasks[1].text`. */
export function formatPath(path: ReadonlyArray<PropertyKey>): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out === '' ? String(part) : `.${String(part)}`;
  }
  return out;
}

function describeIssue(issue: z.core.$ZodIssue): string {
  if (issue.code === 'invalid_type' && issue.message.endsWith('received undefined')) {
    return `required: expected ${issue.expected}`;
  }
  return issue.message;
}

/** Every zod issue as a {@link Problem}, with paths relative to `prefix`. */
export function zodProblems(error: z.ZodError, prefix: ReadonlyArray<PropertyKey> = []): Problem[] {
  return error.issues.map((issue) => ({
    path: formatPath([...prefix, ...issue.path]),
    message: describeIssue(issue),
  }));
}

/** Problems in document order (`steps[2]` before `steps[10]`), stable for equal paths. */
export function sortProblems(problems: readonly Problem[]): Problem[] {
  return [...problems].sort((a, b) => a.path.localeCompare(b.path, 'en', { numeric: true }));
}
