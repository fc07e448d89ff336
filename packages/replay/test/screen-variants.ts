/**
 * A real recorded frame as the app would show it on a changed screen: its content scaled, moved (live
 * = recorded x scale + (dx, dy)) and, for a dark theme, with its colours inverted; the rest of the
 * screen is the ground (black, or white in the dark). Same size as the recorded frame.
 */
import { decodeImage, type RgbaImage } from '@mime-desktop/vision';
import sharp from 'sharp';

export interface ScreenChange {
  scale?: number;
  dx?: number;
  dy?: number;
  dark?: boolean;
}

export async function changedScreen(file: string, change: ScreenChange): Promise<RgbaImage> {
  const { scale = 1, dx = 0, dy = 0, dark = false } = change;
  const { width = 0, height = 0 } = await sharp(file).metadata();
  let content = sharp(file).resize(Math.round(width * scale), Math.round(height * scale));
  if (dark) content = content.negate({ alpha: false });
  const scaled = await content.png().toBuffer();
  // The part of the scaled content that lands on the screen.
  const left = Math.max(0, -dx);
  const top = Math.max(0, -dy);
  const visible = await sharp(scaled)
    .extract({
      left,
      top,
      width: Math.min(Math.round(width * scale) - left, width - Math.max(0, dx)),
      height: Math.min(Math.round(height * scale) - top, height - Math.max(0, dy)),
    })
    .png()
    .toBuffer();
  const ground = dark ? '#ffffff' : '#000000';
  const png = await sharp({ create: { width, height, channels: 3, background: ground } })
    .composite([{ input: visible, left: Math.max(0, dx), top: Math.max(0, dy) }])
    .png()
    .toBuffer();
  return decodeImage(png);
}

/** The changes a check must see through: the right outcome moved, in a dark theme, and scaled 1.25x. */
export const CHANGES: Array<{ name: string; change: ScreenChange }> = [
  { name: 'as recorded', change: {} },
  { name: 'moved by (60, 40)', change: { dx: 60, dy: 40 } },
  { name: 'in a dark theme', change: { dark: true } },
  { name: 'scaled 1.25x and moved', change: { scale: 1.25, dx: -60, dy: -60 } },
  { name: 'dark, scaled 1.25x and moved', change: { dark: true, scale: 1.25, dx: -60, dy: -60 } },
];
