import { EDGE_STEP } from './edges.ts';
import { type Box, crop, type RgbaImage } from './image.ts';
import { loadOpenCv, type OpenCv } from './opencv.ts';
import { digestOf, Remembered } from './remembered.ts';
import { activeVisionProcess, type VisionProcess } from './vision-process.ts';

export interface FindOptions {
  /** Template sizes tried, relative to its recorded size. Default [1, 0.9, 1.1, 0.8, 1.25, 0.67, 1.5]. */
  scales?: readonly number[];
  /** The search runs on images shrunk by this factor, then is refined at full size. Default 0.5. */
  downscale?: number;
  /** Search only here (screen pixels). Default: the whole screen. */
  within?: Box;
  /**
   * What is correlated: grey levels (default), or edges (see edgeImage), blurred a little so a
   * resized edge still overlaps: these match across a dark theme, where grey levels are inverted.
   */
  features?: 'grey' | 'edges';
}

export interface TemplateMatch {
  /** Where the template was found, screen pixels. */
  box: Box;
  /** Normalized correlation of the best place, -1..1 (1: identical). */
  score: number;
  /** Size of the match relative to the template. */
  scale: number;
  /** Score of the best place elsewhere (not overlapping the match), in the coarse search. */
  runnerUp: number;
  /**
   * Lead of the match over `runnerUp`, both scored at the same size in the coarse search (the refined
   * `score` is not comparable with the coarse runner-up): near 0 means another place looks the same.
   */
  margin: number;
  /** Standard deviation of the template's grey levels: a near-flat template (< 8) cannot be matched reliably. */
  contrast: number;
}

const DEFAULT_SCALES = [1, 0.9, 1.1, 0.8, 1.25, 0.67, 1.5] as const;

/**
 * Converts RGBA pixels to a grey Mat (or, `colour`, an RGB one, whose edges are taken per channel),
 * shrunk by `factor`; the caller deletes it.
 */
function greyMat(cv: OpenCv, image: RgbaImage, factor: number, colour = false) {
  const rgba = cv.matFromArray(image.height, image.width, cv.CV_8UC4, image.data);
  const grey = new cv.Mat();
  cv.cvtColor(rgba, grey, colour ? cv.COLOR_RGBA2RGB : cv.COLOR_RGBA2GRAY);
  rgba.delete();
  if (factor === 1) return grey;
  const small = new cv.Mat();
  cv.resize(
    grey,
    small,
    new cv.Size(
      Math.max(1, Math.round(image.width * factor)),
      Math.max(1, Math.round(image.height * factor)),
    ),
    0,
    0,
    cv.INTER_AREA,
  );
  grey.delete();
  return small;
}

/**
 * An RGB Mat's edges, as the search correlates them: white where a colour channel steps by more than
 * EDGE_STEP within a pixel (a 3x3 morphological gradient per channel, the largest kept: see
 * edgeImage), blurred a little so an edge a pixel off still overlaps. Computed after resizing, so
 * edges are as thick at every size; the caller deletes it.
 */
function edgesOf(cv: OpenCv, rgb: InstanceType<OpenCv['Mat']>) {
  const kernel = cv.Mat.ones(3, 3, cv.CV_8U);
  const perChannel = new cv.Mat();
  cv.morphologyEx(rgb, perChannel, cv.MORPH_GRADIENT, kernel);
  kernel.delete();
  const channels = new cv.MatVector();
  cv.split(perChannel, channels);
  perChannel.delete();
  const gradient = new cv.Mat();
  for (let c = 0; c < channels.size(); c += 1) {
    const channel = channels.get(c);
    if (c === 0) channel.copyTo(gradient);
    else cv.max(gradient, channel, gradient);
    channel.delete();
  }
  channels.delete();
  const binary = new cv.Mat();
  cv.threshold(gradient, binary, EDGE_STEP, 255, cv.THRESH_BINARY);
  gradient.delete();
  const blurred = new cv.Mat();
  cv.GaussianBlur(binary, blurred, new cv.Size(5, 5), 0);
  binary.delete();
  return blurred;
}

