/**
 * Replays started from the studio: one at a time (there is one screen), in this process, through
 * `@mime-desktop/replay` (loaded at the first run). Each run's events (redacted by the replay: a
 * sensitive value is `{name}` in every one) are kept for the page and streamed to it as they come.
 * Sensitive values reach the replay through its environment only, never a file or an event.
 */
import { randomUUID } from 'node:crypto';
import type { PauseControl, ReplayEvent } from '@mime-desktop/replay';
import type { RunCause, RunDivergence } from '@mime-desktop/report';
import { loadWorkflow, MimeError, type ReplayMode, type Size } from '@mime-desktop/schema';
import { MessageLog } from './message-log.ts';
import { frameSize } from './run-steps.ts';

/** The last divergence among a run's messages, with where it happened. */
function lastDivergence(messages: readonly RunMessage[]): RunDivergence | null {
  for (const message of [...messages].reverse()) {
    if (message.kind === 'event' && message.event.type === 'divergence') {
      const { type: _type, subtask_i = null, iteration = null, ...data } = message.event;
      return { ...data, subtask_i, iteration };
    }
  }
  return null;
}

/** A run cannot start: another one is running, or what was asked is not a run. */
export class RunRefusedError extends MimeError {
  constructor(message: string) {
    super('MIME_RUN_REFUSED', message);
  }
}

/** Who paused or resumed a run: the studio's button, or the replay's hotkey (named by its event). */
export type PausedBy = 'studio' | 'hotkey';

/**
 * An event of a run, as the page gets it: the replay's event (a pause or resume with who did it), or
 * the end with its summary.
 */
export type RunMessage =
  | { kind: 'event'; event: ReplayEvent; by?: PausedBy }
  | {
      kind: 'end';
      outcome: string;
      code: string | null;
      reason: string | null;
      dir: string | null;
      /** Why it did not succeed, cause first (null for a success). */
      cause: RunCause | null;
      /** The size of each of the cause's crops, by path (the page keeps their place before they load). */
      crops: Record<string, Size>;
    };

/** What a run was asked to do, as the page may show it again (no secret: only their names). */
export interface RunRequestView {
  mode: ReplayMode;
  fresh: boolean;
  params: Record<string, string>;
  secrets: string[];
}

export interface StudioRun {
  id: string;
  workflowId: string;
  /** The run folder, once the replay made it. */
  dir: string | null;
  messages: MessageLog<RunMessage>;
  done: boolean;
  request: RunRequestView;
}

export interface StartRun {
  workflowId: string;
  workflowDir: string;
  mode: ReplayMode;
  /** Values of plain params. */
  params: Record<string, string>;
  /** Values of sensitive params: passed as MIME_PARAM_<NAME> in the replay's environment. */
  secrets: Record<string, string>;
  /** Put the app in its recorded starting state first (the workflow's setup): replay's `fresh`. */
  fresh: boolean;
}

/** The app's window (the setup's query in words) when the replay said it was gone as the run failed. */
function windowGoneOf(messages: readonly RunMessage[]): string | null {
  for (const message of messages) {
    if (message.kind === 'event' && message.event.type === 'app_window_gone') return message.event.window;
  }
  return null;
}

export class RunManager {
  readonly #runs = new Map<string, StudioRun>();
  /**
   * What each run was asked, secrets included, so Re-run needs nothing typed again: kept in this
   * process's memory only, for this studio's runs.
   */
  readonly #requests = new Map<string, StartRun>();
  #running: { run: StudioRun; abort: AbortController; pause: PauseControl } | null = null;
  /** Told of each run as it starts (pages that show its workflow follow it). */
  readonly #onStart = new Set<(run: StudioRun) => void>();
  #closed: () => void = () => undefined;
  /** Resolves once the studio closes: the streams of runs as they start then end. */
  readonly closed = new Promise<void>((resolve) => {
    this.#closed = resolve;
  });
  /**
   * What the studio last asked of the running replay (true: pause), until the replay says it did: its
   * next `paused` or `resumed` event says who asked. Null: the studio asked nothing since.
   */
  #studioAsked: boolean | null = null;

  get(id: string): StudioRun | undefined {
    return this.#runs.get(id);
  }

  /** The run of `workflowId` going on now, if any. */
  running(workflowId: string): StudioRun | null {
    const run = this.#running?.run;
    return run?.workflowId === workflowId ? run : null;
  }

  /** Calls `listener` with each run that starts from now on; returns how to stop. */
  onStart(listener: (run: StudioRun) => void): () => void {
    this.#onStart.add(listener);
    return () => this.#onStart.delete(listener);
  }

