/**
 * Reflects started from the studio: a recording of the home made into its workflow, in this process,
 * through `@mime-desktop/reflect` (loaded at the first reflect), one at a time. The model is the one
 * mime is configured with (flags aside: `mime.config.json`, `MIME_*`); with none, or when asked, the
 * workflow is made from the recording alone, as `mime reflect --no-model` does.
 */
import { randomUUID } from 'node:crypto';
import type { ModelConfig } from '@mime-desktop/model';
import type { ReflectEvent } from '@mime-desktop/reflect';
import { isMimeError } from '@mime-desktop/schema';
import { MessageLog } from './message-log.ts';
import { RunRefusedError } from './run-manager.ts';

/** An event of a reflect as the page gets it, or its end. */
export type ReflectMessage =
  | { kind: 'event'; event: ReflectEvent }
  | { kind: 'note'; text: string }
  | {
      kind: 'end';
      outcome: 'success' | 'failed';
      code: string | null;
      reason: string | null;
      /** The workflow made, by its folder's name. */
      workflowId: string | null;
    };

export interface StudioReflect {
  id: string;
  recordingId: string;
  messages: MessageLog<ReflectMessage>;
  done: boolean;
}

export class ReflectManager {
  readonly #jobs = new Map<string, StudioReflect>();
  #running: { job: StudioReflect; abort: AbortController } | null = null;

  get(id: string): StudioReflect | undefined {
    return this.#jobs.get(id);
  }

  /** Starts reflecting the recording in `dir` (named `recordingId`); resolves once it started. */
  async start(recordingId: string, dir: string, options: { withModel: boolean }): Promise<StudioReflect> {
    if (this.#running) {
      throw new RunRefusedError(`${this.#running.job.recordingId} is being reflected: wait for it`);
    }
    const job: StudioReflect = { id: randomUUID(), recordingId, messages: new MessageLog(), done: false };
    // A model configured wrongly (a bad config file) is said before anything starts.
    const model = options.withModel ? await configuredModel(job) : null;
    const { reflect } = await import('@mime-desktop/reflect');
    const abort = new AbortController();
    this.#jobs.set(job.id, job);
    this.#running = { job, abort };
    const end = (message: Extract<ReflectMessage, { kind: 'end' }>) => {
      job.done = true;
      this.#running = null;
      job.messages.push(message);
    };
    reflect(dir, {
      model,
      signal: abort.signal,
      onEvent: (event) => job.messages.push({ kind: 'event', event }),
    }).then(
      (result) =>
        end({
          kind: 'end',
          outcome: 'success',
          code: null,
          reason: null,
          workflowId: result.sessionId,
        }),
      (error: unknown) =>
        end({
          kind: 'end',
          outcome: 'failed',
          code: isMimeError(error) ? error.code : 'MIME_INTERNAL',
          reason: error instanceof Error ? error.message : String(error),
          workflowId: null,
        }),
    );
    return job;
  }

  /** Stops the running reflect, if any (its checkpoints stay: a later reflect resumes), and waits for it. */
  async close(): Promise<void> {
    const running = this.#running;
    if (!running) return;
    running.abort.abort('the studio is closing');
    await new Promise<void>((resolve) => running.job.messages.listen((m) => m.kind === 'end' && resolve()));
  }
}

/** The configured model, or null (said on the job) when none is configured. */
async function configuredModel(job: StudioReflect): Promise<ModelConfig | null> {
  const { resolveModelConfig } = await import('@mime-desktop/model');
  try {
    return await resolveModelConfig();
  } catch (error) {
    if (!isMimeError(error) || error.code !== 'MIME_MODEL_NOT_CONFIGURED') throw error;
    job.messages.push({
      kind: 'note',
      text: 'No model is configured: the workflow is made from the recording alone (reflect again with a model to improve it).',
    });
    return null;
  }
}
