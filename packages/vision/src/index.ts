export { type CompareOptions, similarity } from './compare.ts';
export { type FindOptions, findTemplate, type TemplateMatch } from './find.ts';
export {
  type Box,
  clampBox,
  crop,
  decodeImage,
  encodeImage,
  type RgbaImage,
  rgbaFromPixels,
} from './image.ts';
export {
  closeOcr,
  findPhrase,
  type OcrWord,
  readLine,
  readWords,
  unionBox,
  wordsLeftOf,
  wordsRightOf,
} from './ocr.ts';
export { loadOpenCv, type OpenCv } from './opencv.ts';
