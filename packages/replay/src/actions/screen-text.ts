/**
 * A live frame as the checks read it: RGBA at logical size (the space of the recorded frames), and
 * the words on it by OCR.
 */
import { encodePng, type RawFrame } from '@mime-desktop/os-io';
import {
  type Box,
  clampBox,
  crop,
  decodeImage,
  encodeForOcr,
  type OcrEngine,
  type OcrWord,
  type RgbaImage,
  rgbaFromPixels,
} from '@mime-desktop/vision';

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

/** Room around a crop read by OCR, px: tesseract misreads text that touches the crop's edge. */
const OCR_MARGIN = 8;
/** Words OCR is less sure of than this (0-100) are not read. */
export const OCR_MIN_CONFIDENCE = 50;

/**
 * Reads the words of a crop of an image, in the image's pixels; those OCR is less sure of than
 * `minConfidence` (default OCR_MIN_CONFIDENCE) dropped.
 */
export type CropReader = (image: RgbaImage, box: Box, minConfidence?: number) => Promise<OcrWord[]>;

/** The area of `image` OCR reads for a crop at `box`: with a margin, on the image; null when too small to read. */
export function ocrArea(image: RgbaImage, box: Box): Box | null {
  const area = clampBox(
    {
      x: box.x - OCR_MARGIN,
      y: box.y - OCR_MARGIN,
      width: box.width + 2 * OCR_MARGIN,
      height: box.height + 2 * OCR_MARGIN,
    },
    image,
  );
  return area.width < 4 || area.height < 4 ? null : area;
}

/** Words read on a crop, moved from the crop's pixels to those of the image it was cut from at `area`. */
export function placeWords(words: readonly OcrWord[], area: Box): OcrWord[] {
  return words.map((w) => ({ ...w, box: { ...w.box, x: area.x + w.box.x, y: area.y + w.box.y } }));
}

/** Words of a crop (with a margin), in the frame's pixels; those OCR is less sure of than `minConfidence` dropped. */
export async function readCrop(
  ocr: OcrEngine,
  image: RgbaImage,
  box: Box,
  minConfidence = OCR_MIN_CONFIDENCE,
): Promise<OcrWord[]> {
  const area = ocrArea(image, box);
  if (!area) return [];
  const words = await ocr.readWords(await encodeForOcr(crop(image, area)), { minConfidence });
  return placeWords(words, area);
}
