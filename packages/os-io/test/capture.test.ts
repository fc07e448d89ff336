import {
  type Box,
  centerOf,
  DEMO_LAYOUT,
  type DesktopHarness,
} from '@mime-desktop/test-support/desktop-harness';
import { useDesktop } from '@mime-desktop/test-support/e2e-rig';
import { sleep, waitUntil } from '@mime-desktop/test-support/wait';
import sharp from 'sharp';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  createDesktop,
  type Desktop,
  encodePng,
  epochNow,
  FrameRing,
  type HookEvent,
  type RawFrame,
  startHooks,
} from '../src/index.ts';

let harness: DesktopHarness;
let desktop: Desktop;

// The display stays until this process exits: Xlib in the native modules loaded here ends the
// process when its X server goes first.
const desktopHarness = useDesktop({ keepDisplayUntilExit: true });

beforeAll(async () => {
  harness = desktopHarness();
  process.env.DISPLAY = harness.display; // before the first desktop call loads nut-js
  desktop = await createDesktop();
});

afterAll(async () => {
  await desktop?.close();
});

beforeEach(async () => {
  await harness.resetApp();
});

/** [r, g, b, a] at a logical point of a raw frame, whatever its channel order. */
function pixelAt(frame: RawFrame, x: number, y: number): number[] {
  const i = Math.round(y * frame.scale) * frame.stride + Math.round(x * frame.scale) * 4;
  const [c0, g, c2, a] = [...frame.data.subarray(i, i + 4)];
  return frame.channelOrder === 'bgra'
    ? [c2 ?? -1, g ?? -1, c0 ?? -1, a ?? -1]
    : [c0 ?? -1, g ?? -1, c2 ?? -1, a ?? -1];
}

const colorAtCenter = (frame: RawFrame, box: Box) => pixelAt(frame, centerOf(box).x, centerOf(box).y);

describe('captureFrame', () => {
  it('grabs the screen with its sizes, scale and channel order', async () => {
    const frame = await desktop.captureFrame();
    expect(frame.physical).toEqual({ width: 1280, height: 800 });
    expect(frame.logical).toEqual({ width: 1280, height: 800 });
    expect(frame.scale).toBe(1);
    expect(frame.channelOrder).toBe('bgra');
    expect(frame.stride).toBeGreaterThanOrEqual(1280 * 4);
    expect(frame.data.length).toBeGreaterThanOrEqual(frame.stride * 800);
    expect(desktop.screen).toEqual({ logical: frame.logical, physical: frame.physical, scale: 1 });
    // On epochNow's clock (not performance.now() alone, which starts at 0 with the process): a
    // minute's margin for a busy machine, as this is not a speed figure.
    expect(Math.abs(frame.time - epochNow())).toBeLessThan(60_000);
  });

  it('forces every pixel opaque', async () => {
    const frame = await desktop.captureFrame();
    let transparent = 0;
    for (let i = 3; i < frame.data.length; i += 4) if (frame.data[i] !== 255) transparent += 1;
    expect(transparent).toBe(0);
  });

  it('shows the app: known colours where the app paints them', async () => {
    const frame = await desktop.captureFrame();
    expect(colorAtCenter(frame, DEMO_LAYOUT.swatchRed)).toEqual([255, 0, 0, 255]);
    expect(colorAtCenter(frame, DEMO_LAYOUT.swatchGreen)).toEqual([0, 255, 0, 255]);
    expect(colorAtCenter(frame, DEMO_LAYOUT.swatchBlue)).toEqual([0, 0, 255, 255]);
    expect(pixelAt(frame, 20, 32)).toEqual([0, 0, 0, 255]); // header
    expect(pixelAt(frame, 660, 780)).toEqual([255, 255, 255, 255]); // page
  });
});

