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
    await waitUntil(
      async () => {
        const at = await findBand(desktop, recorded, band);
        return at && at.x === band.x && at.y === band.y ? at : null;
      },
      { timeoutMs: 10_000, what: `the window's band at its recorded place ${band.x},${band.y}` },
    );
  } finally {
    await desktop.close();
  }
}