/** Best and runner-up of a correlation map; the runner-up excludes a window around the best. */
function peaks(cv: OpenCv, result: InstanceType<OpenCv['Mat']>, exclude: { width: number; height: number }) {
  const none = new cv.Mat();
  const best = cv.minMaxLoc(result, none);
  none.delete();
  const mask = new cv.Mat(result.rows, result.cols, cv.CV_8UC1, new cv.Scalar(255));
  const x0 = Math.max(0, best.maxLoc.x - exclude.width + 1);
  const y0 = Math.max(0, best.maxLoc.y - exclude.height + 1);
  const x1 = Math.min(result.cols, best.maxLoc.x + exclude.width);
  const y1 = Math.min(result.rows, best.maxLoc.y + exclude.height);
  cv.rectangle(mask, new cv.Point(x0, y0), new cv.Point(x1 - 1, y1 - 1), new cv.Scalar(0), -1);
  const second = result.rows * result.cols > (x1 - x0) * (y1 - y0) ? cv.minMaxLoc(result, mask).maxVal : -1;
  mask.delete();
  return { score: best.maxVal, at: best.maxLoc, runnerUp: second };
}

/** What a refinement reads: the search area's prepared Mat and the grey template, and how to prepare a resized one. */
interface Searching {
  cv: OpenCv;
  keep: <T extends { delete(): void }>(mat: T) => T;
  region: InstanceType<OpenCv['Mat']>;
  area: Box;
  template: InstanceType<OpenCv['Mat']>;
  prepared: (grey: InstanceType<OpenCv['Mat']>) => InstanceType<OpenCv['Mat']>;
}

/** The best place and size at full resolution in a window around the coarse match, at each of `sizes`. */
function refine(
  { cv, keep, region, area, template, prepared }: Searching,
  coarse: { x: number; y: number; score: number; scale: number },
  sizes: readonly number[],
  factor: number,
): { x: number; y: number; score: number; scale: number } {
  const cx = coarse.x + (template.cols * coarse.scale) / 2;
  const cy = coarse.y + (template.rows * coarse.scale) / 2;
  const pad = Math.ceil(2 / factor) + 2;
  let found = { x: coarse.x, y: coarse.y, score: coarse.score, scale: coarse.scale };
  let refined = false;
  for (const scale of sizes) {
    const w = Math.round(template.cols * scale);
    const h = Math.round(template.rows * scale);
    const wx = Math.max(0, Math.floor(cx - w / 2) - pad);
    const wy = Math.max(0, Math.floor(cy - h / 2) - pad);
    const ww = Math.min(area.width - wx, w + 2 * pad);
    const wh = Math.min(area.height - wy, h + 2 * pad);
    if (ww < w || wh < h) continue;
    const window = keep(region.roi(new cv.Rect(wx, wy, ww, wh)));
    const t = keep(new cv.Mat());
    cv.resize(template, t, new cv.Size(w, h), 0, 0, cv.INTER_AREA);
    const result = keep(new cv.Mat());
    cv.matchTemplate(window, prepared(t), result, cv.TM_CCOEFF_NORMED);
    const at = cv.minMaxLoc(result, keep(new cv.Mat()));
    if (!refined || at.maxVal > found.score) {
      found = { x: wx + at.maxLoc.x, y: wy + at.maxLoc.y, score: at.maxVal, scale };
      refined = true;
    }
  }
  return found;
}

/** findTemplate in the vision process: only the searched area crosses when it lies on the screen. */
async function findInProcess(
  remote: VisionProcess,
  screen: RgbaImage,
  template: RgbaImage,
  options: FindOptions,
): Promise<TemplateMatch | null> {
  const { within } = options;
  const inside =
    within &&
    within.x >= 0 &&
    within.y >= 0 &&
    within.x + within.width <= screen.width &&
    within.y + within.height <= screen.height;
  if (!within || !inside) return remote.call('findTemplate', screen, template, options);
  const found = await remote.call('findTemplate', crop(screen, within), template, {
    ...options,
    within: undefined,
  });
  return found && { ...found, box: { ...found.box, x: found.box.x + within.x, y: found.box.y + within.y } };
}

/** The searches last made, by the pixels searched and the options (see Remembered). */
const searches = new Remembered<TemplateMatch | null>(64);

/**
 * Finds a recorded target crop on a screen at several sizes with OpenCV's normalized correlation
 * (TM_CCOEFF_NORMED): a coarse search on shrunk images, then a refinement at full size around the
 * best place. Resolves null when the template is larger than the search area at every size. Runs
 * in the vision process when this process asked for one (`useVisionProcess`). The same search on
 * the same pixels is answered from memory.
 */
