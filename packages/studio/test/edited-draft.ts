/** The draft an edit's answer makes of a draft, as the page does: the changes it names, applied to a copy. */
import { applyPatch, type Operation } from 'rfc6902';
import { expect } from 'vitest';

export function editedDraft<T>(draft: T, answer: { body: string }): T {
  const copy = structuredClone(draft);
  const { changes } = JSON.parse(answer.body) as { changes: Operation[] };
  expect(applyPatch(copy, changes)).toEqual(changes.map(() => null));
  return copy;
}
