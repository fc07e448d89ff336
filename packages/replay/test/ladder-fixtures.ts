/** Fixtures of the ladder's tests: a frame moved, an element of the demo page, a snapshot of its tree. */
import type { Accessibility } from '@mime-desktop/os-io';
import type { AccessibleElement } from '@mime-desktop/schema';
import { decodeImage, type RgbaImage } from '@mime-desktop/vision';
import sharp from 'sharp';

/** The image with its content moved by (dx, dy) on a white ground, same size. */
export async function moved(image: RgbaImage, dx: number, dy: number): Promise<RgbaImage> {
  const raw = { raw: { width: image.width, height: image.height, channels: 4 as const } };
  const extended = await sharp(image.data, raw)
    .extend({ left: dx, top: dy, background: '#ffffff' })
    .png()
    .toBuffer();
  return decodeImage(
    await sharp(extended)
      .extract({ left: 0, top: 0, width: image.width, height: image.height })
      .png()
      .toBuffer(),
  );
}

export const element = (extents: AccessibleElement['extents'], name = 'Song name'): AccessibleElement => ({
  role: 'entry',
  name,
  label: null,
  app: 'Chromium',
  window: { role: 'frame', name: 'mime-demo' },
  path: [{ role: 'entry', name, index: 1 }],
  states: ['showing'],
  extents,
});

/** An accessibility snapshot: `find` answers with these elements, `focused` with that one. */
export function snapshot(
  found: AccessibleElement[],
  focused: AccessibleElement | null = null,
): Accessibility {
  return {
    elementAt: async () => found[0] ?? null,
    lineAt: async () => null,
    focused: async () => focused,
    wake: async () => undefined,
    find: async () => found,
    apps: async () => ['Chromium'],
    close: async () => undefined,
  };
}
