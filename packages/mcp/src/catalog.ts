/**
 * The workflows under a data root, as tools: read at start, then again when the disk changes. The
 * data root's `workflows/` folder and each workflow's folder are watched (fs.watch, not recursive: a
 * run writing under `.replay/` is not a change); a burst of changes (ten workflows copied in) is read
 * once, after a quiet moment, and listeners hear of it once. Where nothing can be watched (no inotify
 * left, a file system without it) the data root is looked at again every `pollMs`.
 */
import { type FSWatcher, watch } from 'node:fs';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { listHome, loadWorkflow, WORKFLOW_FILE, type Workflow } from '@mime-desktop/schema';
import { assignToolNames, keepToolNames, readToolNames } from './tool-names.ts';

/** A ready workflow and the tool it is. */
export interface CatalogEntry {
  /** Its folder's name under `<home>/workflows/`. */
  id: string;
  dir: string;
  workflow: Workflow;
  tool: string;
}

/** Names of the tools every server has; a workflow's tool never takes one. */
export const GENERIC_TOOLS = new Set(['list_workflows', 'replay', 'get_run', 'validate']);

export interface CatalogOptions {
  home: string;
  /** Quiet time after the last change seen on disk before the data root is read again, ms. Default 300. */
  debounceMs?: number;
  /** Longest a stream of changes delays that read, ms. Default 2000. */
  maxDelayMs?: number;
  /** How often the data root is looked at again when it cannot be watched, ms. Default 1500. */
  pollMs?: number;
}

/** Names inside a workflow folder whose changes never change its tool: runs, batches, locks, the checks' cache. */
const UNWATCHED = /^\.(replay|batch|mime\.lock|cache)/;

export class WorkflowCatalog {
  readonly home: string;
  readonly #debounceMs: number;
  readonly #maxDelayMs: number;
  readonly #pollMs: number;
  #entries: CatalogEntry[] = [];
  #stamp = '';
  /** The version (inode, size, time) of each ready workflow's schema.json at the last read, by id. */
  #versions = new Map<string, string>();
  readonly #listeners = new Set<() => void>();
  /** Watched folders by path. */
  readonly #watchers = new Map<string, FSWatcher>();
  /** Polling instead of watching (set once watching failed). */
  #polling = false;
  #timer: NodeJS.Timeout | undefined;
  /** When the first change of the pending burst was seen, or null when none is pending. */
  #burstStart: number | null = null;
  /** The read under way; another change meanwhile reads again after it. */
  #reading: Promise<void> | null = null;
  #again = false;
  #stopped = false;

  constructor(options: CatalogOptions) {
    this.home = options.home;
    this.#debounceMs = options.debounceMs ?? 300;
    this.#maxDelayMs = options.maxDelayMs ?? 2000;
    this.#pollMs = options.pollMs ?? 1500;
  }

  get entries(): readonly CatalogEntry[] {
    return this.#entries;
  }

  /** Whether the data root is polled rather than watched (fs.watch was not available). */
  get polling(): boolean {
    return this.#polling;
  }

  /** The entry of a workflow by its id, its tool name or its folder. */
  find(name: string): CatalogEntry | undefined {
    return this.#entries.find((e) => e.id === name || e.tool === name || e.dir === name);
  }

