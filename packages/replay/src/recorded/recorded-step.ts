import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { LogicalPoint, RawFrame } from '@mime-desktop/os-io';
import { encodePng } from '@mime-desktop/os-io';
import { type ActionManifestEvent, readManifest, type WorkflowStep } from '@mime-desktop/schema';
import { type Box, decodeImage, type RgbaImage, rgbaFromPixels } from '@mime-desktop/vision';
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
}

/** Reads the workflow's copy of the recording; steps are matched to events by `source.event_index`. */
export async function loadRecordedEvents(workflowDir: string): Promise<Map<number, ActionManifestEvent>> {
  const lines = await readManifest(join(workflowDir, 'manifest.jsonl')).catch((error: unknown) => {
    throw new TraceUnavailableError(
      `${join(workflowDir, 'manifest.jsonl')} cannot be read (${(error as Error).message}); trace and auto replay need a workflow made by \`mime reflect\`, or use --mode agent`,
    );
  });
  const events = new Map<number, ActionManifestEvent>();
  for (const [index, { event }] of lines.entries()) if (event.action_type !== null) events.set(index, event);
  return events;
}

/** The step's recorded event and PRE frame; throws when the workflow does not carry them. */
export function recordedStep(
  workflowDir: string,
  step: WorkflowStep,
  events: ReadonlyMap<number, ActionManifestEvent>,
): RecordedStep {
  const source = step.source;
  const event = source ? events.get(source.event_index) : undefined;
  if (!source || !event) {
    throw new TraceUnavailableError(
      source
        ? `step ${step.i}: event ${source.event_index} is not in the workflow's manifest.jsonl; reflect the recording again`
        : `step ${step.i} has no recorded source (a hand-written step?); replay it with --mode auto or agent`,
    );
  }
  let decoded: Promise<RgbaImage> | undefined;
  const file = join(workflowDir, source.screenshot);
  return { step, event, pre: () => (decoded ??= decodeImage(file)), prePng: () => readFile(file) };
}

/** A live frame as RGBA at logical size, the space of the recorded frames. */
export async function liveImage(frame: RawFrame): Promise<RgbaImage> {
  const { physical, logical } = frame;
  if (physical.width === logical.width && physical.height === logical.height) {
    return rgbaFromPixels(frame.data, physical.width, physical.height, {
      channelOrder: frame.channelOrder,
      stride: frame.stride,
    });
  }
  return decodeImage(await encodePng(frame));
}

/** A box around a point, clamped to the screen. */
export function boxAround(point: LogicalPoint, width: number, height: number): Box {
  return { x: Math.round(point.x - width / 2), y: Math.round(point.y - height / 2), width, height };
}

/**
 * The recorded action as an action to execute, with its points moved by `map` (identity in trace
 * mode, the re-found target in auto mode). Typed text is the step's rendered value (params
 * substituted, secrets still `{name}`); other values are the recorded ones.
 */
export function recordedAction(
  recorded: RecordedStep,
  map: (point: LogicalPoint) => LogicalPoint = (p) => p,
): ResolvedAction | null {
  const { event, step } = recorded;
  switch (event.action_type) {
    case 'click':
    case 'double_click':
    case 'right_click':
    case 'middle_click': {
      const actions = {
        click: 'left_click',
        double_click: 'double_click',
        right_click: 'right_click',
        middle_click: 'middle_click',
      } as const;
      const { x, y } = event.action_details;
      return { action: actions[event.action_type], point: map({ x, y }) };
    }
    case 'drag': {
      const d = event.action_details;
      return {
        action: 'left_click_drag',
        point: map({ x: d.x, y: d.y }),
        endPoint: map({ x: d.to_x, y: d.to_y }),
      };
    }
    case 'scroll': {
      const d = event.action_details;
      const vertical = d.dy !== 0;
      const amount = Math.abs(vertical ? d.dy : d.dx);
      const direction = vertical ? (d.dy > 0 ? 'down' : 'up') : d.dx > 0 ? 'right' : 'left';
      return { action: 'scroll', direction, amount, point: map({ x: d.x, y: d.y }) };
    }
    case 'type':
      return { action: 'type', text: step.action_value ?? event.action_details.text };
    case 'key':
      return { action: 'key', keys: event.action_details.key };
    case 'extract':
      return null;
  }
}
