/**
 * A live frame as the checks read it: RGBA at logical size (the space of the recorded frames), and
 * the words on it by OCR.
 */
import { encodePng, type RawFrame } from '@mime-desktop/os-io';
import {
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

/** The words OCR reads with confidence on a whole frame, in logical pixels. */
export async function readScreenWords(ocr: OcrEngine, frame: RawFrame): Promise<OcrWord[]> {
  return ocr.readWords(await encodeForOcr(await liveImage(frame)), { minConfidence: 50 });
}
