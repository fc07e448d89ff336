export { withoutCarets } from './caret.ts';
export { type CompareOptions, greyStats, similarity } from './compare.ts';
export {
  EDGE_STEP,
  edgeBounds,
  edgeImage,
  edgeShare,
  edgeSimilarity,
  FEATURELESS_EDGES,
  isFeatureless,
} from './edges.ts';
export { VisionProcessError } from './errors.ts';
export { type FindOptions, findTemplate, type TemplateMatch } from './find.ts';
export {
  type Box,
  clampBox,
  crop,
  decodeImage,
  encodeForOcr,
  encodeImage,
  pixelWords,
  type RgbaImage,
  rgbaFromPixels,
} from './image.ts';
export {
  type ChangedRegionOptions,
  changedCellsIn,
  changedRegion,
  type LayoutOptions,
  type LayoutProgress,
  type LayoutTransform,
  layoutProgress,
  layoutProgressAt,
  layoutSimilarity,
  type ProgressOptions,
} from './layout.ts';
export {
  findPhrase,
  foldOcr,
  lineShows,
  normalizeText,
  OcrEngine,
  type OcrWord,
  ocrEngineVersion,
  ocrLines,
  unionBox,
  wordsLeftOf,
  wordsRightOf,
} from './ocr.ts';
export { loadOpenCv, type OpenCv } from './opencv.ts';
export { useVisionProcess, VisionProcess, type VisionProcessOptions } from './vision-process.ts';
