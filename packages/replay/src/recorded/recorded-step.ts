import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { LogicalPoint } from '@mime-desktop/os-io';
import {
  type ActionManifestEvent,
  actionOfEvent,
  FileReadError,
  formatStep,
  readManifest,
  readPngInside,
  type WorkflowStep,
} from '@mime-desktop/schema';
import { type Box, decodeImage, type RgbaImage } from '@mime-desktop/vision';
import type { ResolvedAction } from '../actions/computer-action.ts';
import { TraceUnavailableError } from '../errors.ts';

/** A workflow step with the event it was reflected from. */
export interface RecordedStep {
  step: WorkflowStep;
  event: ActionManifestEvent;
  /** The recorded PRE frame, decoded on first use. */
  pre(): Promise<RgbaImage>;
  /** The recorded PRE frame's PNG bytes, as saved. */
  prePng(): Promise<Buffer>;
  /** The frame recorded right after the action (the next event's PRE frame), or null at the end of the recording. */
  post(): Promise<RgbaImage | null>;
}

/** The workflow's copy of the recording: its action events and every frame, by manifest line index. */
export interface Recording {
  events: ReadonlyMap<number, ActionManifestEvent>;
  /** The PRE frame of each line, the end marker's included. */
  frames: ReadonlyMap<number, string>;
}

/** Reads the workflow's copy of the recording; steps are matched to events by `source.event_index`. */
export async function loadRecording(workflowDir: string): Promise<Recording> {
  const lines = await readManifest(join(workflowDir, 'manifest.jsonl')).catch((error: unknown) => {
    throw new TraceUnavailableError(
      `${join(workflowDir, 'manifest.jsonl')} cannot be read (${(error as Error).message}); trace and auto replay need a workflow made by \`mime reflect\`, or the agent mode`,
    );
  });
  const events = new Map<number, ActionManifestEvent>();
  const frames = new Map<number, string>();
  for (const [index, { event }] of lines.entries()) {
    if (event.action_type !== null) events.set(index, event);
    if (event.screenshot) frames.set(index, event.screenshot);
  }
  return { events, frames };
}

/**
 * Before a trace or auto run: every frame the recording names is a PNG inside the workflow folder, of
 * a size mime reads (a hostile workflow is refused before the desktop is touched). Nothing to check
 * without a recording (auto hands such a workflow to the agent).
 */
export async function checkRecording(workflowDir: string): Promise<void> {
  const file = join(workflowDir, 'manifest.jsonl');
  if (!existsSync(file)) return;
  for (const { line, event } of await readManifest(file)) {
    if (event.screenshot) await readPngInside(workflowDir, event.screenshot, `manifest.jsonl line ${line}`);
  }
}

/** Decoded frames kept (4 MB each at 1280x800): a step's, the next one's and its subtask's first. */
const DECODED_FRAMES_KEPT = 8;

/**
 * Decodes a recorded frame once while it is among the last few asked for; only PNGs inside the
 * workflow folder.
 */
function frameLoader(workflowDir: string): (name: string) => Promise<RgbaImage> {
  const decoded = new Map<string, Promise<RgbaImage>>();
  return (name) => {
    let image = decoded.get(name);
    if (image) {
      decoded.delete(name);
    } else {
      image = readPngInside(workflowDir, name, 'recorded frame').then(async (png) => {
        try {
          return await decodeImage(png);
        } catch (error) {
          throw new FileReadError(join(workflowDir, name), `a damaged PNG (${(error as Error).message})`, {
            cause: error,
          });
        }
      });
    }
    decoded.set(name, image);
    for (const oldest of decoded.keys()) {
      if (decoded.size <= DECODED_FRAMES_KEPT) break;
      decoded.delete(oldest);
    }
    return image;
  };
}

/** The recorded steps of a workflow and its frames, each PNG decoded once. */
export interface RecordedSteps {
  /** A step with its recorded event and frames, or why the recording does not carry it. */
  of(step: WorkflowStep): RecordedStep | TraceUnavailableError;
  /** A recorded frame by its path in the workflow folder. */
  frame(name: string): Promise<RgbaImage>;
}

export function recordedSteps(workflowDir: string, recording: Recording): RecordedSteps {
  const frame = frameLoader(workflowDir);
  const of = (step: WorkflowStep): RecordedStep | TraceUnavailableError => {
    const source = step.source;
    const event = source ? recording.events.get(source.event_index) : undefined;
    if (!source || !event) {
      return new TraceUnavailableError(
        source
          ? `${formatStep(step.i)}: event ${source.event_index} is not in the workflow's manifest.jsonl; reflect the recording again`
          : `${formatStep(step.i)} has no recorded source (a hand-written step?); replay it in the auto or agent mode`,
      );
    }
    const after = recording.frames.get(source.event_index + 1);
    return {
      step,
      event,
      pre: () => frame(source.screenshot),
      prePng: () => readPngInside(workflowDir, source.screenshot, `${formatStep(step.i)} PRE frame`),
      post: async () => (after === undefined ? null : frame(after)),
    };
  };
  return { of, frame };
}

/** A box around a point, clamped to the screen. */
export function boxAround(point: LogicalPoint, width: number, height: number): Box {
  return { x: Math.round(point.x - width / 2), y: Math.round(point.y - height / 2), width, height };
}

/**
 * The recorded action as an action to execute, with its points moved by `map` (identity in trace
 * mode, the re-found target in auto mode). Typed text is the step's rendered value (params
 * substituted, secrets still `{name}`), or `text` where it is given (see unset-value.ts); other
 * values are the recorded ones.
 */
export function recordedAction(
  recorded: RecordedStep,
  map: (point: LogicalPoint) => LogicalPoint = (p) => p,
  text: string | null = recorded.step.action_value,
): ResolvedAction | null {
  return actionOfEvent(recorded.event, { map, text });
}
