import type { RawFrame } from '@mime-desktop/os-io';
import { PNG } from 'pngjs';
import { describe, expect, it } from 'vitest';
import { encodeModelImage } from '../src/agent/model-image.ts';

function frame(physical: { width: number; height: number }, scale = 1): RawFrame {
  const data = Buffer.alloc(physical.width * physical.height * 4);
  // BGRA: blue on the left half, red on the right half.
  for (let i = 0; i < data.length; i += 4) {
    const x = (i / 4) % physical.width;
    data[i] = x < physical.width / 2 ? 255 : 0;
    data[i + 2] = x < physical.width / 2 ? 0 : 255;
    data[i + 3] = 255;
  }
  return {
    data,
    channelOrder: 'bgra',
    stride: physical.width * 4,
    physical,
    logical: { width: physical.width / scale, height: physical.height / scale },
    scale,
    time: 0,
  };
}

describe('encodeModelImage', () => {
  it('scales the whole screen down to fit, keeping the aspect, as an RGB PNG', async () => {
    const image = await encodeModelImage(frame({ width: 1920, height: 1080 }));
    expect(image.size).toEqual({ width: 1280, height: 720 });
    const png = PNG.sync.read(image.png);
    expect([png.width, png.height]).toEqual([1280, 720]);
    expect([...png.data.subarray(0, 3)]).toEqual([0, 0, 255]);
    const right = (png.width - 1) * 4;
    expect([...png.data.subarray(right, right + 3)]).toEqual([255, 0, 0]);
  });

  it("sends a pixel-answering model the image at its processor's size", async () => {
    const image = await encodeModelImage(frame({ width: 1280, height: 800 }), {}, 'pixels');
    expect(image.size).toEqual({ width: 1288, height: 812 });
    const png = PNG.sync.read(image.png);
    expect([png.width, png.height]).toEqual([1288, 812]);
  });

  it('fits a HiDPI screen and a custom maximum; never scales up', async () => {
    expect((await encodeModelImage(frame({ width: 2880, height: 1800 }, 2))).size).toEqual({
      width: 1280,
      height: 800,
    });
    expect(
      (await encodeModelImage(frame({ width: 1280, height: 800 }), { maxWidth: 640, maxHeight: 640 })).size,
    ).toEqual({
      width: 640,
      height: 400,
    });
    expect((await encodeModelImage(frame({ width: 800, height: 600 }))).size).toEqual({
      width: 800,
      height: 600,
    });
  });
});