export function findTemplate(
  screen: RgbaImage,
  template: RgbaImage,
  options: FindOptions = {},
): Promise<TemplateMatch | null> {
  const { scales, downscale, within, features } = options;
  const key = `${digestOf(screen)};${digestOf(template)};${JSON.stringify([scales, downscale, within, features])}`;
  const found = searches.get(key, () => {
    const remote = activeVisionProcess();
    return remote ? findInProcess(remote, screen, template, options) : search(screen, template, options);
  });
  return found.then((match) => match && { ...match, box: { ...match.box } });
}

/** findTemplate in this process, with OpenCV.js. */
async function search(
  screen: RgbaImage,
  template: RgbaImage,
  options: FindOptions,
): Promise<TemplateMatch | null> {
  const { cv } = await loadOpenCv();
  const factor = options.downscale ?? 0.5;
  const area = options.within ?? { x: 0, y: 0, width: screen.width, height: screen.height };
  const mats: Array<{ delete(): void }> = [];
  const keep = <T extends { delete(): void }>(mat: T) => {
    mats.push(mat);
    return mat;
  };
  try {
    const features = options.features ?? 'grey';
    // What is correlated: grey levels, or their edges once resized (see edgesOf).
    const prepared = (grey: InstanceType<OpenCv['Mat']>) =>
      features === 'edges' ? keep(edgesOf(cv, grey)) : grey;
    const fullScreen = keep(greyMat(cv, screen, 1, features === 'edges'));
    const greyRegion = keep(fullScreen.roi(new cv.Rect(area.x, area.y, area.width, area.height)));
    const region = prepared(greyRegion);
    const greySmall = keep(new cv.Mat());
    cv.resize(
      greyRegion,
      greySmall,
      new cv.Size(
        Math.max(1, Math.round(area.width * factor)),
        Math.max(1, Math.round(area.height * factor)),
      ),
      0,
      0,
      cv.INTER_AREA,
    );
    const small = prepared(greySmall);
    const fullTemplate = keep(greyMat(cv, template, 1, features === 'edges'));
    const greyTemplate = features === 'edges' ? keep(greyMat(cv, template, 1)) : fullTemplate;
    const mean = keep(new cv.Mat());
    const std = keep(new cv.Mat());
    cv.meanStdDev(greyTemplate, mean, std);
    const contrast = std.doubleAt(0, 0);

    let best: { score: number; scale: number; x: number; y: number; runnerUp: number } | undefined;
    for (const scale of options.scales ?? DEFAULT_SCALES) {
      const width = Math.round(template.width * scale * factor);
      const height = Math.round(template.height * scale * factor);
      if (width < 4 || height < 4 || width > small.cols || height > small.rows) continue;
      const t = keep(new cv.Mat());
      cv.resize(fullTemplate, t, new cv.Size(width, height), 0, 0, cv.INTER_AREA);
      const result = keep(new cv.Mat());
      cv.matchTemplate(small, prepared(t), result, cv.TM_CCOEFF_NORMED);
      const found = peaks(cv, result, { width, height });
      if (!best || found.score > best.score) {
        best = {
          score: found.score,
          scale,
          x: found.at.x / factor,
          y: found.at.y / factor,
          runnerUp: found.runnerUp,
        };
      }
    }
    if (!best) return null;

    // Refine at full size in a window around the coarse place; on blurred edges, which forgive a
    // size a step off, at the sizes next to the coarse one too.
    const sizes =
      features === 'edges'
        ? (options.scales ?? DEFAULT_SCALES).filter((s) => Math.abs(s - best.scale) <= 0.16)
        : [best.scale];
    const found = refine({ cv, keep, region, area, template: fullTemplate, prepared }, best, sizes, factor);
    const { x, y, score } = found;
    const width = Math.round(template.width * found.scale);
    const height = Math.round(template.height * found.scale);
    return {
      box: { x: Math.round(area.x + x), y: Math.round(area.y + y), width, height },
      score: Number.isFinite(score) ? score : 0,
      scale: found.scale,
      runnerUp: Number.isFinite(best.runnerUp) ? best.runnerUp : 0,
      margin: Number.isFinite(best.runnerUp) && Number.isFinite(best.score) ? best.score - best.runnerUp : 0,
      contrast,
    };
  } finally {
    for (const mat of mats.reverse()) mat.delete();
  }
}
