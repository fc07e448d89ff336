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

/** Words of a crop (with a margin), in the frame's pixels; those OCR is less sure of than `minConfidence` dropped. */
export async function readCrop(
  ocr: OcrEngine,
  image: RgbaImage,
  box: Box,
  minConfidence = 50,
): Promise<OcrWord[]> {
  const area = clampBox(
    {
      x: box.x - OCR_MARGIN,
      y: box.y - OCR_MARGIN,
      width: box.width + 2 * OCR_MARGIN,
      height: box.height + 2 * OCR_MARGIN,
    },
    image,
  );
  if (area.width < 4 || area.height < 4) return [];
  const words = await ocr.readWords(await encodeForOcr(crop(image, area)), { minConfidence });
  return words.map((w) => ({ ...w, box: { ...w.box, x: area.x + w.box.x, y: area.y + w.box.y } }));
}
