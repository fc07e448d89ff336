/**
 * Replays started from the studio: one at a time (there is one screen), in this process, through
 * `@mime-desktop/replay` (loaded at the first run). Each run's events (redacted by the replay: a
 * sensitive value is `{name}` in every one) are kept for the page and streamed to it as they come.
 * Sensitive values reach the replay through its environment only, never a file or an event.
 */
import { randomUUID } from 'node:crypto';
import type { PauseControl, ReplayEvent } from '@mime-desktop/replay';
import { MimeError, type ReplayMode } from '@mime-desktop/schema';
import { MessageLog } from './message-log.ts';

/** A run cannot start: another one is running, or what was asked is not a run. */
export class RunRefusedError extends MimeError {
  constructor(message: string) {
    super('MIME_RUN_REFUSED', message);
  }
}

/** An event of a run, as the page gets it: the replay's event, or the end with its summary. */
export type RunMessage =
  | { kind: 'event'; event: ReplayEvent }
  | { kind: 'end'; outcome: string; code: string | null; reason: string | null; dir: string | null };

export interface StudioRun {
  id: string;
  workflowId: string;
  /** The run folder, once the replay made it. */
  dir: string | null;
  messages: MessageLog<RunMessage>;
  done: boolean;
}

export interface StartRun {
  workflowId: string;
  workflowDir: string;
  mode: ReplayMode;
  /** Values of plain params. */
  params: Record<string, string>;
  /** Values of sensitive params: passed as MIME_PARAM_<NAME> in the replay's environment. */
  secrets: Record<string, string>;
}

export class RunManager {
  readonly #runs = new Map<string, StudioRun>();
  #running: { run: StudioRun; abort: AbortController; pause: PauseControl } | null = null;

  get(id: string): StudioRun | undefined {
    return this.#runs.get(id);
  }

  /** Starts a replay; resolves once it started (its events then stream). */
  async start(request: StartRun): Promise<StudioRun> {
    if (this.#running) {
      throw new RunRefusedError(
        `a run of ${this.#running.run.workflowId} is going on: stop it or wait for it (there is one screen)`,
      );
    }
    const { PauseControl, replay, secretEnvName } = await import('@mime-desktop/replay');
    const run: StudioRun = {
      id: randomUUID(),
      workflowId: request.workflowId,
      dir: null,
      messages: new MessageLog(),
      done: false,
    };
    const abort = new AbortController();
    const pause = new PauseControl();
    this.#runs.set(run.id, run);
    this.#running = { run, abort, pause };
    const secretsEnv = Object.fromEntries(
      Object.entries(request.secrets).map(([name, value]) => [secretEnvName(name), value]),
    );
    const end = (message: Extract<RunMessage, { kind: 'end' }>) => {
      run.done = true;
      this.#running = null;
      run.messages.push(message);
    };
    replay(request.workflowDir, {
      mode: request.mode,
      params: request.params,
      env: { ...process.env, ...secretsEnv },
      signal: abort.signal,
      holder: 'mime studio',
      pause,
      onEvent: (event) => {
        if (event.type === 'run_start') run.dir = event.dir;
        run.messages.push({ kind: 'event', event });
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
    return run;
  }

  /** Pauses the running replay before its next action, or resumes it, as the pause hotkey does. */
  pause(id: string, paused: boolean): boolean {
    if (this.#running?.run.id !== id) return false;
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
    const running = this.#running;
    if (!running) return;
    running.abort.abort('the studio is closing');
    await new Promise<void>((resolve) => running.run.messages.listen((m) => m.kind === 'end' && resolve()));
  }
}
