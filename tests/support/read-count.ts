/**
 * Counting reads: a caller's values behind a Proxy that notes each property read, to show that a
 * value given is read once (resolved in one place, not again further down).
 */

/** `values` as a Proxy that pushes each key read (a `get`) to `reads`, in order. */
export function countReads<T extends object>(values: T): { values: T; reads: PropertyKey[] } {
  const reads: PropertyKey[] = [];
  const counted = new Proxy(values, {
    get(target, key, receiver) {
      reads.push(key);
      return Reflect.get(target, key, receiver);
    },
  });
  return { values: counted, reads };
}

/** What a run prepared shows of its params: each one's value as artifacts show it, by name. */
interface Prepared {
  materialized: { params: ReadonlyArray<{ name: string; display: string }> };
}

/** What a replay stood in for was given and prepared: its params as shown, and the raw `params` option. */
export interface PreparedRun {
  shown: Record<string, string>;
  raw: unknown;
}

/**
 * A replay that is real up to its start (`prepare`, the package's prepareReplay) and then throws
 * `stop` instead of taking the desktop: each run's prepared params are pushed to `seen`.
 */
export function replayUpToStart<W, O extends { params?: unknown }>(
  prepare: (workflow: W, options?: O) => Promise<Prepared>,
  seen: PreparedRun[],
  stop: () => Error,
): (workflow: W, options?: O) => Promise<never> {
  return async (workflow, options) => {
    const prepared = await prepare(workflow, options);
    const shown = Object.fromEntries(prepared.materialized.params.map((p) => [p.name, p.display]));
    seen.push({ shown, raw: options?.params });
    throw stop();
  };
}
