/**
 * What replay's checks need from a workflow's recorded frames, read before its first replay (`mime
 * reflect` calls this once it wrote schema.json): where each subtask's end frame shows the params'
 * examples (the outcome check) and where each extract's example stands. The crops are read through
 * the workflow's OCR cache (recorded-ocr.ts), so a replay, its first included, takes them from there.
 */
import { type LoadedWorkflow, loadWorkflow } from '@mime-desktop/schema';
import type { OcrEngine } from '@mime-desktop/vision';
import { TraceUnavailableError } from '../errors.ts';
import { readExample } from './extract-reading.ts';
import { RecordedFrames } from './recorded-frames.ts';
import { RecordedOcr } from './recorded-ocr.ts';
import { findExamples, type ShownValue } from './shown-values.ts';

/**
 * Reads the recorded crops the outcome and extract checks of `workflowDir` read, into its cache;
 * returns how many subtasks and extracts were prepared, and the recorded frames a run's report shows.
 * Nothing to do without a recording. Throws only for a workflow that cannot be loaded; a crop that
 * cannot be kept is read again at replay.
 */
export async function prepareRecordedChecks(
  workflowDir: string,
  ocr: OcrEngine,
  loaded?: LoadedWorkflow,
): Promise<{ prepared: number; shownFrames: string[] }> {
  const { workflow } = loaded ?? (await loadWorkflow(workflowDir));
  const frames = new RecordedFrames();
  try {
    await frames.load(workflowDir);
  } catch (error) {
    if (error instanceof TraceUnavailableError) return { prepared: 0, shownFrames: [] };
    throw error;
  }
  const read = new RecordedOcr(workflowDir, ocr).readCrop;
  // As a run's checks see them: a param that is not sensitive and has an example.
  const values: ShownValue[] = [
    ...workflow.task_params.flatMap((p) =>
      !p.sensitive && p.example?.trim() ? [{ name: p.name, example: p.example, value: p.example }] : [],
    ),
    ...frames.extractExamples(workflow).map((e) => ({ ...e, value: e.example, extracted: true })),
  ];
  let prepared = 0;
  for (const subtask of workflow.plan.subtasks) {
    const around = values.length > 0 ? await frames.aroundSubtask(subtask) : null;
    const region = around && frames.change(around.before, around.after);
    if (around && region) {
      await findExamples(read, around.before, around.after, region, values);
      prepared += 1;
    }
    for (const step of subtask.steps) {
      const recorded = frames.of(step);
      if (recorded instanceof TraceUnavailableError || recorded.event.action_type !== 'extract') continue;
      const [pre, before] = await Promise.all([recorded.pre(), frames.before(step)]);
      await readExample(
        read,
        pre,
        recorded.event.action_details.values,
        before ? frames.change(before, pre) : null,
      );
      prepared += 1;
    }
  }
  return { prepared, shownFrames: frames.shownFrames(workflow) };
}
