import { basename, dirname, join, resolve } from 'node:path';
import { listSteps, RUN_FILES, RUNS_FOLDER, typedRunEvent, writeFileAtomically } from '@mime-desktop/schema';
import { buildTimeline } from './build-timeline.ts';
import { ReportImages } from './embed-images.ts';
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

/**
 * Every image of the run folder the report shows: turn, step and outcome screenshots, divergence
 * crops and frames, replan screens (`replan_<n>.png`) and the final screen. Names only, never paths.
 */
function runImageNames(run: RunArtifacts): string[] {
  const names = [...run.files].filter(
    (name) => /^replan_\d+\.png$/.test(name) || name === RUN_FILES.finalFrame,
  );
  for (const raw of run.events) {
    const event = typedRunEvent(raw);
    if (event?.type === 'capture') names.push(event.data.screenshot);
    if (event?.type === 'step' && event.data.screenshot) names.push(event.data.screenshot);
    if (event?.type === 'verify' && event.data.screenshot) names.push(event.data.screenshot);
    if (event?.type === 'divergence') {
      const { expected, observed, recorded_frame, live_frame } = event.data;
      names.push(expected, observed, ...[recorded_frame, live_frame].filter((n) => n !== undefined));
    }
  }
  return names.filter((name) => run.files.has(name) && !/[\\/]/.test(name));
}

/** The recorded frame of each reference step, by step index, from the rendered workflow. */
function recordedFrames(run: RunArtifacts): Map<number, string> {
  const steps = run.workflow ? listSteps(run.workflow) : [];
  return new Map(steps.flatMap(({ step }) => (step.source ? [[step.i, step.source.screenshot]] : [])));
}

/** The frames of the recording the report shows beside the replayed ones (paths in the workflow folder). */
function recordedImageNames(run: RunArtifacts, byStep: ReadonlyMap<number, string>): string[] {
  const names = [...byStep.values()];
  for (const raw of run.events) {
    const event = typedRunEvent(raw);
    if (event?.type === 'verify' && event.data.recorded_frame) names.push(event.data.recorded_frame);
  }
  return names;
}

/** The workflow folder a run folder (`<workflow>/.replay/<run_id>`) belongs to, or null. */
function workflowOf(runDir: string): string | null {
  const runs = dirname(runDir);
  return basename(runs) === RUNS_FOLDER ? dirname(runs) : null;
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
  const byStep = recordedFrames(run);
  const workflowDir = workflowOf(run.dir);
  const embedder = new ReportImages(maxWidth, workflowDir);
  const [images, recorded] = await Promise.all([
    embedder.embed(run.dir, runImageNames(run)),
    workflowDir ? embedder.embed(workflowDir, recordedImageNames(run, byStep), { keep: true }) : new Map(),
  ]);
  const overview = summarizeRun(run);
  const { outcome } = overview;
  const open = outcome === 'running' || outcome === 'interrupted' ? outcome : 'unfinished';
  return renderDocument({
    run,
    overview,
    blocks: buildTimeline(run.events, run.summary, open),
    images,
    recorded,
    recordedFrames: byStep,
  });
}

/** Writes `<runDir>/report.html` (atomically, mode 0600: it shows the screen) and returns its path. */
export async function writeReport(runDir: string, options: ReportOptions = {}): Promise<string> {
  const page = await renderReport(runDir, options);
  const file = join(resolve(runDir), RUN_FILES.report);
  await writeFileAtomically(file, page);
  return file;
}

/**
 * Encodes the recorded frames `names` of `workflowDir` (paths inside it) as a report of its runs
 * embeds them, into its `.cache/report/`, so its first report takes them from there (`mime reflect`
 * does this once it wrote the workflow); resolves how many pictures its cache holds then. A frame that
 * cannot be read or kept is left to the report.
 */
export async function keepRecordedImages(
  workflowDir: string,
  names: Iterable<string>,
  maxWidth = DEFAULT_MAX_IMAGE_WIDTH,
): Promise<number> {
  const dir = resolve(workflowDir);
  const images = new ReportImages(maxWidth, dir);
  await images.embed(dir, names, { keep: true });
  // Frames of the same bytes are one picture, kept once.
  return images.keptCount();
}
