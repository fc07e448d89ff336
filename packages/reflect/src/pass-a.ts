import { type ModelClient, ModelOutputError } from '@mime-desktop/model';
import { formatStep, type RecordingMetadata, readPngInside, StepCard } from '@mime-desktop/schema';
import pLimit from 'p-limit';
import { markedPath } from './assets.ts';
import { ReflectStepError } from './errors.ts';
import { passAMessages, SECRET_MARK } from './prompts.ts';
import type { StepCardStore } from './step-cards.ts';
import { describeStep, type ReflectStep } from './steps.ts';

export interface PassAOptions {
  metadata: RecordingMetadata;
  steps: readonly ReflectStep[];
  /** Cards already made (from the checkpoint); only the other steps are sent. */
  done: ReadonlyMap<number, StepCard>;
  workflowDir: string;
  client: ModelClient;
  store: StepCardStore;
  /** Calls at once. */
  concurrency: number;
  signal?: AbortSignal;
  onCard: (card: StepCard) => void;
}

/**
 * The recorded action is ground truth: the card keeps the model's descriptions and takes its number,
 * action type and (literal, unparametrized) value from the recording.
 */
function groundCard(step: ReflectStep, card: StepCard): StepCard {
  return {
    ...card,
    i: step.i,
    action_type: step.actionType,
    action_value: step.secret ? SECRET_MARK : step.recordedValue,
  };
}

async function makeCard(options: PassAOptions, step: ReflectStep): Promise<StepCard> {
  const pre = step.source.point ? markedPath(step.pre) : step.pre;
  const [preImage, postImage] = await Promise.all([
    readPngInside(options.workflowDir, pre, `${formatStep(step.i)} PRE frame`),
    readPngInside(options.workflowDir, step.post, `${formatStep(step.i)} POST frame`),
  ]);
  const messages = passAMessages(options.metadata, step, options.steps.length, {
    pre: preImage,
    post: postImage,
  });
  const { value } = await options.client.structured({
    name: 'step_card',
    schema: StepCard,
    messages,
    signal: options.signal,
  });
  return groundCard(step, value);
}

/**
 * Pass A: one vision call per step not yet carded, `concurrency` at a time. Each card is saved to the
 * checkpoint as soon as it is made; when a step fails, the calls in flight still finish and are
 * saved before the first failure is thrown, so a rerun repeats nothing that succeeded.
 */
export async function runPassA(options: PassAOptions): Promise<Map<number, StepCard>> {
  const cards = new Map(options.done);
  const limit = pLimit(options.concurrency);
  let failed = false;
  const todo = options.steps.filter((step) => !cards.has(step.i));
  const results = await Promise.allSettled(
    todo.map((step) =>
      limit(async () => {
        if (failed || options.signal?.aborted) return;
        try {
          const card = await makeCard(options, step);
          await options.store.save(card);
          cards.set(step.i, card);
          options.onCard(card);
        } catch (error) {
          failed = true;
          // Output that never validated is this step's problem; transport and config errors are not.
          if (!(error instanceof ModelOutputError)) throw error;
          throw new ReflectStepError(step.i, `${describeStep(step)}, manifest line ${step.line}`, error);
        }
      }),
    ),
  );
  const failure = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failure) throw failure.reason;
  return cards;
}
