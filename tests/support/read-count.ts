import { MimeError } from '@mime-desktop/schema';

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

/** The replay package's module, as much of it as {@link replayUpToStart} needs. */
interface ReplayModule {
  prepareReplay(workflow: unknown, options?: { params?: unknown }): Promise<Prepared>;
}

/**
 * The replay package with a `replay` that is real up to its start (its prepareReplay) and then throws
 * `MIME_TEST_NO_DESKTOP` instead of taking the desktop: each run's prepared params are pushed to
 * `seen`. For `vi.mock('@mime-desktop/replay', (importOriginal) => replayUpToStart(importOriginal, seen))`.
 */
export async function replayUpToStart<M extends ReplayModule>(
  importOriginal: () => Promise<M>,
  seen: PreparedRun[],
): Promise<M> {
  const actual = await importOriginal();
  const replay = async (workflow: unknown, options?: { params?: unknown }): Promise<never> => {
    const prepared = await actual.prepareReplay(workflow, options);
    const shown = Object.fromEntries(prepared.materialized.params.map((p) => [p.name, p.display]));
    seen.push({ shown, raw: options?.params });
    throw new MimeError('MIME_TEST_NO_DESKTOP', 'the desktop is stood in for');
  };
  return { ...actual, replay };
}
