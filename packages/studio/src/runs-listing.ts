/**
 * A workflow's runs as a page's Runs list follows them: read whole once, then only the runs named, as
 * they start, end or go on (a run made or removed, as the watch tells; a run going on, read again while
 * it goes on). Keeping the list current costs the runs that change, not every run there has been.
 */
import type { RunListing, WorkflowStore } from './workflow-store.ts';

/** Oldest first, as the store lists them (by start, then by name). */
const byStart = (a: RunListing, b: RunListing) =>
  (a.started_at ?? '').localeCompare(b.started_at ?? '') || a.run_id.localeCompare(b.run_id);

export class RunsListing {
  readonly #store: WorkflowStore;
  readonly #id: string;
  #runs: Map<string, RunListing> | null = null;

  constructor(store: WorkflowStore, id: string) {
    this.#store = store;
    this.#id = id;
  }

  /**
   * Reads again the runs named `runIds` (a run whose folder is gone leaves the list), or every run
   * when `runIds` is null or none was read yet; throws when the workflow cannot be read.
   */
  async read(runIds: Iterable<string> | null): Promise<void> {
    if (runIds === null || this.#runs === null) {
      this.#runs = new Map((await this.#store.runs(this.#id)).map((run) => [run.run_id, run]));
      return;
    }
    for (const [run, listed] of await this.#store.someRuns(this.#id, runIds)) {
      if (listed) this.#runs.set(run, listed);
      else this.#runs.delete(run);
    }
  }

  /** The runs listed as going on, by name. */
  running(): string[] {
    return this.list()
      .filter((run) => run.state === 'running')
      .map((run) => run.run_id);
  }

  /** The runs as last read, oldest first. */
  list(): RunListing[] {
    return [...(this.#runs?.values() ?? [])].sort(byStart);
  }
}
