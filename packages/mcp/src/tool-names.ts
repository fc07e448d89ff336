/**
 * Tool names from task names: lowercase letters, digits and `_` (what every client accepts; the spec
 * allows a few more characters), at most 64 characters, never one of the generic tools', made unique
 * with `_2`, `_3`...
 */

import { slugOf } from '@mime-desktop/schema';

const MAX = 64;

/** `Play song (demo)!` → `play_song_demo`; a name with no letter or digit becomes `workflow`. */
export function toolNameOf(taskName: string): string {
  return slugOf(taskName, '_', MAX) || 'workflow';
}

/** Unique tool names for `taskNames`, in order, none in `reserved`. */
export function uniqueToolNames(taskNames: readonly string[], reserved: ReadonlySet<string>): string[] {
  const taken = new Set(reserved);
  return taskNames.map((taskName) => {
    const base = toolNameOf(taskName);
    let name = base;
    for (let n = 2; taken.has(name); n += 1) {
      const suffix = `_${n}`;
      name = `${base.slice(0, MAX - suffix.length)}${suffix}`;
    }
    taken.add(name);
    return name;
  });
}
