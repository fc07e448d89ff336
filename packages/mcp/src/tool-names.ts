/**
 * Tool names from task names: lowercase letters, digits and `_` (what every client accepts; the spec
 * allows a few more characters), at most 64 characters, never one of the generic tools'. A name, once
 * given, stays with its workflow: a workflow added later whose name collides (a shared "Play-Song!"
 * beside the recorded "play song") gets `_2`, `_3`..., never the name a client already calls.
 */

import { join } from 'node:path';
import { distinctSlugOf, readJsonFile, writeJsonAtomic } from '@mime-desktop/schema';
import { z } from 'zod';

const MAX = 64;

/**
 * `Play song (demo)!` → `play_song_demo`; a name in another script, or with no letter or digit, gets a
 * short hash of itself (`播放歌曲` → `workflow_1c0e7a`), so such names stay apart.
 */
export function toolNameOf(taskName: string): string {
  return distinctSlugOf(taskName, '_', MAX, 'workflow');
}

/** A workflow to name: its stable id (its folder's name) and its task name. */
export interface NamedWorkflow {
  id: string;
  taskName: string;
}

/** Whether `name` is one {@link assignToolNames} could give `taskName`: its base, or the base (cut to fit) with `_N`. */
function fitsTask(name: string, taskName: string): boolean {
  const base = toolNameOf(taskName);
  if (name === base) return true;
  const suffix = /_([2-9]|[1-9]\d+)$/.exec(name);
  if (!suffix) return false;
  const stem = name.slice(0, suffix.index);
  return stem === base.slice(0, MAX - suffix[0].length);
}

/**
 * Unique tool names by workflow id, none in `reserved`. A workflow keeps the name it had (`earlier`)
 * while that name still fits its task name and no other workflow kept it first; the others are named
 * in id order, so the result never depends on the order the folders were listed in.
 */
export function assignToolNames(
  workflows: readonly NamedWorkflow[],
  reserved: ReadonlySet<string>,
  earlier: ReadonlyMap<string, string> = new Map(),
): Map<string, string> {
  const taken = new Set(reserved);
  const names = new Map<string, string>();
  const byId = [...workflows].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  for (const w of byId) {
    const before = earlier.get(w.id);
    if (before !== undefined && !taken.has(before) && fitsTask(before, w.taskName)) {
      names.set(w.id, before);
      taken.add(before);
    }
  }
  for (const w of byId) {
    if (names.has(w.id)) continue;
    const base = toolNameOf(w.taskName);
    let name = base;
    for (let n = 2; taken.has(name); n += 1) {
      const suffix = `_${n}`;
      name = `${base.slice(0, MAX - suffix.length)}${suffix}`;
    }
    names.set(w.id, name);
    taken.add(name);
  }
  return names;
}

/** Where the names given are kept, in the data root, so every server and every restart gives the same. */
export const TOOL_NAMES_FILE = 'mcp-tool-names.json';

const KeptNames = z.record(z.string(), z.string().max(MAX));

/** The names given before, by workflow id; none when the file is missing or damaged. */
export async function readToolNames(home: string): Promise<Map<string, string>> {
  const kept = KeptNames.safeParse(await readJsonFile(join(home, TOOL_NAMES_FILE)).catch(() => ({})));
  return new Map(kept.success ? Object.entries(kept.data) : []);
}

/**
 * Keeps `names` beside those of workflows not listed now (one being edited keeps its name for when it
 * is back). Best effort: a data root that cannot be written (read-only) names tools the same way from
 * the ids, only without memory.
 */
export async function keepToolNames(
  home: string,
  earlier: ReadonlyMap<string, string>,
  names: ReadonlyMap<string, string>,
): Promise<void> {
  if ([...names].every(([id, name]) => earlier.get(id) === name)) return;
  const merged = Object.fromEntries([...earlier, ...names].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  await writeJsonAtomic(join(home, TOOL_NAMES_FILE), merged).catch(() => undefined);
}
