import { describe, expect, it } from 'vitest';
import {
  fitWithin,
  gridToLogical,
  logicalToGrid,
  modelPointToLogical,
  processorSize,
} from '../src/agent/coordinates.ts';

describe('gridToLogical', () => {
  it('maps the 0..1000 grid onto logical pixels, edges included', () => {
    const screen = { width: 1280, height: 800 };
    expect(gridToLogical({ x: 0, y: 0 }, screen)).toEqual({ x: 0, y: 0 });
    expect(gridToLogical({ x: 500, y: 500 }, screen)).toEqual({ x: 640, y: 400 });
    expect(gridToLogical({ x: 1000, y: 1000 }, screen)).toEqual({ x: 1279, y: 799 });
    expect(gridToLogical({ x: 999.9, y: 0.4 }, screen)).toEqual({ x: 1279, y: 0 });
  });

  it('does not depend on the size of the image the model saw (downscaled 1080p, HiDPI)', () => {
    // A 1920x1080 screen sent as 1280x720: the grid covers the whole image, so the whole screen.
    expect(gridToLogical({ x: 250, y: 750 }, { width: 1920, height: 1080 })).toEqual({ x: 480, y: 810 });
    // A Retina screen: 2880x1800 physical, 1440x900 logical; input uses logical pixels.
    expect(gridToLogical({ x: 500, y: 500 }, { width: 1440, height: 900 })).toEqual({ x: 720, y: 450 });
  });

  it('round-trips every logical pixel center through the grid within one grid unit', () => {
    for (const screen of [
      { width: 1280, height: 800 },
      { width: 1920, height: 1080 },
      { width: 800, height: 600 },
    ]) {
      const pixelsPerUnit = screen.width / 1000;
      for (let x = 0; x < screen.width; x += 7) {
        const back = gridToLogical(logicalToGrid({ x, y: 0 }, screen), screen);
        expect(Math.abs(back.x - x)).toBeLessThanOrEqual(Math.ceil(pixelsPerUnit));
      }
    }
  });

  it('on a screen smaller than the grid, every pixel center maps back to itself', () => {
    const screen = { width: 800, height: 600 };
    for (let x = 0; x < 800; x += 1) {
      expect(gridToLogical(logicalToGrid({ x, y: 0 }, screen), screen).x).toBe(x);
    }
  });
});

describe('fitWithin', () => {
  it('scales down keeping the aspect, never up', () => {
    const max = { width: 1280, height: 800 };
    expect(fitWithin({ width: 1920, height: 1080 }, max)).toEqual({ width: 1280, height: 720 });
    expect(fitWithin({ width: 2880, height: 1800 }, max)).toEqual({ width: 1280, height: 800 });
    expect(fitWithin({ width: 1280, height: 800 }, max)).toEqual({ width: 1280, height: 800 });
    expect(fitWithin({ width: 1024, height: 768 }, max)).toEqual({ width: 1024, height: 768 });
    expect(fitWithin({ width: 1080, height: 1920 }, max)).toEqual({ width: 450, height: 800 });
  });
});

describe('processorSize (Qwen2.5-VL and UI-TARS-1.5 pixel coordinates)', () => {
  it('rounds each side to a multiple of 28, as the image processor does', () => {
    expect(processorSize({ width: 1280, height: 800 })).toEqual({ width: 1288, height: 812 });
    expect(processorSize({ width: 1280, height: 720 })).toEqual({ width: 1288, height: 728 });
    expect(processorSize({ width: 1024, height: 768 })).toEqual({ width: 1036, height: 756 });
    // Far past the processor's largest area: scaled down inside it; tiny: scaled up.
    const huge = processorSize({ width: 8000, height: 6000 });
    expect(huge.width * huge.height).toBeLessThanOrEqual(16384 * 28 * 28);
    expect([huge.width % 28, huge.height % 28]).toEqual([0, 0]);
    expect(processorSize({ width: 30, height: 20 })).toEqual({ width: 84, height: 56 });
  });

  it('accepts points up to the resized bounds and maps them to the screen', () => {
    const space = {
      convention: 'pixels' as const,
      image: processorSize({ width: 1280, height: 800 }),
      screen: { width: 1280, height: 800 },
    };
    expect(modelPointToLogical([1288, 812], space)).toEqual({ ok: true, point: { x: 1279, y: 799 } });
    expect(modelPointToLogical([644, 406], space)).toEqual({ ok: true, point: { x: 640, y: 400 } });
    expect(modelPointToLogical([1289, 10], space)).toMatchObject({ ok: false });
  });
});
