/**
 * Tool names from task names: lowercase letters, digits and `_` (what every client accepts; the spec
 * allows a few more characters), at most 64 characters, never one of the generic tools'. Names that
 * collide are settled by something that does not change when workflows are added or the folder is
 * listed in another order: the oldest workflow (by its session id, which starts with its UTC creation
 * time) keeps the plain name, and each other takes a suffix from the hash of its own id. A workflow
 * added later never takes a name an agent already uses.
 */
import { createHash } from 'node:crypto';
import { slugOf } from '@mime-desktop/schema';

const MAX = 64;

/** `Play song (demo)!` → `play_song_demo`; a name with no letter or digit becomes `workflow`. */
export function toolNameOf(taskName: string): string {
  return slugOf(taskName, '_', MAX) || 'workflow';
}

/** A workflow to name: its task name and its id (the folder's session id). */
export interface ToolNameSource {
  taskName: string;
  id: string;
}

/** `<base>_<6 hex of the id's SHA-256>`, within {@link MAX}. */
function suffixed(base: string, id: string): string {
  const suffix = `_${createHash('sha256').update(id).digest('hex').slice(0, 6)}`;
  return `${base.slice(0, MAX - suffix.length)}${suffix}`;
}

/** Unique tool names for `workflows`, in their order, none in `reserved`, each stable as others come and go. */
export function uniqueToolNames(
  workflows: readonly ToolNameSource[],
  reserved: ReadonlySet<string>,
): string[] {
  const bases = workflows.map((w) => toolNameOf(w.taskName));
  const oldest = new Map<string, string>();
  for (const [i, w] of workflows.entries()) {
    const base = bases[i] as string;
    const holder = oldest.get(base);
    if (!reserved.has(base) && (holder === undefined || w.id < holder)) oldest.set(base, w.id);
  }
  const taken = new Set(reserved);
  return workflows.map((w, i) => {
    const base = bases[i] as string;
    let name = oldest.get(base) === w.id && !taken.has(base) ? base : suffixed(base, w.id);
    // Two ids with one hash prefix (or a twin id): the id's full hash decides, then a counter.
    for (let n = 2; taken.has(name); n += 1) name = suffixed(base, `${w.id}#${n}`);
    taken.add(name);
    return name;
  });
}
