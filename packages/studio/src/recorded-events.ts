/**
 * The recorded events a workflow's steps leave out (its folder keeps its copy of the recording), and
 * the step each makes as reflect without a model would write it: the "Add a step" form offers them,
 * each with its frame, and the one chosen is added with its source, so trace replays it.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { buildSteps, describeStep, modelFreeStep } from '@mime-desktop/reflect';
import {
  listSteps,
  MimeError,
  RecordingMetadata,
  readJsonFile,
  readManifest,
  type Workflow,
  type WorkflowStep,
} from '@mime-desktop/schema';

/** The workflow folder keeps no recording (a workflow written by hand, or imported without one). */
export class NoRecordingError extends MimeError {
  constructor(id: string) {
    super(
      'MIME_NO_RECORDING',
      `workflow "${id}" keeps no recording (no manifest.jsonl in its folder): add a step by its words instead`,
    );
  }
}

/** A recorded event no step uses, as the form offers it. */
export interface UnusedEvent {
  /** Its index in manifest.jsonl: what the edit names. */
  event_index: number;
  /** What it did: `click at (120, 40)`, `type "hello"`, `secret typing`. */
  did: string;
  /** Its PRE frame, relative to the workflow folder. */
  screenshot: string;
  /** The step it would add. */
  step: WorkflowStep;
}

/** Every step the recording in `dir` makes, by event index; throws {@link NoRecordingError} without one. */
export async function recordedSteps(dir: string, id: string): Promise<Map<number, UnusedEvent>> {
  const manifest = join(dir, 'manifest.jsonl');
  if (!existsSync(manifest)) throw new NoRecordingError(id);
  const metadata = RecordingMetadata.safeParse(
    await readJsonFile(join(dir, 'metadata.json')).catch(() => null),
  );
  const screen = (metadata.success && metadata.data.screen) || undefined;
  const steps = buildSteps(await readManifest(manifest), screen);
  return new Map(
    steps.map((s) => [
      s.source.event_index,
      { event_index: s.source.event_index, did: describeStep(s), screenshot: s.pre, step: modelFreeStep(s) },
    ]),
  );
}

/** The recorded events none of the workflow's steps replays, in recording order. */
export function unusedEvents(workflow: Workflow, recorded: ReadonlyMap<number, UnusedEvent>): UnusedEvent[] {
  const used = new Set(
    listSteps(workflow).flatMap(({ step }) => (step.source ? [step.source.event_index] : [])),
  );
  return [...recorded.values()].filter((e) => !used.has(e.event_index));
}
