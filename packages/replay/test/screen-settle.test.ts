import type { RawFrame } from '@mime-desktop/os-io';
import { sleep } from '@mime-desktop/test-support/wait';
import { describe, expect, it, vi } from 'vitest';
import { measureFrameDifference, waitForSettle } from '../src/actions/screen-settle.ts';

function frame(width: number, height: number, paint: (x: number, y: number) => number = () => 255): RawFrame {
  const data = Buffer.alloc(width * height * 4);
  for (let y = 0; y < height; y += 1) {
    for (let x = 0; x < width; x += 1) {
      const i = (y * width + x) * 4;
      data.fill(paint(x, y), i, i + 3);
      data[i + 3] = 255;
    }
  }
  return {
    data,
    channelOrder: 'bgra',
    stride: width * 4,
    physical: { width, height },
    logical: { width, height },
    scale: 1,
    time: 0,
  };
}

describe('measureFrameDifference', () => {
  it('is the fraction of sampled pixels that changed beyond the tolerance', () => {
    const white = frame(40, 40);
    expect(measureFrameDifference(white, frame(40, 40))).toBe(0);
    expect(
      measureFrameDifference(
        white,
        frame(40, 40, () => 250),
      ),
    ).toBe(0);
    expect(
      measureFrameDifference(
        white,
        frame(40, 40, (x) => (x < 20 ? 0 : 255)),
      ),
    ).toBe(0.5);
    expect(measureFrameDifference(white, frame(20, 40))).toBe(1);
  });

  it('reads unaligned buffers too', () => {
    const a = frame(8, 8);
    const shifted = Buffer.alloc(a.data.length + 1);
    a.data.copy(shifted, 1);
    const unaligned = { ...a, data: shifted.subarray(1) };
    expect(
      measureFrameDifference(
        unaligned,
        frame(8, 8, () => 0),
        { step: 1 },
      ),
    ).toBe(1);
  });
});

describe('waitForSettle', () => {
  it('returns once two captures in a row show the same screen (no stable window)', async () => {
    const frames = [
      frame(8, 8, () => 0),
      frame(8, 8, () => 100),
      frame(8, 8, () => 200),
      frame(8, 8, () => 200),
    ];
    let n = 0;
    const candidates: RawFrame[] = [];
    const settled = await waitForSettle(async () => frames[Math.min(n++, 3)] as RawFrame, {
      initialDelayMs: 0,
      intervalMs: 1,
      stableMs: 0,
      timeoutMs: 1000,
      onCandidate: (candidate) => candidates.push(candidate),
    });
    // Each frame that could be the answer was offered while the wait went on: the answer was among them.
    expect(candidates).toEqual(frames.slice(0, 3));
    expect(settled.settled).toBe(true);
    expect(settled.captures).toBe(4);
    expect(settled.frame).toBe(frames[2]);
  });

  it('waits until the screen has stayed the same for the stable window, with no fixed pause', async () => {
    // On the test's clock, so the figures are exact; how long it takes on a real clock is
    // packages/replay/bench/settle.bench.ts's figure.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    try {
      let n = 0;
      // Changes with the 3 captures after the first (at 2, 4 and 6 ms), then stays.
      const waiting = waitForSettle(
        async () => {
          const shade = Math.min(n++, 3) * 40;
          return frame(4, 4, () => shade);
        },
        { intervalMs: 2, stableMs: 30 },
      );
      await vi.advanceTimersByTimeAsync(200);
      const settled = await waiting;
      expect(settled.settled).toBe(true);
      // The stable window after the last change, and not a millisecond more: 6 + 30.
      expect(settled.waitedMs).toBe(36);
      // 4 captures while it changed, then one every 2 ms from 8 to 36.
      expect(settled.captures).toBe(19);
      expect(settled.frame.data[0]).toBe(120);
    } finally {
      vi.useRealTimers();
    }
  });

  it('takes the last capture of a still stretch when it is the stable window long, not an interval after', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    try {
      // A capture that takes 8 ms, as a 1280x800 grab does; the screen never changes.
      const times: number[] = [];
      const still = frame(4, 4);
      const waiting = waitForSettle(
        async () => {
          times.push(performance.now());
          await sleep(8);
          return still;
        },
        { intervalMs: 16, stableMs: 33 },
      );
      await vi.advanceTimersByTimeAsync(200);
      const settled = await waiting;
      expect(settled.settled).toBe(true);
      // Captured at 0, after 16 ms of pause (at 24) and at 33, when the stretch is 33 ms long; at a
      // fixed pace the third would have waited until 48.
      expect(times.map((t) => t - (times[0] ?? 0))).toEqual([0, 24, 33]);
    } finally {
      vi.useRealTimers();
    }
  });

  it('gives up after the timeout with the latest frame', async () => {
    let n = 0;
    const settled = await waitForSettle(async () => frame(4, 4, () => (n++ * 50) % 256), {
      initialDelayMs: 0,
      intervalMs: 5,
      timeoutMs: 30,
    });
    expect(settled.settled).toBe(false);
    expect(settled.waitedMs).toBeGreaterThanOrEqual(30);
  });

  it('stops waiting when the signal aborts, with its reason', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('fail-safe')), 10);
    await expect(
      waitForSettle(async () => frame(4, 4), { initialDelayMs: 5000, signal: controller.signal }),
    ).rejects.toThrow('fail-safe');
  });
});
