import type { CoordinateConvention } from '@mime-desktop/model';
import { frameToRgb, type RawFrame } from '@mime-desktop/os-io';
import sharp from 'sharp';
import { withDefaults } from '../kernel/with-defaults.ts';
import { fitWithin, type ImageSize, processorSize } from './coordinates.ts';

/** How the screenshot sent to the model is made. */
export interface ModelImageOptions {
  /** Largest width of the image sent, px; larger screens are scaled down keeping their aspect. Default 1280. */
  maxWidth?: number;
  /** Largest height of the image sent, px. Default 800. */
  maxHeight?: number;
  /** PNG zlib level 0-9 (1 is several times faster than 6 for a few % more bytes). Default 1. */
  compressionLevel?: number;
}

export const DEFAULT_MODEL_IMAGE: Readonly<Required<ModelImageOptions>> = {
  maxWidth: 1280,
  maxHeight: 800,
  compressionLevel: 1,
};

/** The PNG the model sees, and its size in pixels. */
export interface ModelImage {
  png: Buffer;
  size: ImageSize;
}

/**
 * Encodes the whole screen as a PNG scaled down to fit the maximum size (see {@link ModelImageOptions});
 * for a model that answers in pixels, at the size its image processor would resize that to (see
 * {@link processorSize}), so its points mean the pixels it saw.
 */
export async function encodeModelImage(
  frame: RawFrame,
  options: ModelImageOptions = {},
  convention: CoordinateConvention = 'grid1000',
): Promise<ModelImage> {
  const { maxWidth, maxHeight, compressionLevel } = withDefaults(DEFAULT_MODEL_IMAGE, options);
  const { width, height } = frame.physical;
  const fitted = fitWithin({ width, height }, { width: maxWidth, height: maxHeight });
  const size = convention === 'pixels' ? processorSize(fitted) : fitted;
  let image = sharp(frameToRgb(frame), { raw: { width, height, channels: 3 } });
  if (size.width !== width || size.height !== height)
    image = image.resize(size.width, size.height, { fit: 'fill' });
  const png = await image.png({ compressionLevel, adaptiveFiltering: false }).toBuffer();
  return { png, size };
}
