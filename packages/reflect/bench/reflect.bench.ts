/**
 * Reflect throughput: a synthetic 40-step recording against the fake model server answering after
 * 1 s, 5 calls at once (the default). Ideal wall time is 40/5 x 1 s = 8 s for Pass A plus 1 s for
 * Pass B; the rest is overhead. Prints the median of 3 runs, and calls and tokens per step.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveModelConfig } from '@mime-desktop/model';
import { reflect } from '@mime-desktop/reflect';
import { startFakeModelServer } from '@mime-desktop/test-support/fake-model-server';
import { reflectModel } from '@mime-desktop/test-support/fake-reflect-model';
import sharp from 'sharp';

const STEPS = 40;
const LATENCY_MS = 1000;
const RUNS = 3;

async function makeRecording(home: string): Promise<string> {
  const dir = join(home, 'recordings', 'bench');
  await mkdir(join(dir, 'screenshots'), { recursive: true });
  await writeFile(
    join(dir, 'metadata.json'),
    JSON.stringify({ name: 'bench', screen: { width: 1280, height: 800 } }),
  );
  const lines: string[] = [];
  for (let n = 0; n <= STEPS; n += 1) {
    const frame = await sharp({
      create: { width: 1280, height: 800, channels: 3, background: { r: n * 5, g: 80, b: 120 } },
    })
      .png({ compressionLevel: 1 })
      .toBuffer();
    await writeFile(join(dir, 'screenshots', `${n}.png`), frame);
    const event =
      n === STEPS
        ? { action_type: null, action_details: {} }
        : n % 4 === 1
          ? { action_type: 'type', action_details: { text: `text ${n}` } }
          : { action_type: 'click', action_details: { button: 'left', x: 100 + n * 20, y: 300 } };
    lines.push(JSON.stringify({ ...event, screenshot: `screenshots/${n}.png`, timestamp: n }));
  }
  await writeFile(join(dir, 'manifest.jsonl'), `${lines.join('\n')}\n`);
  return dir;
}

const server = await startFakeModelServer();
server.setHandler(reflectModel({ delayMs: LATENCY_MS, paramName: 'text' }));
const home = await mkdtemp(join(tmpdir(), 'mime-bench-reflect-'));
try {
  const session = await makeRecording(home);
  const model = await resolveModelConfig({ env: { MIME_BASE_URL: server.url, MIME_MODEL: 'fake-model' } });
  const times: number[] = [];
  let last: Awaited<ReturnType<typeof reflect>> | undefined;
  for (let run = 0; run < RUNS; run += 1) {
    last = await reflect(session, { model, force: true, concurrency: 5 });
    times.push(last.durationMs);
  }
  const median = [...times].sort((a, b) => a - b)[Math.floor(RUNS / 2)] ?? 0;
  const usage = last?.usage;
  const ideal = (Math.ceil(STEPS / 5) + 1) * LATENCY_MS;
  const sizes = server
    .chatRequests()
    .filter((r) => r.body?.response_format?.json_schema?.name === 'step_card')
    .map((r) => JSON.stringify(r.body).length)
    .sort((a, b) => a - b);
  const passABytes = sizes[Math.floor(sizes.length / 2)] ?? 0;
  process.stdout.write(
    [
      `reflect: ${STEPS} steps, ${LATENCY_MS} ms model latency, 5 at once`,
      `  wall time median of ${RUNS}: ${(median / 1000).toFixed(2)} s (ideal ${(ideal / 1000).toFixed(1)} s, overhead ${((median - ideal) / 1000).toFixed(2)} s)`,
      `  model calls: ${usage?.calls} (${((usage?.calls ?? 0) / STEPS).toFixed(3)} per step)`,
      `  request size per Pass A call (2 PNGs of 1280x800, base64): ${Math.round(passABytes / 1024)} KiB median`,
      `  output tokens per step: ${Math.round((usage?.outputTokens ?? 0) / STEPS)} (input tokens depend on the model's image tokenizer: about 1300 a 1280x800 image for Qwen2.5-VL)`,
      '',
    ].join('\n'),
  );
} finally {
  await server.close();
  await rm(home, { recursive: true, force: true });
}