describe('encodePng', () => {
  it('encodes an RGB PNG at logical size with the same colours', async () => {
    const frame = await desktop.captureFrame();
    const png = await encodePng(frame);
    expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
    const { data, info } = await sharp(png).raw().toBuffer({ resolveWithObject: true });
    expect(info).toMatchObject({ width: 1280, height: 800, channels: 3 });
    const at = (box: Box) => {
      const { x, y } = centerOf(box);
      const i = (y * info.width + x) * 3;
      return [...data.subarray(i, i + 3)];
    };
    expect(at(DEMO_LAYOUT.swatchRed)).toEqual([255, 0, 0]);
    expect(at(DEMO_LAYOUT.swatchGreen)).toEqual([0, 255, 0]);
    expect(at(DEMO_LAYOUT.swatchBlue)).toEqual([0, 0, 255]);
  });

  it('compresses harder at level 6 than at level 1', async () => {
    const frame = await desktop.captureFrame();
    const fast = await encodePng(frame, { compressionLevel: 1 });
    const small = await encodePng(frame, { compressionLevel: 6 });
    expect(small.length).toBeLessThanOrEqual(fast.length);
  });
});

describe('FrameRing', () => {
  it('keeps the newest frames, in order, up to its capacity', async () => {
    // Its captures start at 20 a second at most (how long each takes varies with the load).
    const starts: number[] = [];
    const ring = new FrameRing(
      () => {
        starts.push(performance.now());
        return desktop.captureFrame();
      },
      { fps: 20, capacity: 4 },
    );
    const started = performance.now();
    ring.start();
    // Full, then a fifth frame in: the oldest is dropped (however fast this machine captures now).
    const first = await waitUntil(() => ring.frames().length === 4 && ring.frames()[0]?.time, {
      what: 'four frames in the ring',
    });
    await waitUntil(() => (ring.frames()[0]?.time ?? first) > first, { what: 'a fifth frame in the ring' });
    await ring.stop();
    const frames = ring.frames();
    expect(frames).toHaveLength(4);
    for (let i = 1; i < frames.length; i += 1) {
      expect(frames[i]?.time).toBeGreaterThan(frames[i - 1]?.time ?? 0);
    }
    expect(starts.length).toBeGreaterThanOrEqual(5);
    // A fixed rate from the start: the k-th capture never starts before k × 50 ms (less a timer's
    // millisecond); a late one is followed by a shorter gap, never by a burst.
    for (const [k, at] of starts.entries()) expect(at - started).toBeGreaterThanOrEqual(k * 50 - 2);
    const count = ring.frames().length;
    const newest = ring.latest()?.time;
    await sleep(200);
    expect(ring.frames()).toHaveLength(count);
    expect(ring.latest()?.time).toBe(newest);
    expect(ring.running).toBe(false);
    expect(ring.failures).toBe(0);
  });

  it('gives the frame before a click, which never shows the click’s effect', async () => {
    const pad = DEMO_LAYOUT.clickPad;
    const spot = { x: pad.x + 20, y: pad.y + 20 }; // a corner of the pad, clear of its label
    const ring = desktop.createFrameRing(); // defaults: 10 fps, 10 frames
    const presses: HookEvent[] = [];
    const hooks = await startHooks((event) => {
      if (event.type === 'mousedown') presses.push(event);
    });
    try {
      ring.start();
      await waitUntil(() => ring.latest(), { what: 'a frame in the ring' });
      await desktop.click(centerOf(pad));
      await harness.waitForAppState((s) => s.pad === 'left');
      const press = await waitUntil(() => presses.at(-1), { what: 'the press seen by the hooks' });
      const time = press.time;
      // The ring captures the change: its newest frame shows the pad switched on.
      const after = await waitUntil(
        () => {
          const frame = ring.latest();
          return frame && pixelAt(frame, spot.x, spot.y)[0] === 0 ? frame : undefined;
        },
        { what: 'a frame with the pad switched on' },
      );
      // The hooks' times are on the frames' epoch clock (a minute's margin: not a speed figure).
      expect(Math.abs(time - epochNow())).toBeLessThan(60_000);

      const before = ring.frameBefore(time);
      expect(before).toBeDefined();
      expect(before?.time).toBeLessThan(time);
      expect(pixelAt(before as RawFrame, spot.x, spot.y)).toEqual([255, 255, 255, 255]); // pad still off

      expect(after.time).toBeGreaterThan(time);
      expect(pixelAt(after, spot.x, spot.y)).toEqual([0, 0, 0, 255]); // pad switched on
      expect(ring.frameBefore(ring.frames()[0]?.time ?? 0)).toBeUndefined();
    } finally {
      await hooks.stop();
      await ring.stop();
    }
  });
});
