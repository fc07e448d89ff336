/**
 * The process a batch worker replays one row in, on its private display (native input and capture
 * keep their first X connection for the life of a process, so each display needs its own). Reads its
 * job as JSON on stdin, replays it (replayRowJob), and writes the outcome as one JSON line on stdout.
 * Sensitive values come through the environment only.
 */
import { type RowJob, replayRowJob } from './row-job.ts';

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

const result = await replayRowJob(JSON.parse(await readStdin()) as RowJob);
process.stdout.write(`${JSON.stringify(result)}\n`, () => process.exit(0));
