/**
 * Agent-loop benchmark: the per-iteration overhead of replay beyond the model's latency and the settle
 * pause, at 1280x800 and 1920x1080 on private Xvfb servers showing the demo app. One iteration as the
 * loop runs it on a still screen: settle wait (capture, pause, capture, frame difference; the model
 * image is encoded during the pause), prompt, input execution; the overhead is its time less the pause.
 * The parts are also timed alone. Then the demo workflow is replayed end to end against the
 * screenshot-reading fake model, for model calls and image bytes per call.
 * Run from the repository root: `pnpm bench replay` (or `pnpm exec tsx packages/replay/bench/iteration.bench.ts`).
 *
 * Each measurement runs in a child process: nut-js keeps its first X connection for the life of the
 * process, so one process can only measure one display.
 */
import { execFile } from 'node:child_process';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { imagePart, ModelClient, resolveModelConfig } from '@mime-desktop/model';
import { createDesktop, encodePng, type RawFrame } from '@mime-desktop/os-io';
import { loadWorkflow } from '@mime-desktop/schema';
import { startDesktopHarness } from '@mime-desktop/test-support/desktop-harness';
import { startFakeModelServer } from '@mime-desktop/test-support/fake-model-server';
import { createFakeVisionModel } from '@mime-desktop/test-support/fake-vision-model';
import { executeAction } from '../src/actions/execute-action.ts';
import { measureFrameDifference, waitForSettle } from '../src/actions/screen-settle.ts';
import { describePointSpace } from '../src/agent/coordinates.ts';
import { encodeModelImage, type ModelImage } from '../src/agent/model-image.ts';
import { buildActPrompt } from '../src/agent/prompt.ts';
import { materializeWorkflow } from '../src/kernel/materialize.ts';
import { planFromWorkflow } from '../src/kernel/plan.ts';
import { replay } from '../src/run/replay.ts';

const SIZES = [
  { width: 1280, height: 800 },
  { width: 1920, height: 1080 },
];
const ROUNDS = 30;
/** The settle pause between the two captures of a still screen, ms (the default). */
const PAUSE_MS = 100;
const PLAY_SONG = fileURLToPath(new URL('../../../fixtures/workflows/play-song', import.meta.url));

interface Overhead {
  size: string;
  image: string;
  captureMs: number;
  diffMs: number;
  encodeMs: number;
  imageBytes: number;
  promptMs: number;
  executeMs: number;
  /** A whole iteration less the settle pause and the model. */
  overheadMs: number;
  /** Of which waiting for the model image after the settle wait (the rest of it overlapped the pause). */
  encodeWaitMs: number;
  backgroundPngMs: number;
}

