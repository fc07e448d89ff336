import { join, resolve } from 'node:path';
import { RUN_FILES, typedRunEvent, writeFileAtomically } from '@mime-desktop/schema';
import { buildTimeline } from './build-timeline.ts';
import { embedImages } from './embed-images.ts';
import { ReportOptionError } from './errors.ts';
import { type RunArtifacts, readRun } from './read-run.ts';
import { renderDocument } from './render-document.ts';
import { summarizeRun } from './summarize-run.ts';

export interface ReportOptions {
  /** Screenshots wider than this are scaled down (pixels, at least 64). Default 1280. */
  maxImageWidth?: number;
  /**
   * Refuse a run whose events break the run contract (`MIME_INVALID_FILE` listing every problem)
   * instead of showing them raw. Default false: a damaged or older run still gets a report.
   */
  strict?: boolean;
}

export const DEFAULT_MAX_IMAGE_WIDTH = 1280;

/** Every image the report shows: turn and step screenshots, divergence crops, replan screens (`replan_<n>.png`). */
function imageNames(run: RunArtifacts): string[] {
  const names = [...run.files].filter((name) => /^replan_\d+\.png$/.test(name));
  for (const raw of run.events) {
    const event = typedRunEvent(raw);
    if (event?.type === 'capture') names.push(event.data.screenshot);
    if (event?.type === 'step' && event.data.screenshot) names.push(event.data.screenshot);
    if (event?.type === 'divergence') names.push(event.data.expected, event.data.observed);
  }
  return names;
}

/**
 * The report of a run as one self-contained HTML page (images inlined, no network). Throws
 * `MIME_NOT_A_RUN` for a folder that is not a run, and the file errors of @mime-desktop/schema for damaged files.
 */
export async function renderReport(runDir: string, options: ReportOptions = {}): Promise<string> {
  const maxWidth = options.maxImageWidth ?? DEFAULT_MAX_IMAGE_WIDTH;
  if (!Number.isInteger(maxWidth) || maxWidth < 64) {
    throw new ReportOptionError(`maxImageWidth must be a whole number of pixels >= 64, got ${maxWidth}`);
  }
  const run = await readRun(resolve(runDir), { strict: options.strict ?? false });
  const images = await embedImages(run.dir, imageNames(run), run.files, maxWidth);
  return renderDocument({
    run,
    overview: summarizeRun(run),
    blocks: buildTimeline(run.events, run.summary),
    images,
  });
}

/** Writes `<runDir>/report.html` (atomically, mode 0600: it shows the screen) and returns its path. */
export async function writeReport(runDir: string, options: ReportOptions = {}): Promise<string> {
  const page = await renderReport(runDir, options);
  const file = join(resolve(runDir), RUN_FILES.report);
  await writeFileAtomically(file, page);
  return file;
}
