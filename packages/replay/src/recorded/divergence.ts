/**
 * The evidence of a failed check: the recorded and live crops of the region compared and the whole
 * frames they come from, saved in the run folder, a `divergence` event, and the error that names them.
 */
import { clampBox, crop, encodeImage, type RgbaImage } from '@mime-desktop/vision';
import { ReplayDivergenceError } from '../errors.ts';
import type { EventLog } from '../kernel/event-log.ts';
import type { At } from '../kernel/run-memory.ts';
import type { Failure } from './checks.ts';
import { mapBox } from './layout-map.ts';

/** Saves the crops of a failed check, reports the divergence and returns its error (not thrown). */
export async function recordDivergence(
  log: EventLog,
  failure: Failure,
  turn: At,
  live: RgbaImage,
  options: { regroundable: boolean; notAtStart: boolean },
): Promise<ReplayDivergenceError> {
  const area = failure.region ?? {
    x: 0,
    y: 0,
    width: failure.expected.width,
    height: failure.expected.height,
  };
  const [expectedPng, observedPng, recordedPng, livePng] = await Promise.all([
    encodeImage(crop(failure.expected, clampBox(area, failure.expected))),
    encodeImage(crop(live, clampBox(mapBox(failure.layout, area), live))),
    encodeImage(failure.expected),
    encodeImage(live),
  ]);
  const tag = failure.step_i === null ? `subtask_${turn.subtask_i}` : `step_${failure.step_i}`;
  const expected = log.saveImage(`divergence_${tag}_expected.png`, expectedPng);
  const observed = log.saveImage(`divergence_${tag}_observed.png`, observedPng);
  const recordedFrame = log.saveImage(`divergence_${tag}_recorded.png`, recordedPng);
  const liveFrame = log.saveImage(`divergence_${tag}_live.png`, livePng);
  log.emit({
    type: 'divergence',
    ...turn,
    step_i: failure.step_i,
    check: failure.check,
    expected,
    observed,
    similarity: failure.similarity,
    threshold: failure.threshold,
    region: failure.region,
    ...(failure.read ? { read: failure.read, reason: failure.reason } : {}),
    recorded_frame: recordedFrame,
    live_frame: liveFrame,
  });
  return new ReplayDivergenceError({
    step: failure.step_i,
    description: failure.description,
    subtask: turn.subtask_i,
    check: failure.check,
    reason: failure.reason,
    similarity: failure.similarity,
    threshold: failure.threshold,
    crops: [expected, observed],
    regroundable: options.regroundable && failure.regroundable,
    notAtStart: options.notAtStart,
  });
}