interface DemoRun {
  outcome: string;
  calls: number;
  requests: number;
  imageBytesMedian: number;
  iterations: number;
  durationMs: number;
  modelMs: number;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

async function timed<T>(run: () => Promise<T> | T): Promise<[number, T]> {
  const start = performance.now();
  const result = await run();
  return [performance.now() - start, result];
}

/** Child: component timings on the display in DISPLAY. */
async function measureOverhead(): Promise<Overhead> {
  // No fail-safe (it would start global hooks) and no input pacing: only mime's own cost is timed.
  const desktop = await createDesktop({
    failSafe: false,
    timing: { settleMs: 0, afterActionMs: 0 },
  });
  const { workflow } = await loadWorkflow(PLAY_SONG);
  const materialized = materializeWorkflow(workflow, { overrides: { song_name: 'Faint' } });
  const subtask = planFromWorkflow(materialized.workflow)[1];
  if (!subtask) throw new Error('the demo workflow has no second subtask');
  const times = {
    capture: [] as number[],
    diff: [] as number[],
    encode: [] as number[],
    prompt: [] as number[],
  };
  const execute: number[] = [];
  const background: number[] = [];
  const overhead: number[] = [];
  const encodeWait: number[] = [];
  let previous = await desktop.captureFrame();
  let bytes = 0;
  let imageSize = '';
  const promptFor = (size: { width: number; height: number }) =>
    buildActPrompt({
      task: {
        name: workflow.task_name,
        description: workflow.detailed_task_description,
        successCriteria: '',
      },
      subtask,
      position: 2,
      count: 2,
      params: materialized.params,
      knownValues: [],
      extracted: new Set(),
      taskMemory: 'Searched for Faint; the results list it.',
      completedSubtasks: ['Search for Faint in the demo app.'],
      history: Array.from({ length: 6 }, (_, k) => ({
        call: `left_click [${100 + k}, 200]`,
        observation: 'The results list shows Faint with a Play button.',
        result: 'executed',
      })),
      historyLimit: 8,
      image: size,
      points: describePointSpace({ convention: 'grid1000', image: size, screen: desktop.screen.logical }),
      dryRun: false,
    });
  for (let round = 0; round < ROUNDS; round += 1) {
    // One iteration as the loop runs it.
    const point = { x: 900 + (round % 2) * 20, y: 760 };
    const started = performance.now();
    const encodings = new Map<RawFrame, Promise<ModelImage>>();
    const settled = await waitForSettle(() => desktop.captureFrame(), {
      afterAction: false,
      intervalMs: PAUSE_MS,
      onCandidate: (frame) => encodings.set(frame, encodeModelImage(frame)),
    });
    const waitFrom = performance.now();
    const image = await (encodings.get(settled.frame) ?? encodeModelImage(settled.frame));
    encodeWait.push(performance.now() - waitFrom);
    const content = [{ type: 'text', text: promptFor(image.size) }, imagePart(image.png)];
    await executeAction(desktop, { action: 'mouse_move', point });
    overhead.push(performance.now() - started - PAUSE_MS);
    if (content.length !== 2 || !settled.settled) throw new Error('the demo screen did not stay still');

    // The parts alone.
    const [captureMs, frame] = await timed(() => desktop.captureFrame());
    const [diffMs] = await timed(() => measureFrameDifference(previous, frame));
    const [encodeMs, alone] = await timed(() => encodeModelImage(frame));
    const [promptMs] = await timed(() => [
      { type: 'text', text: promptFor(alone.size) },
      imagePart(alone.png),
    ]);
    const [executeMs] = await timed(() => executeAction(desktop, { action: 'mouse_move', point }));
    const [pngMs] = await timed(() => encodePng(frame));
    times.capture.push(captureMs);
    times.diff.push(diffMs);
    times.encode.push(encodeMs);
    times.prompt.push(promptMs);
    execute.push(executeMs);
    background.push(pngMs);
    bytes = alone.png.length;
    imageSize = `${alone.size.width}x${alone.size.height}`;
    previous = frame;
  }
  await desktop.close();
  return {
    size: `${previous.physical.width}x${previous.physical.height}`,
    image: imageSize,
    captureMs: median(times.capture),
    diffMs: median(times.diff),
    encodeMs: median(times.encode),
    imageBytes: bytes,
    promptMs: median(times.prompt),
    executeMs: median(execute),
    overheadMs: median(overhead),
    encodeWaitMs: median(encodeWait),
    backgroundPngMs: median(background),
  };
}

/** Child: the demo workflow end to end against the screenshot-reading fake model. */
async function runDemo(): Promise<DemoRun> {
  const workflowDir = await mkdtemp(join(tmpdir(), 'mime-replay-bench-'));
  await cp(PLAY_SONG, workflowDir, { recursive: true });
  const server = await startFakeModelServer();
  const fake = createFakeVisionModel();
  server.setHandler(fake.handler);
  const imageBytes: number[] = [];
  try {
    const config = await resolveModelConfig({
      env: { MIME_BASE_URL: server.url, MIME_MODEL: 'fake-vision' },
    });
    const { summary } = await replay(workflowDir, {
      mode: 'agent',
      params: { song_name: 'Faint' },
      model: new ModelClient(config),
      onEvent: (event) => {
        if (event.type === 'capture') imageBytes.push(event.image_bytes);
      },
    });
    return {
      outcome: summary.outcome,
      calls: summary.usage.calls,
      requests: summary.usage.requests,
      imageBytesMedian: median(imageBytes),
      iterations: summary.subtasks.reduce((sum, s) => sum + s.iterations, 0),
      durationMs: summary.duration_ms,
      modelMs: summary.usage.duration_ms,
    };
  } finally {
    await fake.close();
    await server.close();
    await rm(workflowDir, { recursive: true, force: true });
  }
}

function runChild<T>(env: NodeJS.ProcessEnv, what: 'overhead' | 'demo'): Promise<T> {
  const self = fileURLToPath(import.meta.url);
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', self, `--child=${what}`],
      { env, maxBuffer: 1 << 20 },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`benchmark child failed: ${stderr || error.message}`));
        else resolve(JSON.parse(stdout) as T);
      },
    );
  });
}

const f1 = (n: number) => n.toFixed(1);
const child = process.argv.find((arg) => arg.startsWith('--child='))?.slice('--child='.length);

if (child === 'overhead') {
  process.stdout.write(JSON.stringify(await measureOverhead()));
  process.exit(0);
} else if (child === 'demo') {
  process.stdout.write(JSON.stringify(await runDemo()));
  process.exit(0);
} else {
  for (const size of SIZES) {
    const harness = await startDesktopHarness({ ...size, keepDisplayUntilExit: false });
    try {
      const r = await runChild<Overhead>(harness.env, 'overhead');
      process.stdout.write(
        `replay iteration at ${r.size} (model image ${r.image}, ${Math.round(r.imageBytes / 1024)} KiB): ` +
          `median ${f1(r.overheadMs)} ms beyond the ${PAUSE_MS} ms settle pause and the model ` +
          `(of which ${f1(r.encodeWaitMs)} ms waiting for the image after the wait). Parts alone: ` +
          `capture ${f1(r.captureMs)}, difference ${f1(r.diffMs)}, encode ${f1(r.encodeMs)} (overlaps the pause), ` +
          `prompt ${f1(r.promptMs)}, execute ${f1(r.executeMs)} ms; ` +
          `full-frame PNG ${f1(r.backgroundPngMs)} ms in the background\n`,
      );
    } finally {
      await harness.stop();
    }
  }
  const harness = await startDesktopHarness({ keepDisplayUntilExit: false });
  try {
    const d = await runChild<DemoRun>(harness.env, 'demo');
    process.stdout.write(
      `replay demo workflow (play-song, 1280x800, OCR fake model): ${d.outcome}, ${d.calls} model calls ` +
        `(${d.requests} requests), ${d.iterations} iterations, median image ${Math.round(d.imageBytesMedian / 1024)} KiB a call, ` +
        `${f1(d.durationMs / 1000)} s in all of which ${f1(d.modelMs / 1000)} s in the model\n`,
    );
  } finally {
    await harness.stop();
  }
}
