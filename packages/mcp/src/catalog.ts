/**
 * The workflows under a data root, as tools: read at start, then looked at again every `pollMs`;
 * a workflow added, removed, healed or edited on disk (its `schema.json` changed) changes the list,
 * and listeners hear of it.
 */
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { listHome, loadWorkflow, WORKFLOW_FILE, type Workflow } from '@mime-desktop/schema';
import { uniqueToolNames } from './tool-names.ts';

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
  /** How often the data root is looked at again, ms. Default 1500. */
  pollMs?: number;
}

export class WorkflowCatalog {
  readonly home: string;
  readonly #pollMs: number;
  #entries: CatalogEntry[] = [];
  #stamp = '';
  #timer: NodeJS.Timeout | undefined;
  readonly #listeners = new Set<() => void>();

  constructor(options: CatalogOptions) {
    this.home = options.home;
    this.#pollMs = options.pollMs ?? 1500;
  }

  get entries(): readonly CatalogEntry[] {
    return this.#entries;
  }

  /** The entry of a workflow by its id, its tool name or its folder. */
  find(name: string): CatalogEntry | undefined {
    return this.#entries.find((e) => e.id === name || e.tool === name || e.dir === name);
  }

  /** Reads the data root now; true when the list changed. */
  async refresh(): Promise<boolean> {
    const { workflows } = await listHome(this.home);
    const ready = workflows.filter((w) => w.state === 'ready');
    const times = await Promise.all(
      ready.map((w) =>
        stat(join(w.dir, WORKFLOW_FILE)).then(
          (s) => s.mtimeMs,
          () => 0,
        ),
      ),
    );
    const stamp = ready.map((w, i) => `${w.session_id}@${times[i]}`).join('|');
    if (stamp === this.#stamp) return false;
    const loaded = await Promise.all(
      ready.map((w) =>
        loadWorkflow(w.dir).then(
          ({ workflow }) => ({ id: w.session_id, dir: w.dir, workflow }),
          () => null,
        ),
      ),
    );
    const usable = loaded.filter((e) => e !== null);
    const tools = uniqueToolNames(
      usable.map((e) => ({ taskName: e.workflow.task_name, id: e.id })),
      GENERIC_TOOLS,
    );
    this.#entries = usable.map((e, i) => ({ ...e, tool: tools[i] as string }));
    this.#stamp = stamp;
    return true;
  }

  /** Calls `listener` after each change; returns the function that stops it. */
  onChange(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Reads the data root, then keeps looking. */
  async start(): Promise<void> {
    await this.refresh();
    const poll = async () => {
      const changed = await this.refresh().catch(() => false);
      if (changed) for (const listener of this.#listeners) listener();
      this.#timer = setTimeout(poll, this.#pollMs);
      this.#timer.unref();
    };
    this.#timer = setTimeout(poll, this.#pollMs);
    this.#timer.unref();
  }

  stop(): void {
    clearTimeout(this.#timer);
    this.#listeners.clear();
  }
}
