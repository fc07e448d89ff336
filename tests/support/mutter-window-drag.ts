/**
 * Puts an app's window where a recording had it on headless mutter, which lets no program place
 * windows: as a person would, by dragging its title bar (drawn by the app itself on GNOME) so that a band
 * of its content shows at its recorded place, found by its recorded look. For trace replays, which act
 * only where the recording did.
 */
import type { Desktop } from '@mime-desktop/os-io';
import {
  type Box,
  crop,
  decodeImage,
  findTemplate,
  type RgbaImage,
  rgbaFromPixels,
} from '@mime-desktop/vision';
import type { MutterHarness } from './mutter-harness.ts';
import { waitUntil } from './wait.ts';

/** Where `band` (a box of the recorded frame) is on the live screen now, or null when not found strongly. */
async function findBand(desktop: Desktop, recorded: RgbaImage, band: Box) {
  const frame = await desktop.captureFrame();
  const live = rgbaFromPixels(frame.data, frame.physical.width, frame.physical.height, {
    channelOrder: frame.channelOrder,
    stride: frame.stride,
  });
  const match = await findTemplate(live, crop(recorded, band), { scales: [1] });
  return match && match.score >= 0.95 ? { x: match.box.x, y: match.box.y } : null;
}

/**
 * Drags the window whose content shows `band` of the recorded frame (PNG at `recordedFrame`) so that
 * band is at its recorded place; the title bar is grabbed `titleBarAbove` px above the band's top.
 */
export async function dragToRecordedPlace(
  harness: MutterHarness,
  recordedFrame: string,
  band: Box,
  titleBarAbove = 12,
): Promise<void> {
  const recorded = await decodeImage(recordedFrame);
  const desktop = await harness.openDesktop();
  try {
    const now = await waitUntil(() => findBand(desktop, recorded, band), {
      timeoutMs: 10_000,
      what: 'the recorded band on the screen',
    });
    const grab = { x: now.x + Math.round(band.width / 2), y: now.y - titleBarAbove };
    const to = { x: band.x + Math.round(band.width / 2), y: band.y - titleBarAbove };
    await desktop.drag(grab, to);
    const placed = async () => {
      const at = await findBand(desktop, recorded, band);
      return at && at.x === band.x && at.y === band.y ? at : null;
    };
    await waitUntil(placed, {
      timeoutMs: 10_000,
      what: `the window's band at its recorded place ${band.x},${band.y}`,
    });
    // Dropped, not still held: a window mutter still drags follows the pointer away from its title
    // bar (the replay's first move onto its target would carry the window off its place).
    await desktop.movePointer({ x: to.x, y: Math.min(to.y + 200, desktop.screen.logical.height - 1) });
    const where = await findBand(desktop, recorded, band);
    if (!where || where.x !== band.x || where.y !== band.y) {
      throw new Error(
        `the window's band left its recorded place ${band.x},${band.y} as the pointer moved away after the drag (now ${where ? `${where.x},${where.y}` : 'not found'}): mutter did not end the drag`,
      );
    }
  } finally {
    await desktop.close();
  }
}

/** Where `band` of the recorded frame (PNG at `recordedFrame`) shows on the screen now, in words. */
export async function bandPlace(harness: MutterHarness, recordedFrame: string, band: Box): Promise<string> {
  const desktop = await harness.openDesktop();
  try {
    const at = await findBand(desktop, await decodeImage(recordedFrame), band);
    return at
      ? `the window's band at ${at.x},${at.y} (recorded at ${band.x},${band.y})`
      : "the window's band not found";
  } finally {
    await desktop.close();
  }
}
