/**
 * Desktop benchmark: capture latency, PNG encoding at compression 1 vs 6, and the CPU cost of the
 * frame ring at its default rate, at 1280x800 and 1920x1080 on private Xvfb servers showing the demo
 * app. Run from the repository root: `pnpm exec tsx packages/os-io/bench/desktop.bench.ts`.
 *
 * Each size runs in a child process: nut-js keeps its first X connection for the life of the
 * process, so one process can only measure one display.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { startDesktopHarness } from '@mime-desktop/test-support/desktop-harness';
import { captureFrame, encodePng, FrameRing } from '../src/index.ts';

const SIZES = [
  { width: 1280, height: 800 },
  { width: 1920, height: 1080 },
];
const CAPTURES = 60;
const ENCODES = 15;
const RING_SECONDS = 5;

interface Figures {
  size: string;
  captureMs: { median: number; p90: number };
  pngMs: { level1: number; level6: number };
  pngBytes: { level1: number; level6: number };
  ringCpuPercent: number;
  ringFrames: number;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? Number.NaN;
}

async function timed<T>(run: () => Promise<T>): Promise<[number, T]> {
  const start = performance.now();
  const result = await run();
  return [performance.now() - start, result];
}

/** Runs in the child, on the display in DISPLAY. */
async function measure(): Promise<Figures> {
  await captureFrame(); // load nut-js, open the X connection
  const captures: number[] = [];
  for (let i = 0; i < CAPTURES; i += 1) captures.push((await timed(captureFrame))[0]);

  const frame = await captureFrame();
  const encode = async (compressionLevel: number) => {
    await encodePng(frame, { compressionLevel });
    const times: number[] = [];
    let bytes = 0;
    for (let i = 0; i < ENCODES; i += 1) {
      const [ms, png] = await timed(() => encodePng(frame, { compressionLevel }));
      times.push(ms);
      bytes = png.length;
    }
    return { ms: median(times), bytes };
  };
  const level1 = await encode(1);
  const level6 = await encode(6);

  const ring = new FrameRing(captureFrame); // defaults: 10 fps, 10 frames
  let frames = 0;
  const cpuBefore = process.cpuUsage();
  const wallBefore = performance.now();
  ring.start();
  const counter = setInterval(() => {
    frames = ring.frames().length;
  }, 100);
  await new Promise((resolve) => setTimeout(resolve, RING_SECONDS * 1000));
  await ring.stop();
  clearInterval(counter);
  const cpu = process.cpuUsage(cpuBefore);
  const wall = performance.now() - wallBefore;

  return {
    size: `${frame.physical.width}x${frame.physical.height}`,
    captureMs: { median: median(captures), p90: percentile(captures, 0.9) },
    pngMs: { level1: level1.ms, level6: level6.ms },
    pngBytes: { level1: level1.bytes, level6: level6.bytes },
    ringCpuPercent: ((cpu.user + cpu.system) / 1000 / wall) * 100,
    ringFrames: frames,
  };
}

function runChild(env: NodeJS.ProcessEnv): Promise<Figures> {
  const self = fileURLToPath(import.meta.url);
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['--import', 'tsx', self, '--child'], { env }, (error, stdout, stderr) => {
      if (error) reject(new Error(`benchmark child failed: ${stderr || error.message}`));
      else resolve(JSON.parse(stdout) as Figures);
    });
  });
}

const f1 = (n: number) => n.toFixed(1);

if (process.argv.includes('--child')) {
  process.stdout.write(JSON.stringify(await measure()));
} else {
  for (const size of SIZES) {
    const harness = await startDesktopHarness({ ...size, keepDisplayUntilExit: false });
    try {
      const r = await runChild(harness.env);
      process.stdout.write(
        `${r.size}: capture median ${f1(r.captureMs.median)} ms (p90 ${f1(r.captureMs.p90)} ms); ` +
          `PNG level 1 ${f1(r.pngMs.level1)} ms / ${Math.round(r.pngBytes.level1 / 1024)} KiB, ` +
          `level 6 ${f1(r.pngMs.level6)} ms / ${Math.round(r.pngBytes.level6 / 1024)} KiB; ` +
          `ring at 10 fps ${f1(r.ringCpuPercent)} % of one core over ${RING_SECONDS} s (${r.ringFrames} frames kept)\n`,
      );
    } finally {
      await harness.stop();
    }
  }
}