  /** Reads the data root now; true when the list changed. */
  async refresh(): Promise<boolean> {
    const { workflows } = await listHome(this.home);
    this.#watchFolders(workflows.map((w) => w.dir));
    const ready = workflows.filter((w) => w.state === 'ready');
    // File times tick coarsely (a few ms): the inode (a file saved by rename is a new one) and the size
    // tell a change within one tick too.
    const versions = await Promise.all(
      ready.map((w) =>
        stat(join(w.dir, WORKFLOW_FILE)).then(
          (s) => `${s.ino}:${s.size}:${s.mtimeMs}`,
          () => '',
        ),
      ),
    );
    const stamp = ready.map((w, i) => `${w.session_id}@${versions[i]}`).join('|');
    if (stamp === this.#stamp) return false;
    // Only a workflow whose schema.json changed is read again; the others keep their entry (and their
    // tool, which the servers then leave registered as it is).
    const before = new Map(this.#entries.map((e) => [e.id, e]));
    const loaded = await Promise.all(
      ready.map((w, i) => {
        const kept = before.get(w.session_id);
        if (kept && kept.dir === w.dir && this.#versions.get(w.session_id) === versions[i]) return kept;
        return loadWorkflow(w.dir).then(
          ({ workflow }) => ({ id: w.session_id, dir: w.dir, workflow }),
          () => null,
        );
      }),
    );
    const usable = loaded.filter((e) => e !== null);
    const earlier = await readToolNames(this.home);
    const tools = assignToolNames(
      usable.map((e) => ({ id: e.id, taskName: e.workflow.task_name })),
      GENERIC_TOOLS,
      earlier,
    );
    await keepToolNames(this.home, earlier, tools);
    this.#entries = usable.map((e) => {
      const tool = tools.get(e.id) as string;
      return 'tool' in e && e.tool === tool ? e : { id: e.id, dir: e.dir, workflow: e.workflow, tool };
    });
    this.#versions = new Map(ready.map((w, i) => [w.session_id, versions[i] as string]));
    this.#stamp = stamp;
    return true;
  }

  /** Calls `listener` after each change; returns the function that stops it. */
  onChange(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Reads the data root, then follows it. */
  async start(): Promise<void> {
    this.#stopped = false;
    await this.refresh();
    if (this.#polling) this.#schedule(this.#pollMs);
  }

  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
    for (const watcher of this.#watchers.values()) watcher.close();
    this.#watchers.clear();
    this.#listeners.clear();
  }

  /**
   * Watches `workflows/` (the data root itself until that exists) and each workflow folder; falls back
   * to polling when a folder cannot be watched.
   */
  #watchFolders(workflowDirs: readonly string[]): void {
    if (this.#polling || this.#stopped) return;
    const workflows = join(this.home, 'workflows');
    const top = this.#watch(workflows) ? workflows : this.#watch(this.home) ? this.home : null;
    if (top === null) {
      this.#fallBackToPolling();
      return;
    }
    const wanted = new Set([top, ...workflowDirs]);
    for (const [dir, watcher] of this.#watchers) {
      if (!wanted.has(dir)) {
        watcher.close();
        this.#watchers.delete(dir);
      }
    }
    for (const dir of wanted) if (!this.#polling) this.#watch(dir);
  }

  /** Watches a folder (once); false when it does not exist. */
  #watch(dir: string): boolean {
    if (this.#watchers.has(dir)) return true;
    try {
      const watcher = watch(dir, { persistent: false }, (_event, name) => {
        if (name && UNWATCHED.test(name)) return;
        this.#changed();
      });
      // A folder removed under its watcher: forget it; the next read watches what is there.
      watcher.on('error', () => {
        watcher.close();
        if (this.#watchers.get(dir) === watcher) this.#watchers.delete(dir);
        this.#changed();
      });
      this.#watchers.set(dir, watcher);
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') this.#fallBackToPolling();
      return false;
    }
  }

  #fallBackToPolling(): void {
    if (this.#polling || this.#stopped) return;
    this.#polling = true;
    for (const watcher of this.#watchers.values()) watcher.close();
    this.#watchers.clear();
    this.#schedule(this.#pollMs);
  }

  /** A change on disk: read again once the burst is over (or has lasted `maxDelayMs`). */
  #changed(): void {
    if (this.#stopped) return;
    const now = Date.now();
    this.#burstStart ??= now;
    const left = this.#burstStart + this.#maxDelayMs - now;
    this.#schedule(Math.max(0, Math.min(this.#debounceMs, left)));
  }

  #schedule(ms: number): void {
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => void this.#read(), ms);
    this.#timer.unref();
  }

  async #read(): Promise<void> {
    if (this.#reading) {
      this.#again = true;
      return;
    }
    this.#burstStart = null;
    this.#reading = (async () => {
      const changed = await this.refresh().catch(() => false);
      if (changed && !this.#stopped) for (const listener of this.#listeners) listener();
    })();
    await this.#reading;
    this.#reading = null;
    if (this.#stopped) return;
    if (this.#again) {
      this.#again = false;
      this.#schedule(this.#debounceMs);
    } else if (this.#polling) this.#schedule(this.#pollMs);
  }
}
