/**
 * The process a batch worker replays one row in, on its private display (native input and capture
 * keep their first X connection for the life of a process, so each display needs its own). Reads its
 * job as JSON on stdin, replays it (replayRowJob), and writes the outcome as one JSON line on stdout.
 * Sensitive values come through the environment only. A worker may be started ahead of its row (while
 * the row before it runs): everything it loads is loaded before its job comes.
 */
import { type RowJob, replayRowJob } from './row-job.ts';

// The report module, which a run loads at its end, loaded while the job is awaited (the row's end then
// does not wait for it); failing, it is the run's to report (its summary's report_error).
void import('@mime-desktop/report').catch(() => undefined);

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

const job = JSON.parse(await readStdin()) as RowJob;
const result = await replayRowJob(job);
process.stdout.write(`${JSON.stringify(result)}\n`, () => process.exit(0));
