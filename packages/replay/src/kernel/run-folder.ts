/**
 * The run folder `<workflow>/.replay/<run_id>/` (0700, files 0600) and its writes. Writes are queued
 * in order and run in the background, off the agent's critical path; `flush()` waits for them and
 * reports the first failure. JSON files are atomic, events.jsonl is appended one flushed line a write.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import {
  appendJsonl,
  makeFolder,
  namedWriteError,
  RUN_FILES,
  type RunEvent,
  writeFileAtomically,
  writeJsonAtomic,
} from '@mime-desktop/schema';

/** A run id: UTC time and 4 random hex digits, e.g. `20261122T101500Z-3fa2`. */
export function createRunId(now: Date = new Date()): string {
  const stamp = now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
  return `${stamp}-${randomBytes(2).toString('hex')}`;
}

export class RunFolder {
  readonly runId: string;
  readonly dir: string;
  #queue: Promise<void> = Promise.resolve();
  #failure: unknown;

  private constructor(runId: string, dir: string) {
    this.runId = runId;
    this.dir = dir;
  }

  /**
   * Creates a new, empty run folder under `runsDir` (made 0700 when missing). No folder between
   * `inside` and it may be a symbolic link (a workflow's `.replay` that links out): a run is never
   * written elsewhere through one (MIME_UNSAFE_PATH). A read-only or full disk is a named error.
   */
  static async create(runsDir: string, inside: string = dirname(runsDir)): Promise<RunFolder> {
    await makeFolder(runsDir, { inside });
    for (;;) {
      const runId = createRunId();
      const dir = join(runsDir, runId);
      try {
        await mkdir(dir, { mode: 0o700 });
        return new RunFolder(runId, dir);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw namedWriteError(dir, error);
      }
    }
  }

  appendEvent(event: RunEvent): void {
    this.#enqueue(() => appendJsonl(join(this.dir, RUN_FILES.events), event));
  }

  writeJson(name: string, value: unknown): void {
    this.#enqueue(() => writeJsonAtomic(join(this.dir, name), value));
  }

  /** Writes a file of the run (text or bytes), atomically, when the queue reaches it. */
  writeFile(name: string, data: string | Buffer): void {
    this.#enqueue(() => writeFileAtomically(join(this.dir, name), data));
  }

  /**
   * Writes a PNG the caller encodes (`encode`, called when the queue reaches it, so a frame is not
   * encoded on the run's critical path); a new file, never one written before.
   */
  savePng(name: string, encode: () => Promise<Buffer>): void {
    this.#enqueue(async () => {
      const file = join(this.dir, name);
      const png = await encode();
      await writeFile(file, png, { mode: 0o600, flag: 'wx' }).catch((error: unknown) => {
        throw namedWriteError(file, error);
      });
    });
  }

  /** Waits for every queued write; throws the first that failed. */
  async flush(): Promise<void> {
    await this.#queue;
    if (this.#failure !== undefined) throw this.#failure;
  }

  #enqueue(write: () => Promise<unknown>): void {
    this.#queue = this.#queue.then(async () => {
      try {
        await write();
      } catch (error) {
        this.#failure ??= error;
      }
    });
  }
}
