/**
 * What a workflow's replays compute from its recorded frames, done before its first replay (`mime
 * reflect` calls this once it wrote schema.json) and kept in its `.cache/`: the OCR its checks read
 * (prepare-checks.ts) and the report's encodings of the recorded frames it shows beside a run's.
 */
import { keepRecordedImages } from '@mime-desktop/report';
import type { OcrEngine } from '@mime-desktop/vision';
import { prepareRecordedChecks } from '../recorded/prepare-checks.ts';

/**
 * Prepares the recorded checks and report images of `workflowDir`; resolves how many subtasks and
 * extracts (`checks`) and frames (`images`) were prepared. Throws only for a workflow that cannot be
 * loaded.
 */
export async function prepareRecorded(
  workflowDir: string,
  ocr: OcrEngine,
): Promise<{ checks: number; images: number }> {
  const { prepared, shownFrames } = await prepareRecordedChecks(workflowDir, ocr);
  return { checks: prepared, images: await keepRecordedImages(workflowDir, shownFrames) };
}
