/**
 * The changes an edit's answer names (JSON Patch, RFC 6902, as the studio's diff writes them: add,
 * remove, replace), applied to a copy of the draft: the page's drafts are never changed in place.
 */

/** The keys of a JSON Pointer (`/plan/subtasks/0` -> plan, subtasks, 0). */
const keysOf = (pointer) =>
  pointer
    .split('/')
    .slice(1)
    .map((key) => key.replaceAll('~1', '/').replaceAll('~0', '~'));

/** `document` with `changes` applied; throws on an operation the studio does not send. */
export function applyChanges(document, changes) {
  let copy = structuredClone(document);
  for (const { op, path, value } of changes) {
    if (!['add', 'remove', 'replace'].includes(op)) throw new Error(`the studio sent a change "${op}"`);
    const keys = keysOf(path);
    // A workflow is untrusted: a key that would reach an object's prototype is no change to make.
    if (keys.includes('__proto__')) throw new Error(`the studio sent a change of ${path}`);
    const last = keys.pop();
    if (last === undefined) {
      copy = structuredClone(value);
      continue;
    }
    const parent = keys.reduce((node, key) => node[key], copy);
    if (Array.isArray(parent)) {
      const at = last === '-' ? parent.length : Number(last);
      if (op === 'add') parent.splice(at, 0, value);
      else if (op === 'remove') parent.splice(at, 1);
      else parent[at] = value;
    } else if (op === 'remove') delete parent[last];
    else parent[last] = value;
  }
  return copy;
}

/** Whether two JSON values are equal, whatever the order of their objects' keys (an added key comes last). */
export function sameJson(a, b) {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every((key) => Object.hasOwn(b, key) && sameJson(a[key], b[key]));
}