  /** Starts run `id` again, with the same values, mode and fresh start (unless `changes` says otherwise). */
  rerun(id: string, changes: { fresh?: boolean } = {}): Promise<StudioRun> {
    const request = this.#requests.get(id);
    if (!request)
      throw new RunRefusedError(`no run ${id} in this studio to run again: start one from the Run form`);
    return this.start({ ...request, ...changes });
  }

  /**
   * Starts a replay; resolves once it started (its events then stream). Its workflow is read once and
   * its params checked here, each resolved once: a required param left empty is refused naming it,
   * before anything runs (no recorded example fills in), and the run resolves none again.
   */
  async start(request: StartRun): Promise<StudioRun> {
    const { checkParams, PauseControl, replay, secretEnvName } = await import('@mime-desktop/replay');
    const loaded = await loadWorkflow(request.workflowDir);
    const checkedParams = checkParams(loaded.workflow, request.params);
    if (this.#running) {
      throw new RunRefusedError(
        `a run of ${this.#running.run.workflowId} is going on: stop it or wait for it (there is one screen)`,
      );
    }
    const run: StudioRun = {
      id: randomUUID(),
      workflowId: request.workflowId,
      dir: null,
      messages: new MessageLog(),
      done: false,
      request: {
        mode: request.mode,
        fresh: request.fresh,
        params: request.params,
        secrets: Object.keys(request.secrets),
      },
    };
    const abort = new AbortController();
    const pause = new PauseControl();
    this.#runs.set(run.id, run);
    this.#requests.set(run.id, request);
    this.#running = { run, abort, pause };
    this.#studioAsked = null;
    const secretsEnv = Object.fromEntries(
      Object.entries(request.secrets).map(([name, value]) => [secretEnvName(name), value]),
    );
    const env = { ...process.env, ...secretsEnv };
    const end = async (message: Omit<Extract<RunMessage, { kind: 'end' }>, 'cause' | 'crops'>) => {
      // Loaded by the replay already (for its report.html) by the time a run ends.
      const { runCause } = await import('@mime-desktop/report');
      const { messages } = run.messages;
      const cause = runCause(message, lastDivergence(messages), { windowGone: windowGoneOf(messages) });
      const crops = await cropSizes(message.dir, cause?.divergence ?? null);
      run.done = true;
      this.#running = null;
      run.messages.push({ ...message, cause, crops });
    };
    replay(loaded, {
      mode: request.mode,
      checkedParams,
      env,
      fresh: request.fresh,
      signal: abort.signal,
      holder: 'mime studio',
      pause,
      onEvent: (event) => {
        if (event.type === 'run_start') run.dir = event.dir;
        if (event.type === 'paused' || event.type === 'resumed') {
          const by = this.#studioAsked === (event.type === 'paused') ? 'studio' : 'hotkey';
          this.#studioAsked = null;
          run.messages.push({ kind: 'event', event, by });
        } else run.messages.push({ kind: 'event', event });
      },
    }).then(
      ({ summary, dir }) =>
        end({ kind: 'end', outcome: summary.outcome, code: summary.code, reason: summary.reason, dir }),
      (error: unknown) =>
        end({
          kind: 'end',
          outcome: 'failed',
          code: error instanceof MimeError ? error.code : 'MIME_INTERNAL',
          reason: error instanceof Error ? error.message : String(error),
          dir: run.dir,
        }),
    );
    for (const listener of this.#onStart) listener(run);
    return run;
  }

  /** Pauses the running replay before its next action, or resumes it, as the pause hotkey does. */
  pause(id: string, paused: boolean): boolean {
    if (this.#running?.run.id !== id) return false;
    this.#studioAsked = paused;
    if (paused) this.#running.pause.pause();
    else this.#running.pause.resume();
    return true;
  }

  /** Stops the running replay (outcome aborted), as the fail-safe does. */
  stop(id: string): boolean {
    if (this.#running?.run.id !== id) return false;
    this.#running.abort.abort('stopped from the studio');
    return true;
  }

  /** Stops the running replay, if any, and waits for it to end. */
  async close(): Promise<void> {
    this.#closed();
    const running = this.#running;
    if (!running) return;
    running.abort.abort('the studio is closing');
    await new Promise<void>((resolve) => running.run.messages.listen((m) => m.kind === 'end' && resolve()));
  }
}

/** The sizes of a divergence's two crops in run folder `dir`, by path; those not read are left out. */
async function cropSizes(
  dir: string | null,
  divergence: RunDivergence | null,
): Promise<Record<string, Size>> {
  if (!dir || !divergence) return {};
  const sizes: Record<string, Size> = {};
  for (const path of [divergence.expected, divergence.observed]) {
    const size = await frameSize(dir, path);
    if (size) sizes[path] = size;
  }
  return sizes;
}
