/** The workflow's recorded elements with their looks, for measuring where their windows are now (window-placer.ts). */
import type { Workflow } from '@mime-desktop/schema';
import { crop } from '@mime-desktop/vision';
import { TraceUnavailableError } from '../errors.ts';
import type { RecordedFrames } from './recorded-frames.ts';
import type { Anchor } from './window-placer.ts';

/**
 * Each step's recorded element that had a place on the recorded screen, with that place cut from the
 * frame before its step; an element recorded by several steps once (its first look).
 */
export async function recordedAnchors(workflow: Workflow, frames: RecordedFrames): Promise<Anchor[]> {
  const anchors: Anchor[] = [];
  const seen = new Set<string>();
  for (const step of workflow.plan.subtasks.flatMap((s) => s.steps)) {
    const element = step.target.element;
    const box = element?.extents;
    if (!element || !box || box.width < 4 || box.height < 4) continue;
    const key = JSON.stringify([element.app, element.window, element.role, element.name, element.label, box]);
    const recorded = frames.of(step);
    if (seen.has(key) || recorded instanceof TraceUnavailableError) continue;
    const pre = await recorded.pre().catch(() => null);
    if (!pre || box.x < 0 || box.y < 0 || box.x + box.width > pre.width || box.y + box.height > pre.height)
      continue;
    seen.add(key);
    anchors.push({ element, look: crop(pre, box), frame: pre });
  }
  return anchors;
}
